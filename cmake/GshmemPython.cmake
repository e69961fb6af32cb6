# The Python package in the build tree (GSHMEM_BUILD_PYTHON): its extension
# module, built into <build>/python/gshmem, and (with GSHMEM_BUILD_TESTS) the
# CTest entry python_cpu (labels cpu;python) that runs python/tests with
# pytest over it.
#
# What it needs is looked for here, and where something is missing the
# configure says what and python_cpu is registered as a test that reports
# itself skipped (exit 77, with the reason) rather than passing.

function(gshmem_python_skip_test reason)
  message(STATUS "gshmem: Python package not built: ${reason}")
  if(NOT GSHMEM_BUILD_TESTS)
    return()
  endif()
  add_test(NAME python_cpu COMMAND sh -c "echo 'python_cpu skipped: ${reason}'; exit 77")
  set_tests_properties(python_cpu PROPERTIES LABELS "cpu;python" SKIP_RETURN_CODE 77)
endfunction()

if(GSHMEM_SANITIZE)
  # An instrumented libgshmem needs the sanitizer runtime preloaded into the
  # interpreter; the Python test runs in the plain configuration only.
  message(STATUS "gshmem: Python package not built in a sanitizer build (GSHMEM_SANITIZE)")
  return()
endif()

find_package(Python 3.8 COMPONENTS Interpreter Development.Module)
if(NOT Python_FOUND)
  gshmem_python_skip_test("no Python 3 interpreter with its development files (python3-dev)")
  return()
endif()
if(NOT nanobind_DIR)
  execute_process(COMMAND ${Python_EXECUTABLE} -m nanobind --cmake_dir
                  OUTPUT_VARIABLE _nb_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE _nb_rc)
  if(NOT _nb_rc EQUAL 0)
    gshmem_python_skip_test("nanobind is not installed for ${Python_EXECUTABLE} (${Python_EXECUTABLE} -m pip install nanobind)")
    return()
  endif()
  set(nanobind_DIR ${_nb_dir} CACHE PATH "nanobind's CMake folder")
endif()
execute_process(COMMAND ${Python_EXECUTABLE} -c "import pytest"
                RESULT_VARIABLE _pytest_rc OUTPUT_QUIET ERROR_QUIET)

add_subdirectory(python)
message(STATUS "gshmem: Python package built in ${PROJECT_BINARY_DIR}/python (nanobind ${nanobind_DIR})")
if(NOT GSHMEM_BUILD_TESTS)
  return()  # the extension alone (scripts/python_gpu.sh builds it so)
endif()

if(NOT _pytest_rc EQUAL 0)
  gshmem_python_skip_test("pytest is not installed for ${Python_EXECUTABLE} (${Python_EXECUTABLE} -m pip install pytest)")
  return()
endif()
# The CPU tests: import, version, errors before init, init without a GPU
# (CUDA_VISIBLE_DEVICES is emptied, so the result is the same on a GPU
# machine), argument checks.
# With the Triton device library built, both package tests expect it shipped.
get_property(_bitcode GLOBAL PROPERTY GSHMEM_TRITON_BITCODE)
get_property(_bitcode_why GLOBAL PROPERTY GSHMEM_TRITON_BITCODE_WHY)
set(_expect_bitcode "GSHMEM_EXPECT_TRITON_BITCODE=$<IF:$<BOOL:${_bitcode}>,1,0>")
add_test(NAME python_cpu
         COMMAND ${Python_EXECUTABLE} -m pytest -q -p no:cacheprovider ${PROJECT_SOURCE_DIR}/python/tests)
set_tests_properties(python_cpu PROPERTIES
  LABELS "cpu;python" TIMEOUT 300 SKIP_RETURN_CODE 77
  ENVIRONMENT "PYTHONPATH=${PROJECT_BINARY_DIR}/python;CUDA_VISIBLE_DEVICES=;GSHMEM_EXPECT_VERSION=${PROJECT_VERSION};${_expect_bitcode}")

