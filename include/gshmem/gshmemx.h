// gshmem extensions (gshmemx_): init attributes, cooperative warp/block forms,
// host on-stream forms, extended atomics. Includes <gshmem/gshmem.h>.
#pragma once

#include <gshmem/gshmem.h>
#include <gshmem/sync_ext.h>
#include <gshmem/update_ext.h>
#include <gshmem/stream.h>
#include <gshmem/team_ext.h>
#include <gshmem/launch.h>
#include <gshmem/collectives_ext.h>
