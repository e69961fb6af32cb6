# Runs COMMAND_LINE (words separated by spaces) and passes when it exits with status EXPECT within
# TIMEOUT seconds and never prints UNREACHED. Output is echoed; a program
# that prints "SKIPPED:" is reported skipped by CTest (SKIP_REGULAR_EXPRESSION).
separate_arguments(command UNIX_COMMAND "${COMMAND_LINE}")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
message("exit status: ${rc}\nstdout: ${out}\nstderr: ${err}")
string(FIND "${out}" "SKIPPED:" skipped)
if(NOT skipped EQUAL -1)
  return()
endif()
if(NOT "${rc}" STREQUAL "${EXPECT}")
  message(FATAL_ERROR "expected exit status ${EXPECT}, got ${rc}")
endif()
string(FIND "${out}" "UNREACHED" unreached)
if(NOT unreached EQUAL -1)
  message(FATAL_ERROR "control came back from the call that ends the job")
endif()
