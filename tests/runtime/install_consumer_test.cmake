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
  -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER})
run_step("build consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

# The installed tool runs from the prefix (finds libgshmem by its RPATH).
run_step("run installed gshmem-info" ${prefix}/bin/gshmem-info)
# The consumer: without a GPU it must report GSHMEMX_ERROR_NO_DEVICE cleanly.
run_step("run consumer" ${WORK_DIR}/build/gshmem_consumer)
message(STATUS "${step_output}")
# The NVSHMEM-style program (gshmem::nvshmem): one PE here, a ring of one.
# Without a GPU it says so and exits 0; with one it checks its own put_signal.
run_step("run nvshmem consumer" ${WORK_DIR}/build/nvshmem_consumer)
message(STATUS "${step_output}")
