// Heap introspection for tests and tools. Not in the public headers yet:
// a program declares it itself (or the runtime adds it to <gshmem/gshmemx.h>).
#pragma once

#include <gshmem/detail/config.h>
#include <stddef.h>

GSHMEM_BEGIN_EXTERN_C
/* Bytes of symmetric heap handed out to users on this PE (the runtime's
 * internal region not counted); 0 before init. No ordering implied. */
GSHMEM_API size_t gshmemx_heap_bytes_in_use(void);
GSHMEM_END_EXTERN_C
