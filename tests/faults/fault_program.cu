// One PE of a fault-matrix job (driven by run_faults.py): PE `victim` dies
// with SIGKILL in `phase`; every other PE must notice, report the lost PE
// and exit non-zero instead of hanging.
//
//   fault_program <bootstrap> <phase> <victim> <id-file> <tag>
//     bootstrap  mpi       gshmem_init under mpirun
//                uniqueid  no launcher: FAULT_RANK / FAULT_SIZE from the
//                          environment, an ncclUniqueId passed through <id-file>
//                ncclcomm  the same, but the program builds the NCCL
//                          communicator and passes it (GSHMEMX_INIT_WITH_NCCL_COMM)
//                socket    no launcher, a gshmem unique id (gshmemx_get_uniqueid,
//                          the socket bootstrap; made by rank 0) through <id-file>
//     phase      init, malloc, barrier, finalize (GSHMEM_FAULT_INJECT, set by
//                the driver, kills the victim inside that gshmem call);
//                device_wait (peers wait in a kernel for a signal the victim
//                never sends), stream_wait (in a stream memory-operation
//                wait), stream_wait_all (in the on-stream _all kernel),
//                remote_queue (every peer remote, GSHMEM_REMOTE_PEERS=all set
//                by the driver: the peers queue puts to the victim, with a
//                quiet after every 256, while the victim dies)
//     tag        ignored; lets the driver find leftover processes
//
// Output lines the driver reads (CLOCK_REALTIME in ms, one host):
//   FAULT-DIES pe=<victim> t=<ms>                 (this program's own kills)
//   FAULT-REPORT pe=<me> code=<c> t=<ms> what=<text>  (a survivor noticed)
// The runtime's GSHMEM_FAULT_INJECT line carries its own t=<ms>.
#include <cuda_runtime.h>
#include <gshmem/gshmem.h>
#include <gshmem/gshmemx.h>
#include <nccl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

long long now_ms() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int g_pe = -1;

// A survivor reports what ended its wait, releases gshmem (which must not
// hang either) and exits non-zero.
[[noreturn]] void report_and_exit(int code, const char *what) {
  std::printf("FAULT-REPORT pe=%d code=%d t=%lld what=%s\n", g_pe, code, now_ms(), what);
  std::fflush(stdout);
  if (gshmemx_initialized()) gshmem_finalize();
  std::printf("FAULT-EXIT pe=%d t=%lld\n", g_pe, now_ms());
  std::fflush(stdout);
  std::exit(3);
}

[[noreturn]] void die(int pe) {
  std::printf("FAULT-DIES pe=%d t=%lld\n", pe, now_ms());
  std::fflush(stdout);
  raise(SIGKILL);
  std::abort();
}

__global__ void wait_for_signal(uint64_t *flag) { gshmem_uint64_wait_until(flag, GSHMEM_CMP_GE, 1); }

// Puts to a remote victim from every thread, with a quiet after every 256,
// until the job ends: when the victim dies, requests are queued and the
// next quiet waits for completions that never come. That wait must end
// with the lost-peer diagnostic (a trap), not hang.
__global__ void flood_remote(uint64_t *area, int victim) {
  for (unsigned long long i = 1;; ++i) {
    gshmem_uint64_p(area + threadIdx.x % 128, i, victim);
    if (i % 256 == 0) gshmem_quiet();
  }
}

