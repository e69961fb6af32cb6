// The type table: the single source of every TYPENAME/TYPE list in gshmem.
//
// Each list is an X-macro: GSHMEM_FOR_EACH_<LIST>(X) expands X(TYPENAME, TYPE)
// once per entry. Every generated routine name, host declaration, template
// instantiation and test type list is produced from these; never write a
// parallel list by hand.
#pragma once

#include <stddef.h>
#include <stdint.h>

// __half and __nv_bfloat16 (host and device), two of the RMA types.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// Point-to-point synchronization types (OpenSHMEM 1.5 Table 11): wait/test
// families and their on-stream forms.
#define GSHMEM_FOR_EACH_SYNC_TYPE(X)   \
  X(short, short)                      \
  X(int, int)                          \
  X(long, long)                        \
  X(longlong, long long)               \
  X(ushort, unsigned short)            \
  X(uint, unsigned int)                \
  X(ulong, unsigned long)              \
  X(ulonglong, unsigned long long)     \
  X(int32, int32_t)                    \
  X(int64, int64_t)                    \
  X(uint32, uint32_t)                  \
  X(uint64, uint64_t)                  \
  X(size, size_t)                      \
  X(ptrdiff, ptrdiff_t)

// Standard RMA types (OpenSHMEM 1.5 Table 5): p/g/put/get and put_signal.
#define GSHMEM_FOR_EACH_RMA_TYPE(X)        \
  GSHMEMI_FOR_EACH_RMA_TYPE_BUT_PTRDIFF(X) \
  X(ptrdiff, ptrdiff_t)
// The standard RMA types but ptrdiff (the table above, less its last
// entry). Used alone where ptrdiff has no form: NVSHMEM has no ptrdiff
// reductions, so the NVSHMEM compatibility headers generate their reduction
// names from this list.
// half (__half) and bfloat16 (__nv_bfloat16) are NVSHMEM's 16-bit floating
// types, not OpenSHMEM's: RMA, broadcast / alltoall / fcollect and the
// sum / prod / max / min reductions and reducescatters, which add up in
// float (gshmem::detail::reduce_acc) and round once at the end. No atomics
// (NVSHMEM has none for them either).
#define GSHMEMI_FOR_EACH_RMA_TYPE_BUT_PTRDIFF(X) \
  X(half, __half)                      \
  X(bfloat16, __nv_bfloat16)           \
  X(float, float)                      \
  X(double, double)                    \
  X(char, char)                        \
  X(schar, signed char)                \
  X(short, short)                      \
  X(int, int)                          \
  X(long, long)                        \
  X(longlong, long long)               \
  GSHMEMI_FOR_EACH_UNSIGNED_OR_FIXED_TYPE(X)
// The unsigned and fixed-width integer types and size_t: the rest of the
// standard RMA types, and by themselves the bitwise reduction types.
#define GSHMEMI_FOR_EACH_UNSIGNED_OR_FIXED_TYPE(X) \
  X(uchar, unsigned char)                          \
  X(ushort, unsigned short)                        \
  X(uint, unsigned int)                            \
  X(ulong, unsigned long)                          \
  X(ulonglong, unsigned long long)                 \
  X(int8, int8_t)                                  \
  X(int16, int16_t)                                \
  X(int32, int32_t)                                \
  X(int64, int64_t)                                \
  X(uint8, uint8_t)                                \
  X(uint16, uint16_t)                              \
  X(uint32, uint32_t)                              \
  X(uint64, uint64_t)                              \
  X(size, size_t)

// Sizes of the sized RMA routines (OpenSHMEM 1.5: shmem_putSIZE,
// shmem_getSIZE, shmem_iputSIZE, shmem_igetSIZE): X(SIZE, BYTES), SIZE in
// bits (the name's suffix), BYTES the element's size (nelems counts
// elements of BYTES bytes).
#define GSHMEM_FOR_EACH_RMA_SIZE(X)      \
  GSHMEMI_FOR_EACH_RMA_SIZE_BUT_16(X)    \
  X(16, 2)
// The sizes but 16: NVSHMEM 3.5.1 declares its warp and block forms of
// putSIZE_signal for 8, 32, 64, 128 (and "6" instead of 16), so the NVSHMEM
// compatibility headers generate those names from this list.
#define GSHMEMI_FOR_EACH_RMA_SIZE_BUT_16(X) \
  X(8, 1)                                  \
  X(32, 4)                                 \
  X(64, 8)                                 \
  X(128, 16)

// Standard AMO types (OpenSHMEM 1.5 Table 6): fetch, set, swap, compare_swap,
// inc, add and their fetching forms; also the gshmemx_ sub/max/min extensions.
#define GSHMEM_FOR_EACH_AMO_TYPE(X)    \
  X(int, int)                          \
  X(long, long)                        \
  X(longlong, long long)               \
  X(uint, unsigned int)                \
  X(ulong, unsigned long)              \
  X(ulonglong, unsigned long long)     \
  X(int32, int32_t)                    \
  X(int64, int64_t)                    \
  X(uint32, uint32_t)                  \
  X(uint64, uint64_t)                  \
  X(size, size_t)                      \
  X(ptrdiff, ptrdiff_t)

// Extended AMO types (OpenSHMEM 1.5 Table 7): fetch, set, swap, compare_swap
// only; gshmemx_ adds max/min/nanmax/nanmin for these.
#define GSHMEM_FOR_EACH_AMO_FLOAT_TYPE(X) \
  X(float, float)                         \
  X(double, double)

