# Runs PROGRAM (with PROGRAM_ARGS) with no visible GPU and passes when it exits
# non-zero and its output contains EXPECT.
set(ENV{CUDA_VISIBLE_DEVICES} "")
separate_arguments(args UNIX_COMMAND "${PROGRAM_ARGS}")
execute_process(COMMAND ${PROGRAM} ${args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
message("exit status: ${rc}\nstdout: ${out}\nstderr: ${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "expected a non-zero exit status")
endif()
string(FIND "${out}${err}" "${EXPECT}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "expected the output to contain: ${EXPECT}")
endif()
