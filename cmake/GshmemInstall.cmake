# Install rules and the CMake package (owned by the runtime foundation).