// Bitwise AMO types (OpenSHMEM 1.5 Table 8): and, or, xor and fetching forms.
#define GSHMEM_FOR_EACH_AMO_BITWISE_TYPE(X) \
  X(uint, unsigned int)                     \
  X(ulong, unsigned long)                   \
  X(ulonglong, unsigned long long)          \
  X(int32, int32_t)                         \
  X(int64, int64_t)                         \
  X(uint32, uint32_t)                       \
  X(uint64, uint64_t)

// Reduction types (OpenSHMEM 1.5 Table 10, for max, min, sum and prod; long
// double and the complex types are not offered): exactly the standard RMA
// types, so the list is the RMA table itself. fcollect uses the RMA table.
#define GSHMEM_FOR_EACH_REDUCE_TYPE(X) GSHMEM_FOR_EACH_RMA_TYPE(X)

// Reduction operators of the small collectives, for one type: expands
// X(TYPENAME, TYPE, OP) per operator, for gshmem_TYPENAME_OP_reduce (the
// functors are gshmem::detail::reduce_OP in detail/team_collectives.h).
#define GSHMEM_FOR_EACH_REDUCE_OP(X, TYPENAME, TYPE) \
  X(TYPENAME, TYPE, sum) X(TYPENAME, TYPE, prod) X(TYPENAME, TYPE, max) X(TYPENAME, TYPE, min)

// Bitwise reduction types (OpenSHMEM 1.5 Table 10, for and, or and xor): the
// unsigned and fixed-width integer types and size_t. NVSHMEM 3.5.1 has its
// and/or/xor reductions (and reducescatters) for exactly these.
#define GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE(X) GSHMEMI_FOR_EACH_UNSIGNED_OR_FIXED_TYPE(X)

// Bitwise reduction operators, for one type of the list above: expands
// X(TYPENAME, TYPE, OP) for and, or, xor (functors gshmem::detail::reduce_OP).
// Every reduction routine (gshmem_TYPENAME_OP_reduce and
// gshmem_TYPENAME_OP_reducescatter, all forms) exists for
// GSHMEM_FOR_EACH_REDUCE_OP over GSHMEM_FOR_EACH_REDUCE_TYPE and for this
// list over GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE.
#define GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(X, TYPENAME, TYPE) \
  X(TYPENAME, TYPE, and) X(TYPENAME, TYPE, or) X(TYPENAME, TYPE, xor)

// Every reduction routine beside the arithmetic reduce (which the small
// collectives spell out with GSHMEM_FOR_EACH_REDUCE_OP): and/or/xor reduce
// and reducescatter over GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE, and
// sum/prod/max/min reducescatter over GSHMEM_FOR_EACH_REDUCE_TYPE. Expands
// GSHMEMI_REDUCTION_X(TYPENAME, TYPE, OP, KIND), KIND reduce or
// reducescatter, which the user defines before and #undefs after:
//   #define GSHMEMI_REDUCTION_X(NAME, TYPE, OP, KIND) ...
//   GSHMEMI_FOR_EACH_BITWISE_REDUCTION_AND_REDUCESCATTER
//   #undef GSHMEMI_REDUCTION_X
// (one list of which routines exist, for declarations, definitions,
// kernels and host entries alike).
#define GSHMEMI_REDUCTION_X_REDUCE(NAME, TYPE, OP) GSHMEMI_REDUCTION_X(NAME, TYPE, OP, reduce)
#define GSHMEMI_REDUCTION_X_REDUCESCATTER(NAME, TYPE, OP) GSHMEMI_REDUCTION_X(NAME, TYPE, OP, reducescatter)
#define GSHMEMI_REDUCTION_X_BITWISE(NAME, TYPE)                                \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_REDUCTION_X_REDUCE, NAME, TYPE)    \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_OP(GSHMEMI_REDUCTION_X_REDUCESCATTER, NAME, TYPE)
#define GSHMEMI_REDUCTION_X_ARITHMETIC(NAME, TYPE) \
  GSHMEM_FOR_EACH_REDUCE_OP(GSHMEMI_REDUCTION_X_REDUCESCATTER, NAME, TYPE)
#define GSHMEMI_FOR_EACH_BITWISE_REDUCTION_AND_REDUCESCATTER          \
  GSHMEM_FOR_EACH_REDUCE_BITWISE_TYPE(GSHMEMI_REDUCTION_X_BITWISE) \
  GSHMEM_FOR_EACH_REDUCE_TYPE(GSHMEMI_REDUCTION_X_ARITHMETIC)

// Comparison operators for wait/test. OpenSHMEM asks only for distinct
// integer constants; these are the values of NVSHMEM (nvshmemx_cmp_type_t)
// and of Open MPI's OpenSHMEM, so that code passing the numbers themselves
// (language bindings that hard-code them) means the same comparison here.
// Contiguous: GSHMEMI_CMP_FIRST .. GSHMEMI_CMP_LAST are the valid values.
#define GSHMEM_CMP_EQ 0
#define GSHMEM_CMP_NE 1
#define GSHMEM_CMP_GT 2
#define GSHMEM_CMP_LE 3
#define GSHMEM_CMP_LT 4
#define GSHMEM_CMP_GE 5
#define GSHMEMI_CMP_FIRST 0
#define GSHMEMI_CMP_LAST 5

// Signal operators for signal_op / put_signal (NVSHMEM's values,
// nvshmemx_signal_op_t, for the same reason).
#define GSHMEM_SIGNAL_SET 9
#define GSHMEM_SIGNAL_ADD 10
