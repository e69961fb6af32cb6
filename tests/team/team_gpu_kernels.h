// Host-callable launchers of the GPU tests of the device barrier forms,
// teams, collective launch and the small collectives. The kernels live in
// ordinary .cu files compiled without -rdc (one per family); the Catch2
// checks are in test_team_gpu.cpp, compiled by the host compiler only (see
// tests/update/update_gpu_kernels.h for why). Every launcher returns the
// launch status and does not synchronize.
#pragma once

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace team_gpu {

// Which barrier forms a litmus round uses.
enum barrier_form { form_thread = 0, form_warp = 1, form_block = 2, form_mixed = 3 };

// Barrier litmus (team_gpu_barrier.cu), one block of `threads` threads per PE.
// Round r (1..rounds): the calling group (one thread, warp 0, or the whole
// block) stores r into slot [me] of buffer r % 2 on every PE (relaxed
// stores), passes a device barrier (with_quiet: barrier_all, else sync_all)
// in the given form, then every thread checks that every slot of its local
// buffer r % 2 holds exactly r. form_mixed: PE p uses form (r + p) % 3 in
// round r, so PEs pass the same barrier with different forms. `slots` is
// symmetric, 2 * n_pes elements, zeroed. Mismatches go to *violations.
cudaError_t launch_barrier_litmus(uint64_t *slots, long rounds, barrier_form form, bool with_quiet, int threads,
                                  unsigned long long *violations);

}  // namespace team_gpu