# gshmem.triton without a GPU (python/tests/triton/triton_cpu_checks.py):
# Triton kernels calling each routine compiled for sm_90 against the device
# library, their PTX checked. Skipped (77, saying why) where the device
# library was not built (no clang recent enough) or Triton is not installed.
if(NOT _bitcode)
  add_test(NAME python_triton_cpu
           COMMAND sh -c "echo 'python_triton_cpu skipped: no Triton device library: ${_bitcode_why}'; exit 77")
else()
  add_test(NAME python_triton_cpu
           COMMAND sh -c "\"$0\" -c 'import triton' 2>/dev/null || { echo \"python_triton_cpu skipped: Triton is not \
installed for $0 ($0 -m pip install triton)\"; exit 77; }; exec \"$0\" -m pytest -q -p no:cacheprovider \"$1\""
                   ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/python/tests/triton/triton_cpu_checks.py)
endif()
set_tests_properties(python_triton_cpu PROPERTIES
  LABELS "cpu;python;triton" TIMEOUT 600 SKIP_RETURN_CODE 77
  ENVIRONMENT "PYTHONPATH=${PROJECT_BINARY_DIR}/python;CUDA_VISIBLE_DEVICES=;TRITON_CACHE_DIR=${PROJECT_BINARY_DIR}/triton-cache;TRITON_DEFAULT_FP_FUSION=1")

# gshmem.tile without a GPU (python/tests/tile/tile_cpu_checks.py): cuTile
# kernels calling each routine compiled for sm_90 with tileiras, their SASS
# checked (cuobjdump). Skipped (77, saying why) without cuda-tile, tileiras
# or cuobjdump: pip install 'cuda-tile==1.7.*' nvidia-cuda-tileiras
# nvidia-cuda-cuobjdump (scripts/install-deps.sh does).
add_test(NAME python_tile_cpu
         COMMAND sh -c "\"$0\" -c 'import cuda.tile, cuda.tile._compile as c; c._find_compiler_bin()' >/dev/null 2>&1 || \
{ echo \"python_tile_cpu skipped: cuTile (cuda-tile with its compiler tileiras) is not installed for $0 ($0 -m pip \
install cuda-tile==1.7.0 nvidia-cuda-tileiras nvidia-cuda-cuobjdump)\"; exit 77; }; exec \"$0\" -m pytest -q -rs \
-p no:cacheprovider \"$1\""
                 ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/python/tests/tile/tile_cpu_checks.py)
set_tests_properties(python_tile_cpu PROPERTIES
  LABELS "cpu;python;tile" TIMEOUT 600 SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "[0-9]+ skipped"
  ENVIRONMENT "PYTHONPATH=${PROJECT_BINARY_DIR}/python;CUDA_VISIBLE_DEVICES=")

# `pip install ./python` as a user runs it (scripts/python_pip_install.sh:
# this build installed into a prefix, the package built by pip against it,
# without build isolation or an index), then the same CPU tests over the
# installed package. Labelled install: it installs, like
# runtime_install_consumer. Skipped (77, saying why) without scikit-build-core.
add_test(NAME python_pip_install
         COMMAND sh -c "out=$(bash \"$0\" \"$1\" \"$2\" \"$3\"); rc=$?; echo \"$out\"; [ $rc -eq 0 ] || exit $rc; \
site=$(echo \"$out\" | tail -n 1); PYTHONPATH=\"$site\" GSHMEM_EXPECT_PACKAGE_DIR=\"$site/gshmem\" \
exec \"$3\" -m pytest -q -p no:cacheprovider \"$4\""
                 ${PROJECT_SOURCE_DIR}/scripts/python_pip_install.sh ${PROJECT_BINARY_DIR}
                 ${PROJECT_BINARY_DIR}/python-pip ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/python/tests)
set_tests_properties(python_pip_install PROPERTIES
  LABELS "cpu;python;install;slow" TIMEOUT 600 SKIP_RETURN_CODE 77 PROCESSORS 2
  ENVIRONMENT "CUDA_VISIBLE_DEVICES=;GSHMEM_EXPECT_VERSION=${PROJECT_VERSION};${_expect_bitcode}")
