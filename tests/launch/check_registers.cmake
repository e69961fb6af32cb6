# Reads the register count of every kernel in a compiled binary and fails
# when one is above MAX_REGISTERS, naming each such kernel and its count.
#   cmake -DCUOBJDUMP=<cuobjdump> -DBINARY=<file> -DMAX_REGISTERS=64
#         "-DEXPECTED=<kernel,kernel,...>" -P check_registers.cmake
# EXPECTED: kernel names that must be in the binary (a parse that finds
# nothing must not pass). NO_CALLS=1: instead, fail when a kernel's SASS
# holds a CALL: a kernel that contains any call (printf, a function kept out
# of line) gets YIELD and convergence barriers in its loops, a wait's poll
# loop included (include/gshmem/detail/device_report.h says what it costs). Without cuobjdump the script prints "SKIPPED:"
# (the test's SKIP_REGULAR_EXPRESSION) and says how to get it.
cmake_minimum_required(VERSION 3.25)

if(NOT CUOBJDUMP OR NOT EXISTS "${CUOBJDUMP}")
  message("SKIPPED: cuobjdump not found (it comes with the CUDA toolkit, or: python3 -m pip install "
          "nvidia-cuda-cuobjdump; then configure again)")
  return()
endif()
if(NOT EXISTS "${BINARY}")
  message(FATAL_ERROR "no such file: ${BINARY}")
endif()

if(NO_CALLS)
  execute_process(COMMAND "${CUOBJDUMP}" -sass "${BINARY}"
                  OUTPUT_VARIABLE sass ERROR_VARIABLE sass_err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 AND sass_err MATCHES "nvdisasm")
    message("SKIPPED: ${CUOBJDUMP} -sass needs nvdisasm, which is not there (it comes with the CUDA "
            "toolkit, or: python3 -m pip install nvidia-cuda-nvdisasm): ${sass_err}")
    return()
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CUOBJDUMP} -sass ${BINARY} failed (${rc}): ${sass_err}")
  endif()
  string(REPLACE "\n" ";" lines "${sass}")
  set(name "")
  set(found "")
  set(calls "")
  foreach(line IN LISTS lines)
    if(line MATCHES "Function : ([^ \t]+)")
      set(name "${CMAKE_MATCH_1}")
      list(APPEND found "${name}")
    elseif(name AND line MATCHES "[ \t](CALL\\.[A-Z.]+)[ \t]")
      string(APPEND calls "  ${name}: ${CMAKE_MATCH_1}\n")
      set(name "")  # one line per function
    endif()
  endforeach()
  list(LENGTH found count)
  set(missing "")
  string(REPLACE "," ";" expected "${EXPECTED}")
  foreach(kernel IN LISTS expected)
    list(FIND found "${kernel}" at)
    if(at EQUAL -1)
      string(APPEND missing "  ${kernel}\n")
    endif()
  endforeach()
  if(missing)
    message(FATAL_ERROR "kernels not found in the SASS of ${BINARY}:\n${missing}")
  endif()
  if(calls)
    message(FATAL_ERROR "kernels with a CALL (device printf or an out-of-line function: YIELD and convergence "
                        "barriers in their loops):\n${calls}")
  endif()
  message("${count} functions in ${BINARY}: none holds a CALL")
  return()
endif()

execute_process(COMMAND "${CUOBJDUMP}" --dump-resource-usage "${BINARY}"
                OUTPUT_VARIABLE dump ERROR_VARIABLE dump_err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CUOBJDUMP} --dump-resource-usage ${BINARY} failed (${rc}): ${dump_err}")
endif()

# The dump has, per embedded cubin, "arch = sm_NN" and then per function
#   Function <name>:
#    REG:<n> STACK:<n> SHARED:<n> LOCAL:<n> ...
string(REPLACE "\n" ";" lines "${dump}")
set(arch "?")
set(name "")
set(over "")
set(report "")
set(found "")
set(count 0)
foreach(line IN LISTS lines)
  if(line MATCHES "arch = (sm_[0-9a-z]+)")
    set(arch "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^[ \t]*Function ([^:]+):")
    set(name "${CMAKE_MATCH_1}")
  elseif(name AND line MATCHES "REG:([0-9]+)")
    set(regs "${CMAKE_MATCH_1}")
    string(REGEX MATCH "LOCAL:([0-9]+)" local_match "${line}")
    set(local "${CMAKE_MATCH_1}")
    math(EXPR count "${count} + 1")
    list(APPEND found "${name}")
    string(APPEND report "  ${regs}\t${name} (${arch}, local ${local} bytes)\n")
    if(regs GREATER MAX_REGISTERS)
      string(APPEND over "  ${name} (${arch}): ${regs} registers per thread\n")
    endif()
    set(name "")
  endif()
endforeach()

set(missing "")
string(REPLACE "," ";" expected "${EXPECTED}")
foreach(kernel IN LISTS expected)
  list(FIND found "${kernel}" at)
  if(at EQUAL -1)
    string(APPEND missing "  ${kernel}\n")
  endif()
endforeach()

message("${count} functions in ${BINARY}; registers per thread:\n${report}")
if(missing)
  message(FATAL_ERROR "kernels not found in the resource usage of ${BINARY}:\n${missing}")
endif()
if(over)
  message(FATAL_ERROR "more than ${MAX_REGISTERS} registers per thread, so a 1024-thread block of these "
                      "kernels fails to launch (too many resources requested for launch):\n${over}")
endif()
message("every function is within ${MAX_REGISTERS} registers per thread")
