// Remote peers in the runtime (docs/remote.md): which peers are remote, and,
// when any is, the proxy thread, its request queue in device-visible memory
// and the transport module it drives. A job whose peers are all P2P creates
// none of it.
#pragma once

#include <gshmem/detail/state.h>
#include <gshmem/runtime.h>

#include <string>
#include <vector>

#include "bootstrap.h"
#include "cpu_affinity.h"
#include "env.h"

namespace gshmemi {

enum class RemotePeersMode { automatic, all };

struct RemoteSettings {
  RemotePeersMode mode = RemotePeersMode::automatic;
  unsigned long long queue_capacity = 4096;  // requests; a power of two, at least 2
  double idle_spin_seconds = 0.001;          // Proxy::set_idle_spin
  unsigned long long batch = 1024;           // requests per proxy pass (one quiet each; puts coalesced within)
  ProxyCpusSetting proxy_cpus;               // GSHMEM_PROXY_CPUS
  SharedSync shared_sync = SharedSync::yield;  // GSHMEM_PROXY_SHARED_SYNC
  bool rma_messages = false;                 // GSHMEM_REMOTE_RMA=messages
};

// GSHMEM_REMOTE_PEERS, GSHMEM_REMOTE_RMA, GSHMEM_PROXY_QUEUE_CAPACITY, GSHMEM_PROXY_IDLE_SPIN,
// GSHMEM_PROXY_BATCH, GSHMEM_PROXY_CPUS and GSHMEM_PROXY_SHARED_SYNC from the parsed
// environment. Pure. GSHMEM_SUCCESS, or GSHMEMX_ERROR_ENVIRONMENT and *why
// naming the variable and the value.
GSHMEM_API int parse_remote_settings(const Env &env, RemoteSettings *out, std::string *why);

// The remote map of PE `me` among n PEs: remote[pe] = 1 where the pair
// (me, pe) is remote. wants_all[pe]: PE pe asked for GSHMEM_REMOTE_PEERS=all
// (then every pair with it is remote); maps[a * n + b]: PE a's heap maps PE
// b's (a pair is P2P only when both map each other). An empty maps means
// "every pair maps" (the decision before the heap exists). Pure, symmetric.
GSHMEM_API std::vector<unsigned char> classify_peers(int me, int n, const std::vector<unsigned char> &wants_all,
                                                     const std::vector<unsigned char> &maps);
// Whether any pair of the job is remote (the same answer on every PE).
GSHMEM_API bool job_has_remote_pair(int n, const std::vector<unsigned char> &wants_all,
                                    const std::vector<unsigned char> &maps);

// Opens the transport, creates the queue and starts the proxy when remote
// has a 1 on any PE (job_has_remote: the transport's open is collective, so a
// PE without remote peers of its own takes part too); fills state->proxy.
// node_of_pe: the node index of every PE (the proxy's CPUs are chosen
// among those the PEs of this node are not bound to; docs/remote.md).
// abort_word: the host side of state->peer_lost_word (the runtime allocates
// it when there is a liveness monitor or a remote pair), which the proxy
// raises on a transport failure. Collective (every PE calls it, with the
// same answer to "any remote?").
int remote_init(Bootstrap &boot, const RemoteSettings &settings, int device, const std::vector<unsigned char> &remote,
                bool job_has_remote, const std::vector<int> &node_of_pe, int *abort_word,
                gshmemi_device_state_t *state);
// Whether remote_init created the proxy.
bool remote_active();
// Host quiet's remote half: waits until the proxy carried out every request
// kernels queued so far. GSHMEM_SUCCESS, or GSHMEMX_ERROR_PEER_LOST.
int remote_host_quiet(const char *routine);
// gshmemx_remote_stats: this PE's proxy and target-side figures (zeros, and
// active 0, without a proxy).
int remote_stats(gshmemx_remote_stats_t *out);
// Stops the proxy and closes the transport (collectively when `collective`).
void remote_finalize(bool collective);

}  // namespace gshmemi
