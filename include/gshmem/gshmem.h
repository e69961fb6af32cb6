// gshmem: OpenSHMEM-style point-to-point synchronization across the GPUs of a job.
//
// The C-style API. Host routines are implemented by libgshmem; device routines
// are inline in these headers, so a kernel in any .cu file (no -rdc needed)
// can call them. C++ templates underneath live in <gshmem/gshmem.hpp>.
#pragma once

#include <gshmem/version.h>
#include <gshmem/detail/config.h>
#include <gshmem/types.h>
#include <gshmem/runtime.h>
#include <gshmem/sync.h>
#include <gshmem/update.h>
#include <gshmem/team.h>
#include <gshmem/collectives.h>
