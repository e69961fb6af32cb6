# Installs the build tree into a fresh prefix, configures and builds
# consumer/ against it with find_package(gshmem), then runs the consumer.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

# The library's own components (perftests are not needed to use it).
foreach(component runtime devel)
  run_step("install ${component}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
    --component ${component})
endforeach()
foreach(f include/gshmem/gshmem.h include/gshmem/gshmemx.h include/gshmem/version.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
file(GLOB config ${prefix}/lib*/cmake/gshmem/gshmemConfig.cmake)
file(GLOB plugins ${prefix}/lib*/gshmem/libgshmem_bootstrap_*.so)
file(GLOB info ${prefix}/bin/gshmem-info)
if(NOT config OR NOT info)
  message(FATAL_ERROR "package config or gshmem-info missing under ${prefix}")
endif()
message(STATUS "installed plugins: ${plugins}")

run_step("configure consumer" ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}
  -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER} -DEXPECTED_GSHMEM_VERSION=${PROJECT_VERSION})
run_step("build consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

# A version the package cannot satisfy must be refused by find_package.
file(WRITE ${WORK_DIR}/too_new/CMakeLists.txt
  "cmake_minimum_required(VERSION 3.25)\nproject(too_new LANGUAGES NONE)\nfind_package(gshmem 9.0 CONFIG REQUIRED)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/too_new -B ${WORK_DIR}/too_new/build
  -DCMAKE_PREFIX_PATH=${prefix} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "9\\.0")
  message(FATAL_ERROR "find_package(gshmem 9.0) should fail naming the version (rc ${rc}):\n${out}\n${err}")
endif()
message(STATUS "find_package(gshmem 9.0) refused: ok")

# Without CMake: plain nvcc with the installed pkg-config file.
find_program(PKG_CONFIG_EXECUTABLE pkg-config)
if(PKG_CONFIG_EXECUTABLE)
  set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
  run_step("pkg-config gshmem" ${PKG_CONFIG_EXECUTABLE} --modversion gshmem)
  string(STRIP "${step_output}" pc_version)
  if(NOT pc_version STREQUAL PROJECT_VERSION)
    message(FATAL_ERROR "pkg-config --modversion gshmem says '${pc_version}', the project is ${PROJECT_VERSION}")
  endif()
  list(GET CUDA_ARCHITECTURES 0 arch)
  foreach(module gshmem gshmem-nvshmem)
    run_step("pkg-config ${module}" ${PKG_CONFIG_EXECUTABLE} --cflags --libs ${module})
    string(STRIP "${step_output}" flags)
    separate_arguments(pc_flags_${module} UNIX_COMMAND "${flags}")
  endforeach()
  run_step("nvcc with pkg-config gshmem-nvshmem" ${CUDA_COMPILER} -std=c++17 -cudart shared -arch=sm_${arch}
    -c ${CONSUMER_SOURCE}/nvshmem_program.cu -o ${WORK_DIR}/pc_nvshmem.o ${pc_flags_gshmem-nvshmem})
  run_step("nvcc with pkg-config gshmem (compile, link)" ${CUDA_COMPILER} -std=c++17 -cudart shared -arch=sm_${arch}
    ${CONSUMER_SOURCE}/main.cpp ${CONSUMER_SOURCE}/kernel.cu -o ${WORK_DIR}/pc_program ${pc_flags_gshmem}
    -Xlinker -rpath=${prefix}/${LIBDIR})
  run_step("run the pkg-config program" ${WORK_DIR}/pc_program)
else()
  message(STATUS "pkg-config not found: the build without CMake is not checked (Debian: apt-get install pkg-config)")
endif()
run_step("installed gshmem-info --version" ${prefix}/bin/gshmem-info --version)
if(NOT step_output MATCHES "^gshmem ${PROJECT_VERSION} ")
  message(FATAL_ERROR "gshmem-info --version printed '${step_output}', expected 'gshmem ${PROJECT_VERSION} ...'")
endif()

# The installed tool runs from the prefix (finds libgshmem by its RPATH).
run_step("run installed gshmem-info" ${prefix}/bin/gshmem-info)
# The consumer: without a GPU it must report GSHMEMX_ERROR_NO_DEVICE cleanly.
run_step("run consumer" ${WORK_DIR}/build/gshmem_consumer)
message(STATUS "${step_output}")
# The NVSHMEM-style program (gshmem::nvshmem): one PE here, a ring of one.
# Without a GPU it says so and exits 0; with one it checks its own put_signal.
run_step("run nvshmem consumer" ${WORK_DIR}/build/nvshmem_consumer)
message(STATUS "${step_output}")
