// CPU, under mpirun's default binding (BINDING default: one core a rank for
// 2 ranks): the proxy placement the runtime makes at init (src/remote.cpp:
// every PE's application mask through the bootstrap, choose_proxy_cpus,
// set_thread_cpus on the proxy's thread), run here on a stand-in thread of
// each PE. Where the binding leaves free CPUs, the stand-in ends up on CPUs
// no PE of the node is bound to, and the application thread keeps its mask.
// Where the launch did not bind, or nothing else may be used (a machine of
// 2 CPUs, say), there is nothing to move: the test says so and is skipped
// (after checking that the placement reports a shared CPU in the latter).
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "bootstrap_loader.h"
#include "catch.hpp"
#include "cpu_affinity.h"

using namespace gshmemi;

TEST_CASE("proxy placement under the launch's CPU binding") {
  std::unique_ptr<Bootstrap> boot;
  REQUIRE(open_bootstrap_plugin("mpi", 0, nullptr, &boot) == GSHMEM_SUCCESS);
  const int n = boot->size(), me = boot->rank();

  const CpuList app = current_thread_cpus();
  REQUIRE_FALSE(app.empty());
  std::vector<unsigned char> masks((std::size_t)n * kCpuMaskBytes);
  {
    unsigned char mine[kCpuMaskBytes];
    cpus_to_mask(app, mine);
    REQUIRE(boot->allgather(mine, masks.data(), kCpuMaskBytes) == GSHMEM_SUCCESS);
  }
  constexpr std::size_t kName = 256;
  std::vector<char> hosts((std::size_t)n * kName, 0);
  {
    char mine[kName] = {0};
    gethostname(mine, kName - 1);
    REQUIRE(boot->allgather(mine, hosts.data(), kName) == GSHMEM_SUCCESS);
  }
  ProxyPlacementInput in;
  in.app = app;
  in.allowed = process_allowed_cpus();
  CpuList busy = app;
  for (int pe = 0; pe < n; ++pe) {
    if (pe == me || std::strncmp(&hosts[(std::size_t)pe * kName], &hosts[(std::size_t)me * kName], kName) != 0)
      continue;
    in.local_apps.push_back(cpus_from_mask(&masks[(std::size_t)pe * kCpuMaskBytes]));
    busy = cpus_union(busy, in.local_apps.back());
  }
  ProxyCpusSetting automatic;
  const ProxyPlacement p = choose_proxy_cpus(automatic, in);
  std::printf("PE %d: application thread on CPUs %s, the process may use %s; proxy: %s%s (%s)\n", me,
              format_cpulist(app).c_str(), format_cpulist(in.allowed).c_str(),
              p.set_mask ? "CPUs " : "the process mask ", format_cpulist(p.cpus).c_str(), p.reason.c_str());

  if (p.set_mask) {
    // The proxy's stand-in: a thread of this process, moved as init moves it.
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::thread proxy([&] {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return done; });
    });
    const int set = set_thread_cpus(proxy.native_handle(), p.cpus);
    CpuList got;
    const int read = thread_cpus(proxy.native_handle(), &got);
    {
      std::lock_guard<std::mutex> lock(m);
      done = true;
    }
    cv.notify_all();
    proxy.join();
    CHECK(set == 0);
    CHECK(read == 0);
    CHECK_FALSE(got.empty());
    CHECK(cpus_and(got, busy).empty());  // on no CPU a PE of this node is bound to
    CHECK(cpus_minus(got, in.allowed).empty());
    CHECK(current_thread_cpus() == app);  // the application thread was left alone
  } else if (p.shared) {
    CHECK(cpus_minus(in.allowed, busy).empty());  // nothing else could be used
    CHECK(shared_cpu_warning(p, in).find("--bind-to none") != std::string::npos);
    std::printf("proxy placement: skipped (PE %d may use only CPUs the PEs of this node are bound to, %s: "
                "the proxy shares; run on a machine with more CPUs than PEs)\n",
                me, format_cpulist(busy).c_str());
  } else {
    std::printf("proxy placement: skipped (PE %d's mask %s is not crowded: the launch did not bind it to "
                "fewer than 2 CPUs)\n", me, format_cpulist(app).c_str());
  }
  REQUIRE(boot->barrier() == GSHMEM_SUCCESS);
  boot.reset();
}
