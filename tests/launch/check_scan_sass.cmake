# The one-thread _any scans keep a wide batch in flight: in the SASS of
# scan_sass_kernel.cu (sm_90) the longest run of system-scope strong loads
# (LD/LDG ... STRONG.SYS) with no comparison (ISETP) between them must hold
# at least MIN_LOADS loads in each kernel. A pass over n elements costs
# about n / batch load latencies (docs/performance.md), so the run is the
# scan's speed: the tree with 12 in flight was 2.3-2.5x slower than the one
# with 32. Kernels whose name holds "_u32" scan 4-byte elements and must
# hold MIN_LOADS_4B (default: MIN_LOADS). Prints "SKIPPED:" without
# cuobjdump or nvdisasm.
#   cmake -DCUOBJDUMP=... -DOBJECT=<object> -DMIN_LOADS=16 [-DMIN_LOADS_4B=64] -P check_scan_sass.cmake
cmake_minimum_required(VERSION 3.25)

if(NOT CUOBJDUMP)
  message("SKIPPED: cuobjdump not found (it comes with the CUDA toolkit, or: python3 -m pip install "
          "nvidia-cuda-cuobjdump; then configure again)")
  return()
endif()
execute_process(COMMAND "${CUOBJDUMP}" -sass "${OBJECT}" OUTPUT_VARIABLE sass ERROR_VARIABLE sass_err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 AND sass_err MATCHES "nvdisasm")
  message("SKIPPED: ${CUOBJDUMP} -sass needs nvdisasm, which is not there: ${sass_err}")
  return()
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CUOBJDUMP} -sass ${OBJECT} failed (${rc}): ${sass_err}")
endif()

if(NOT MIN_LOADS_4B)
  set(MIN_LOADS_4B ${MIN_LOADS})
endif()

# Per kernel: split at "Function :", then walk the lines.
string(REPLACE ";" "\\;" sass "${sass}")
string(REPLACE "\n" ";" lines "${sass}")
set(kernel "")
set(failed "")
set(report "")
macro(close_kernel)
  if(NOT kernel STREQUAL "")
    set(want ${MIN_LOADS})
    if(kernel MATCHES "_u32")
      set(want ${MIN_LOADS_4B})
    endif()
    string(APPEND report "${kernel}: ${best} loads in flight (at least ${want}); ")
    if(best LESS want)
      list(APPEND failed ${kernel})
    endif()
  endif()
endmacro()
foreach(line IN LISTS lines)
  if(line MATCHES "Function : ([A-Za-z0-9_]+)")
    set(next_kernel ${CMAKE_MATCH_1})  # before close_kernel's own MATCHES
    close_kernel()
    set(kernel ${next_kernel})
    set(run 0)
    set(best 0)
  elseif(line MATCHES "[ \t]LDG?\\.E[A-Z0-9.]*\\.STRONG\\.SYS[ \t]")
    math(EXPR run "${run} + 1")
    if(run GREATER best)
      set(best ${run})
    endif()
  elseif(line MATCHES "[ \t](ISETP|BRA|EXIT|BSYNC)[ \t.]")
    set(run 0)
  endif()
endforeach()
close_kernel()
foreach(k scan_sass_wait_until_any scan_sass_test_any)
  if(NOT report MATCHES "${k}")
    message(FATAL_ERROR "${OBJECT}: no SASS of the kernel ${k}")
  endif()
endforeach()
message("${report}")
if(failed)
  message(FATAL_ERROR "one-thread _any scans with fewer loads in flight than required: ${failed}")
endif()
