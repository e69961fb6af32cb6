# Shared by the SASS checks of this folder (check_*.cmake, run with cmake -P):
# gshmem_sass_dump(<object> <out>) sets <out> to the SASS of <object>
# (`cuobjdump -sass`), or to "SKIPPED" after printing the "SKIPPED:" line
# the tests' SKIP_REGULAR_EXPRESSION matches, where cuobjdump (CUOBJDUMP) or
# the nvdisasm it needs is missing. Any other failure of cuobjdump is fatal.
function(gshmem_sass_dump object out)
  if(NOT CUOBJDUMP OR NOT EXISTS "${CUOBJDUMP}")
    message("SKIPPED: cuobjdump not found (it comes with the CUDA toolkit, or: python3 -m pip install "
            "nvidia-cuda-cuobjdump; then configure again)")
    set(${out} "SKIPPED" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND "${CUOBJDUMP}" -sass "${object}" OUTPUT_VARIABLE sass ERROR_VARIABLE sass_err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 AND sass_err MATCHES "nvdisasm")
    message("SKIPPED: ${CUOBJDUMP} -sass needs nvdisasm, which is not there (it comes with the CUDA "
            "toolkit, or: python3 -m pip install nvidia-cuda-nvdisasm): ${sass_err}")
    set(${out} "SKIPPED" PARENT_SCOPE)
    return()
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CUOBJDUMP} -sass ${object} failed (${rc}): ${sass_err}")
  endif()
  set(${out} "${sass}" PARENT_SCOPE)
endfunction()

# The same at a script's top level: the script ends there when skipped (a
# macro's return() returns from its caller's file).
macro(gshmem_sass_dump_or_return object out)
  gshmem_sass_dump("${object}" ${out})
  if(${out} STREQUAL "SKIPPED")
    return()
  endif()
endmacro()
