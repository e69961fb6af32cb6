# cmake -DCOMPILER=... -DSOURCE=... -DCASE=n -DEXPECT=<regex> -DINCLUDES=a;b -DARCH=90 -P check_compile_fails.cmake
# Passes only when the compile FAILS and its diagnostics match EXPECT (the
# static_assert text), so an unrelated error cannot pass for a rejection.
set(inc_flags)
foreach(dir IN LISTS INCLUDES)
  list(APPEND inc_flags -I${dir})
endforeach()
execute_process(COMMAND ${COMPILER} -std=c++17 -arch=sm_${ARCH} ${inc_flags} -DGSHMEM_CHECK_CASE=${CASE}
                        -c ${SOURCE} -o ${OUTPUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "case ${CASE} compiled, but it must be rejected")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "case ${CASE} failed to compile for another reason:\n${out}${err}")
endif()
message(STATUS "case ${CASE} rejected as expected")
