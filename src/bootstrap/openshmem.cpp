// The OpenSHMEM bootstrap module (GSHMEMX_INIT_WITH_SHMEM, GSHMEM_BOOTSTRAP=shmem),
// built into libgshmem.
//
// It runs over the OpenSHMEM library of the program itself: the program
// links one (Open MPI's liboshmem, say), calls shmem_init before gshmem's
// init and shmem_finalize after gshmem_finalize. libgshmem links no
// OpenSHMEM library: the routines are looked up in the process at run time
// (dlsym(RTLD_DEFAULT)), so they must be visible there, which they are when
// the program is linked with its OpenSHMEM library. Only OpenSHMEM 1.4
// routines are needed; shmem_query_initialized (1.5) is used where present.
//
// Collectives: barrier is shmem_barrier_all. allgather puts each PE's block
// into a symmetric buffer (shmem_malloc) on every PE, then shmem_quiet and
// shmem_barrier_all. The buffer is kept between calls and grown when a
// larger one is needed; every PE passes the same size to a collective, so
// every PE grows it in the same call (shmem_malloc and shmem_free are
// collective).
//
// Liveness: OpenSHMEM's barrier cannot be polled, so a peer lost while the
// PEs are inside one of this module's collectives is left to the OpenSHMEM
// launcher (which ends the job when one of its processes dies). The
// runtime's other liveness mechanisms still apply: the peer monitor, host
// calls that check for a lost peer before they start a collective, and
// device waits.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "../bootstrap.h"
#include "../bootstrap_loader.h"
#include "../liveness.h"
#include "../log.h"

namespace gshmemi {

namespace {

// The OpenSHMEM routines the module calls, as the program's library has them.
struct ShmemRoutines {
  int (*my_pe)(void) = nullptr;
  int (*n_pes)(void) = nullptr;
  void *(*allocate)(std::size_t) = nullptr;  // shmem_malloc
  void (*release)(void *) = nullptr;         // shmem_free
  void (*putmem)(void *, const void *, std::size_t, int) = nullptr;
  void (*quiet)(void) = nullptr;
  void (*barrier_all)(void) = nullptr;
  void (*global_exit)(int) = nullptr;
  void (*query_initialized)(int *) = nullptr;  // OpenSHMEM 1.5; null where missing
};

template <typename Fn>
void find_routine(const char *name, Fn *out, std::string *missing) {
  *out = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
  if (!*out && missing) *missing += std::string(missing->empty() ? "" : ", ") + name;
}

// Finds the routines in the process; GSHMEMX_ERROR_BOOTSTRAP (logged,
// naming what is missing) when the program has no OpenSHMEM library.
int find_routines(ShmemRoutines *r) {
  std::string missing;
  find_routine("shmem_my_pe", &r->my_pe, &missing);
  find_routine("shmem_n_pes", &r->n_pes, &missing);
  find_routine("shmem_malloc", &r->allocate, &missing);
  find_routine("shmem_free", &r->release, &missing);
  find_routine("shmem_putmem", &r->putmem, &missing);
  find_routine("shmem_quiet", &r->quiet, &missing);
  find_routine("shmem_barrier_all", &r->barrier_all, &missing);
  find_routine("shmem_global_exit", &r->global_exit, &missing);
  find_routine("shmem_query_initialized", &r->query_initialized, nullptr);
  if (missing.empty()) return GSHMEM_SUCCESS;
  return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP,
                       "the OpenSHMEM bootstrap (GSHMEMX_INIT_WITH_SHMEM / GSHMEM_BOOTSTRAP=shmem) cannot "
                       "find the OpenSHMEM routine(s) %s in this process: the program must link an "
                       "OpenSHMEM library (e.g. build it with oshcc / oshc++) and call shmem_init before "
                       "gshmem's init",
                       missing.c_str());
}

class OpenShmemBootstrap final : public Bootstrap {
 public:
  OpenShmemBootstrap(const ShmemRoutines &r, int rank, int size) : r_(r), rank_(rank), size_(size) {}
  ~OpenShmemBootstrap() override {
    // shmem_free is collective: every PE closes the module together (finalize,
    // or an init failure that all PEs agreed on), except after a peer was
    // lost, when the buffer stays until OpenSHMEM ends.
    if (buffer_ && job_lost_pe() < 0) r_.release(buffer_);
  }
  const char *name() const override { return "shmem"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  int allgather(const void *in, void *out, std::size_t bytes) override {
    if (bytes == 0) return GSHMEM_SUCCESS;
    const std::size_t n = static_cast<std::size_t>(size_);
    if (bytes > SIZE_MAX / n)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_INVALID_VALUE, "OpenSHMEM bootstrap: allgather of %zu bytes x %d PEs",
                           bytes, size_);
    const std::size_t total = bytes * n;
    if (total > capacity_) {
      // Same size on every PE, so all grow here together (collective calls).
      if (buffer_) r_.release(buffer_);
      buffer_ = nullptr;
      capacity_ = 0;
      const std::size_t want = total < kMinCapacity ? kMinCapacity : total;
      buffer_ = static_cast<unsigned char *>(r_.allocate(want));
      if (!buffer_)
        return GSHMEMI_ERROR(GSHMEMX_ERROR_OUT_OF_MEMORY,
                             "OpenSHMEM bootstrap: shmem_malloc(%zu) failed (the OpenSHMEM symmetric heap is "
                             "too small?)",
                             want);
      capacity_ = want;
    }
    // Every PE has copied out the previous collective's data (and has the
    // buffer) before anyone writes into it.
    r_.barrier_all();
    unsigned char *slot = buffer_ + static_cast<std::size_t>(rank_) * bytes;
    for (int k = 0; k < size_; ++k) {
      const int pe = (rank_ + k) % size_;  // start at a different PE on each
      r_.putmem(slot, in, bytes, pe);
    }
    r_.quiet();
    r_.barrier_all();  // every PE's block has arrived everywhere
    std::memcpy(out, buffer_, total);
    return GSHMEM_SUCCESS;
  }

  int barrier() override {
    r_.barrier_all();
    return GSHMEM_SUCCESS;
  }

  void abort(int code, const char *why) override {
    GSHMEMI_WARN("OpenSHMEM bootstrap: ending the job (shmem_global_exit(%d)): %s", code, why ? why : "");
    r_.global_exit(code);
    std::_Exit(code);  // shmem_global_exit does not return; this is for broken libraries
  }

 private:
  static constexpr std::size_t kMinCapacity = 4096;
  ShmemRoutines r_;
  int rank_, size_;
  unsigned char *buffer_ = nullptr;  // symmetric (shmem_malloc), capacity_ bytes
  std::size_t capacity_ = 0;
};

}  // namespace

int open_openshmem_bootstrap(std::unique_ptr<Bootstrap> *out) {
  ShmemRoutines r;
  GSHMEMI_CHECK(find_routines(&r));
  if (r.query_initialized) {
    int initialized = 0;
    r.query_initialized(&initialized);
    if (!initialized)
      return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP,
                           "the OpenSHMEM bootstrap needs OpenSHMEM initialized: call shmem_init before "
                           "gshmem's init (and shmem_finalize after gshmem_finalize)");
  }
  const int rank = r.my_pe(), size = r.n_pes();
  if (size < 1 || rank < 0 || rank >= size)
    return GSHMEMI_ERROR(GSHMEMX_ERROR_BOOTSTRAP,
                         "OpenSHMEM bootstrap: shmem_my_pe() returned %d and shmem_n_pes() %d; was "
                         "shmem_init called first?",
                         rank, size);
  *out = std::make_unique<OpenShmemBootstrap>(r, rank, size);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmemi
