# The one-thread scans keep a wide batch in flight and compare it cheaply:
# in the SASS of scan_sass_kernel.cu (sm_90), per kernel,
#  - the longest run of system-scope strong loads (LD/LDG ... STRONG.SYS)
#    with no comparison (ISETP) between them must hold at least MIN_LOADS
#    loads. A pass over n elements costs about n / batch load latencies
#    (docs/performance.md), so the run is the scan's speed: the tree with 12
#    in flight was 2.3-2.5x slower than the one with 32 (_any, and _some
#    likewise). Kernels whose name holds "_u32" scan 4-byte elements and
#    must hold MIN_LOADS_4B (default: MIN_LOADS);
#  - the batch's comparison, from the end of that run to the first of: a
#    load, a backward branch, EXIT, or the BREV/FLO/POPC that start the
#    handling of the candidates found, may hold at most
#    MAX_COMPARES_PER_LOAD (default 3) ISETP/UISETP per load of the run: a
#    64-bit compare is two, plus the batch's few bookkeeping compares. Two
#    masks per batch where the comparison needs one (the comparison's
#    former form) made it 4.1 per load; a per-element bound on the
#    comparison value of _some made it 5.8. Kernels whose name holds
#    "_status" take a run-time cmp, which needs both masks (four compares
#    per 8-byte element): MAX_COMPARES_PER_LOAD_RUNTIME_CMP (default 5);
#    "_u32" kernels compare 4-byte elements, one ISETP each:
#    MAX_COMPARES_PER_LOAD_4B (default 2; the two masks made it 2.1);
#  - neither the run nor that comparison holds YIELD, CALL, WARPSYNC, CCTL
#    (the L1 invalidation of an acquire load) or MEMBAR: the batch is
#    relaxed loads, then compares, and only the confirmed candidate pays an
#    acquire.
# Every kernel the source names scan_sass_<routine> must be there. Prints
# "SKIPPED:" without cuobjdump or nvdisasm.
#   cmake -DCUOBJDUMP=... -DOBJECT=<object> -DMIN_LOADS=16 [-DMIN_LOADS_4B=64]
#         [-DMAX_COMPARES_PER_LOAD=3] [-DMAX_COMPARES_PER_LOAD_4B=2]
#         [-DMAX_COMPARES_PER_LOAD_RUNTIME_CMP=5]
#         [-DKERNELS=a,b] -P check_scan_sass.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/sass_dump.cmake)
gshmem_sass_dump_or_return("${OBJECT}" sass)

if(NOT MIN_LOADS_4B)
  set(MIN_LOADS_4B ${MIN_LOADS})
endif()
if(NOT MAX_COMPARES_PER_LOAD)
  set(MAX_COMPARES_PER_LOAD 3)
endif()
if(NOT MAX_COMPARES_PER_LOAD_4B)
  set(MAX_COMPARES_PER_LOAD_4B 2)
endif()
if(NOT MAX_COMPARES_PER_LOAD_RUNTIME_CMP)
  set(MAX_COMPARES_PER_LOAD_RUNTIME_CMP 5)
endif()
if(NOT KERNELS)
  set(KERNELS "scan_sass_wait_until_any,scan_sass_test_any")
endif()
string(REPLACE "," ";" KERNELS "${KERNELS}")

# Per kernel: split at "Function :", then walk the lines. A run ends at a
# comparison, a branch, EXIT or BSYNC; when the run that ended is the
# longest so far (or as long), the lines after it are its comparison (the
# top of this file says where it ends).
string(REPLACE ";" "\\;" sass "${sass}")
string(REPLACE "\n" ";" lines "${sass}")
set(kernel "")
set(failed "")
set(report "")
macro(close_region)
  if(measuring)
    if(region_cmp GREATER best_cmp)
      set(best_cmp ${region_cmp})
    endif()
    if(NOT region_bad STREQUAL "")
      list(APPEND best_bad ${region_bad})
    endif()
    set(measuring FALSE)
  endif()
endmacro()
macro(close_kernel)
  close_region()
  if(NOT kernel STREQUAL "")
    set(want ${MIN_LOADS})
    if(kernel MATCHES "_u32")
      set(want ${MIN_LOADS_4B})
    endif()
    set(per_load ${MAX_COMPARES_PER_LOAD})
    if(kernel MATCHES "_status")
      set(per_load ${MAX_COMPARES_PER_LOAD_RUNTIME_CMP})
    elseif(kernel MATCHES "_u32")
      set(per_load ${MAX_COMPARES_PER_LOAD_4B})
    endif()
    math(EXPR cmp_limit "${per_load} * ${best}")
    list(REMOVE_DUPLICATES best_bad)
    string(APPEND report "${kernel}: ${best} loads in flight (at least ${want}), ${best_cmp} compares "
                         "after them (at most ${cmp_limit}), in the batch: [${best_bad}]\n")
    if(best LESS want OR best_cmp GREATER cmp_limit OR NOT best_bad STREQUAL "")
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
    set(run_bad "")
    set(best 0)
    set(best_cmp 0)
    set(best_bad "")
    set(measuring FALSE)
    continue()
  endif()
  if(NOT line MATCHES "/\\*([0-9a-f]+)\\*/[ \t]+([^;]*);")
    continue()
  endif()
  set(address "0x${CMAKE_MATCH_1}")
  set(insn "${CMAKE_MATCH_2}")
  # An unconditional backward branch ends the comparison (what follows it
  # is not on the batch's path); a predicated one does not: the comparison
  # falls through it (the wait form's skip of a visit with nothing to look
  # at branches back to the loop head before the compares).
  set(backward FALSE)
  set(predicated FALSE)
  if(insn MATCHES "@")
    set(predicated TRUE)
  endif()
  if(NOT predicated AND insn MATCHES "[ \t]?BRA[ \t]+(0x[0-9a-f]+)")
    math(EXPR target "${CMAKE_MATCH_1}")
    math(EXPR here "${address}")
    if(target LESS_EQUAL here)
      set(backward TRUE)
    endif()
  endif()
  string(REGEX MATCH "(YIELD|CALL|WARPSYNC|CCTL|MEMBAR)" hazard "${insn}")
  if(insn MATCHES "(^|[ \t])LDG?\\.E[A-Z0-9.]*\\.STRONG\\.SYS[ \t]")
    close_region()
    math(EXPR run "${run} + 1")
    if(run GREATER best)
      set(best ${run})
      set(best_cmp 0)
      set(best_bad "")
    endif()
  elseif(insn MATCHES "(^|[ \t])(U?ISETP|BRA|EXIT|BSYNC)[ \t.]")
    if(run GREATER 0 AND run EQUAL best)
      # The longest run ended here: its comparison starts with this line.
      set(measuring TRUE)
      set(region_cmp 0)
      set(region_bad "${run_bad}")
    endif()
    set(run 0)
    set(run_bad "")
  elseif(run GREATER 0 AND NOT hazard STREQUAL "")
    list(APPEND run_bad ${hazard})
  endif()
  if(measuring)
    if(insn MATCHES "(^|[ \t])(LD|LDG|LDS)\\." OR insn MATCHES "(^|[ \t])(EXIT|BREV|FLO|POPC)" OR backward)
      close_region()
    else()
      if(insn MATCHES "(^|[ \t])U?ISETP[ \t.]")
        math(EXPR region_cmp "${region_cmp} + 1")
      endif()
      if(NOT hazard STREQUAL "")
        list(APPEND region_bad ${hazard})
      endif()
    endif()
  endif()
endforeach()
close_kernel()
foreach(k IN LISTS KERNELS)
  if(NOT report MATCHES "${k}")
    message(FATAL_ERROR "${OBJECT}: no SASS of the kernel ${k}")
  endif()
endforeach()
message("${report}")
if(failed)
  message(FATAL_ERROR "one-thread scans with fewer loads in flight than required, a comparison of more "
                      "than ${MAX_COMPARES_PER_LOAD} compares per load, or YIELD/CALL/WARPSYNC/CCTL/MEMBAR "
                      "in the batch: ${failed}")
endif()
