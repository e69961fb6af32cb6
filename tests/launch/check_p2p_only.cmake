# What GSHMEM_DEVICE_REMOTE (include/gshmem/detail/config.h) does to a
# kernel: p2p_only_kernel.cu (p, signal and atomic ping-pongs) compiled with
# it 0 (OFF) and 1 (ON). With 0 the kernels hold no remote code: no
# NANOSLEEP (the remote branch's back-off; a failure report's 1 ms sleeps
# are not counted). With 1 the remote branch is there (NANOSLEEP). Either
# way no YIELD: ptxas puts one into every loop of a kernel, the poll
# included, when the kernel holds a loop it takes for a spin on a lock
# (docs/remote.md, "Cost on the P2P path"), and the remote
# branch is written to hold none; with it, one-way exchanges were 1.10-1.17
# of their floor instead of 1.00-1.01. Prints "SKIPPED:" without cuobjdump
# or nvdisasm. The objects are compiled for sm_90 only (tests/launch/
# CMakeLists.txt): ptxas decides on YIELD per architecture, and these counts
# were taken on sm_90.
#   cmake -DCUOBJDUMP=... -DOFF=<object> -DON=<object> -P check_p2p_only.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/sass_dump.cmake)

function(count_in object what out)
  gshmem_sass_dump("${object}" sass)
  if(sass STREQUAL "SKIPPED")
    set(${out} "skip" PARENT_SCOPE)
    return()
  endif()
  foreach(kernel p2p_only_pingpong p2p_only_signal_pingpong p2p_only_atomic_pingpong)
    if(NOT sass MATCHES "${kernel}")
      message(FATAL_ERROR "${object}: no SASS of the kernel ${kernel}")
    endif()
  endforeach()
  string(REGEX MATCHALL "[ \t]${what}[ \t;]" hits "${sass}")
  list(LENGTH hits n)
  if(what STREQUAL "NANOSLEEP")
    # Not remote code: a failure report that finds no free slot sleeps 1 ms
    # (0xf4240 ns) a few times before it traps (detail/device_report.h).
    string(REGEX MATCHALL "[ \t]NANOSLEEP[ \t]+0xf4240[ \t;]" report_sleeps "${sass}")
    list(LENGTH report_sleeps r)
    math(EXPR n "${n} - ${r}")
  endif()
  set(${out} ${n} PARENT_SCOPE)
endfunction()

count_in("${OFF}" NANOSLEEP off_sleep)
if(off_sleep STREQUAL "skip")
  return()
endif()
count_in("${OFF}" YIELD off_yield)
count_in("${ON}" NANOSLEEP on_sleep)
count_in("${ON}" YIELD on_yield)
message("GSHMEM_DEVICE_REMOTE=0: ${off_sleep} NANOSLEEP, ${off_yield} YIELD; "
        "GSHMEM_DEVICE_REMOTE=1: ${on_sleep} NANOSLEEP, ${on_yield} YIELD")
if(NOT off_sleep EQUAL 0 OR NOT off_yield EQUAL 0)
  message(FATAL_ERROR "with GSHMEM_DEVICE_REMOTE=0 the ping-pong kernels still hold remote code "
                      "(${off_sleep} NANOSLEEP, ${off_yield} YIELD; expected none)")
endif()
if(on_sleep EQUAL 0)
  message(FATAL_ERROR "with GSHMEM_DEVICE_REMOTE=1 the ping-pong kernels have no remote branch (no NANOSLEEP)")
endif()
if(NOT on_yield EQUAL 0)
  message(FATAL_ERROR "with GSHMEM_DEVICE_REMOTE=1 the ping-pong kernels hold ${on_yield} YIELD: their remote "
                      "branch has a loop that ptxas takes for a lock being spun on, and it slows the P2P poll "
                      "(expected none)")
endif()
