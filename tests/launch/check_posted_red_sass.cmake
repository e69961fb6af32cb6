# No-return adds to a peer are posted: in the SASS of
# posted_red_sass_kernel.cu (sm_90), per kernel posted_red_<routine>,
#  - at least one REDG.E.ADD.64.STRONG.SYS (red.global: a sync's or
#    barrier's announcement, a signal or counter add);
#  - no generic ATOM or RED (ATOM.E., RED.E.): a generic `red` compiles to an
#    ATOM whose predicate the thread waits for, a round trip to the peer on
#    every call (a one-thread sync of 2 H200s took 0.45 us longer);
#  - a sync ("_sync" in the name) holds MEMBAR.ALL.SYS (its release fence;
#    the kernels also hold the remote path, whose fences may be others); a
#    barrier ("_barrier") holds MEMBAR.SC.SYS (fence.sc.sys).
# Prints "SKIPPED:" without cuobjdump or nvdisasm.
#   cmake -DCUOBJDUMP=... -DOBJECT=<object> -DKERNELS=a,b -P check_posted_red_sass.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/sass_dump.cmake)
gshmem_sass_dump_or_return("${OBJECT}" sass)

# One entry per kernel: its name, then its instructions.
string(REPLACE ";" "," sass "${sass}")
string(REGEX REPLACE "\n[ \t]*Function : " ";FUNCTION " functions "${sass}")
string(REPLACE "," ";" expected "${KERNELS}")
set(failures "")
foreach(kernel IN LISTS expected)
  set(body "")
  foreach(f IN LISTS functions)
    if(f MATCHES "^FUNCTION [^\n]*${kernel}")
      set(body "${f}")
    endif()
  endforeach()
  if(body STREQUAL "")
    list(APPEND failures "${kernel}: not in the object")
    continue()
  endif()
  if(NOT body MATCHES "REDG\\.E\\.ADD\\.64\\.STRONG\\.SYS")
    list(APPEND failures "${kernel}: no REDG.E.ADD.64.STRONG.SYS (the add is not a posted global reduction)")
  endif()
  string(REGEX MATCH "[ \t](ATOM|RED)\\.E\\.[A-Z0-9.]*" generic "${body}")
  if(generic)
    list(APPEND failures "${kernel}: a generic atomic (${generic}): the thread waits for its predicate")
  endif()
  if(kernel MATCHES "_sync")
    if(NOT body MATCHES "MEMBAR\\.ALL\\.SYS")
      list(APPEND failures "${kernel}: no MEMBAR.ALL.SYS (a sync's release fence)")
    endif()
  elseif(kernel MATCHES "_barrier" AND NOT body MATCHES "MEMBAR\\.SC\\.SYS")
    list(APPEND failures "${kernel}: a barrier's fence should be MEMBAR.SC.SYS (fence.sc.sys)")
  endif()
  message(STATUS "${kernel}: checked")
endforeach()
if(failures)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "posted red SASS check failed:\n  ${text}")
endif()
message(STATUS "posted red SASS check: ${KERNELS} ok")