// The id file: written by rank 0 (to a temporary name, then renamed, so a
// reader never sees half of it), read by the others. `make` fills the id.
template <typename Id, typename Make>
bool exchange_id(int rank, const char *path, Id *id, Make make) {
  if (rank == 0) {
    if (!make(id)) return false;
    const std::string tmp = std::string(path) + ".tmp";
    std::ofstream(tmp, std::ios::binary).write(reinterpret_cast<const char *>(id), sizeof *id);
    return std::rename(tmp.c_str(), path) == 0;
  }
  for (int tries = 0; tries < 3000; ++tries) {  // 30 s
    std::ifstream in(path, std::ios::binary);
    if (in && in.read(reinterpret_cast<char *>(id), sizeof *id)) return true;
    usleep(10000);
  }
  return false;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s <mpi|uniqueid|ncclcomm|socket> <phase> <victim> <id-file> <tag>\n", argv[0]);
    return 2;
  }
  const std::string boot = argv[1], phase = argv[2];
  const int victim = std::atoi(argv[3]);
  const char *id_file = argv[4];

  int rc;
  if (boot == "mpi") {
    // The PE number before init can tell it (a failed init never does).
    const char *rank = std::getenv("OMPI_COMM_WORLD_RANK") ? std::getenv("OMPI_COMM_WORLD_RANK") : std::getenv("PMI_RANK");
    g_pe = rank ? std::atoi(rank) : -1;
    rc = gshmem_init();
  } else {
    const int rank = std::atoi(std::getenv("FAULT_RANK") ? std::getenv("FAULT_RANK") : "0");
    const int size = std::atoi(std::getenv("FAULT_SIZE") ? std::getenv("FAULT_SIZE") : "1");
    int count = 0;
    cudaGetDeviceCount(&count);
    if (count > 0) cudaSetDevice(rank % count);
    gshmemx_init_attr_t attr{};
    ncclUniqueId id;
    gshmemx_uniqueid_t gshmem_id = GSHMEMX_UNIQUEID_INITIALIZER;
    const bool have_id =
        boot == "socket"
            ? exchange_id(rank, id_file, &gshmem_id, [](gshmemx_uniqueid_t *i) { return gshmemx_get_uniqueid(i) == 0; })
            : exchange_id(rank, id_file, &id, [](ncclUniqueId *i) { return ncclGetUniqueId(i) == ncclSuccess; });
    if (!have_id) {
      std::fprintf(stderr, "rank %d: no unique id in %s\n", rank, id_file);
      return 2;
    }
    if (boot == "socket") {
      if (gshmemx_set_attr_uniqueid_args(rank, size, &gshmem_id, &attr) != 0) return 2;
      rc = gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr);
    } else if (boot == "uniqueid") {
      attr.nccl_unique_id = &id;
      attr.rank = rank;
      attr.nranks = size;
      rc = gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr);
    } else {
      ncclComm_t comm;
      if (ncclCommInitRank(&comm, size, id, rank) != ncclSuccess) return 2;
      attr.nccl_comm = comm;
      rc = gshmemx_init_attr(GSHMEMX_INIT_WITH_NCCL_COMM, &attr);
    }
    g_pe = rank;
  }
  if (rc != GSHMEM_SUCCESS) report_and_exit(rc, "gshmem_init failed");
  g_pe = gshmem_my_pe();

  uint64_t *flag = static_cast<uint64_t *>(gshmem_calloc(128, sizeof(uint64_t)));
  if (!flag) report_and_exit(gshmemx_get_last_error(), "gshmem_calloc failed");
  gshmem_barrier_all();
  if (gshmemx_get_last_error() != GSHMEM_SUCCESS) report_and_exit(gshmemx_get_last_error(), "first barrier failed");

  if (phase == "malloc") {
    void *p = gshmem_malloc(1 << 20);
    if (!p) report_and_exit(gshmemx_get_last_error(), "gshmem_malloc failed");
  } else if (phase == "barrier") {
    gshmem_barrier_all();
    if (gshmemx_get_last_error() != GSHMEM_SUCCESS) report_and_exit(gshmemx_get_last_error(), "gshmem_barrier_all failed");
  } else if (phase == "remote_queue") {
    const int other = g_pe == victim ? (victim + 1) % gshmem_n_pes() : victim;
    if (gshmem_ptr(flag, other) != nullptr) {
      std::printf("FAULT-UNEXPECTED pe=%d: PE %d is not remote (GSHMEM_REMOTE_PEERS=all not in effect)\n", g_pe, other);
      return 4;
    }
    if (g_pe == victim) {
      usleep(500000);  // the peers' requests are queued by now
      die(g_pe);
    }
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    flood_remote<<<4, 128, 0, stream>>>(flag, victim);
    const cudaError_t err = cudaStreamSynchronize(stream);
    char what[200];
    std::snprintf(what, sizeof what, "remote puts and quiet ended: %s", cudaGetErrorString(err));
    if (err != cudaSuccess) report_and_exit(GSHMEMX_ERROR_PEER_LOST, what);
    std::printf("FAULT-UNEXPECTED pe=%d: the flood of puts ended normally\n", g_pe);
    return 4;
  } else if (phase == "device_wait" || phase == "stream_wait" || phase == "stream_wait_all") {
    if (g_pe == victim) {
      usleep(500000);  // the peers are waiting by now
      die(g_pe);
    }
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (phase == "device_wait") wait_for_signal<<<1, 1, 0, stream>>>(flag);
    else if (phase == "stream_wait") gshmemx_uint64_wait_until_on_stream(flag, GSHMEM_CMP_GE, 1, stream);
    else gshmemx_uint64_wait_until_all_on_stream(flag, 128, nullptr, GSHMEM_CMP_GE, 1, stream);
    const cudaError_t err = cudaStreamSynchronize(stream);
    char what[200];
    std::snprintf(what, sizeof what, "%s ended: %s", phase.c_str(), cudaGetErrorString(err));
    if (err != cudaSuccess) report_and_exit(GSHMEMX_ERROR_PEER_LOST, what);
    std::printf("FAULT-UNEXPECTED pe=%d: the wait returned normally\n", g_pe);
    return 4;
  }
  gshmem_free(flag);
  gshmem_finalize();
  if (gshmemx_get_last_error() != GSHMEM_SUCCESS) {
    std::printf("FAULT-REPORT pe=%d code=%d t=%lld what=gshmem_finalize failed\n", g_pe, gshmemx_get_last_error(),
                now_ms());
    std::fflush(stdout);
    return 3;
  }
  std::printf("FAULT-CLEAN pe=%d\n", g_pe);
  return 0;
}
