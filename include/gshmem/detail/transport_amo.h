/* The atomic operations of remote requests: the sub_op of a proxy_op_amo
 * request that a kernel queues (detail/proxy_queue.h, detail/remote.h) and
 * the `op` the proxy hands to a transport module's amo entry
 * (src/transport/transport_plugin.h), one list for both. C and C++. */
#pragma once

#define GSHMEMI_TRANSPORT_AMO_ADD   0
#define GSHMEMI_TRANSPORT_AMO_AND   1
#define GSHMEMI_TRANSPORT_AMO_OR    2
#define GSHMEMI_TRANSPORT_AMO_XOR   3
#define GSHMEMI_TRANSPORT_AMO_SWAP  4
#define GSHMEMI_TRANSPORT_AMO_CSWAP 5 /* store operand where the old value equals compare */
#define GSHMEMI_TRANSPORT_AMO_FETCH 6 /* read only */
#define GSHMEMI_TRANSPORT_AMO_COUNT 7
