// Where the proxy thread runs (src/cpu_affinity.h): CPU lists,
// GSHMEM_PROXY_CPUS and GSHMEM_PROXY_SHARED_SYNC, the choice of the proxy's
// CPUs from the masks a launch leaves, and the Linux queries on this
// machine. CPU only.
#include <thread>

#include <gshmem/runtime.h>

#include "catch.hpp"
#include "cpu_affinity.h"
#include "env.h"
#include "env_map.h"
#include "remote.h"

using namespace gshmemi;

namespace {

CpuList list(const std::string &text) {
  CpuList out;
  std::string why;
  REQUIRE(parse_cpulist(text, &out, &why));
  return out;
}

ProxyCpusSetting setting(const std::string &text) {
  ProxyCpusSetting s;
  std::string why;
  REQUIRE(parse_proxy_cpus(text, &s, &why) == GSHMEM_SUCCESS);
  return s;
}

}  // namespace

TEST_CASE("cpu lists: parse and format", "[affinity]") {
  CHECK(list("0-3,8,10-11") == CpuList{0, 1, 2, 3, 8, 10, 11});
  CHECK(list("5\n") == CpuList{5});
  CHECK(list(" 3 , 1-2 ,3") == CpuList{1, 2, 3});  // sorted, each once
  CHECK(list("").empty());
  CHECK(format_cpulist({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11");
  CHECK(format_cpulist({7}) == "7");
  CHECK(format_cpulist({}) == "");
  CHECK(format_cpulist({4, 2, 3, 2}) == "2-4");
  for (const char *bad : {"a", "1,,2", "3-1", "1-", "-2", "0x3", "2,", "1-2-3", "99999999"}) {
    CpuList out;
    std::string why;
    INFO(bad);
    CHECK_FALSE(parse_cpulist(bad, &out, &why));
    CHECK(why.find(bad) != std::string::npos);
  }
  CHECK(cpus_and({0, 1, 2, 5}, {1, 5, 6}) == CpuList{1, 5});
  CHECK(cpus_minus({0, 1, 2, 5}, {1, 5, 6}) == CpuList{0, 2});
  CHECK(cpus_union({0, 5}, {1, 5, 6}) == CpuList{0, 1, 5, 6});
}

TEST_CASE("cpu lists: the allgather's fixed form", "[affinity]") {
  unsigned char mask[kCpuMaskBytes];
  cpus_to_mask({0, 7, 8, 63, 1023, 1024, 5000}, mask);
  CHECK(cpus_from_mask(mask) == CpuList{0, 7, 8, 63, 1023});  // past the form's end: dropped
  cpus_to_mask({}, mask);
  CHECK(cpus_from_mask(mask).empty());
}

TEST_CASE("GSHMEM_PROXY_CPUS and GSHMEM_PROXY_SHARED_SYNC: parsing", "[affinity]") {
  CHECK(setting("auto").mode == ProxyCpusSetting::Mode::automatic);
  CHECK(setting("inherit").mode == ProxyCpusSetting::Mode::inherit);
  const ProxyCpusSetting l = setting("3,8-9");
  CHECK(l.mode == ProxyCpusSetting::Mode::list);
  CHECK(l.list == CpuList{3, 8, 9});
  for (const char *bad : {"", "none", "1-", "Auto"}) {
    ProxyCpusSetting s;
    std::string why;
    INFO(bad);
    CHECK(parse_proxy_cpus(bad, &s, &why) == GSHMEMX_ERROR_ENVIRONMENT);
    CHECK(why.find("GSHMEM_PROXY_CPUS='" + std::string(bad) + "'") != std::string::npos);
  }
  SharedSync sync = SharedSync::keep;
  std::string why;
  CHECK(parse_shared_sync("yield", &sync, &why) == GSHMEM_SUCCESS);
  CHECK(sync == SharedSync::yield);
  CHECK(parse_shared_sync("blocking", &sync, &why) == GSHMEM_SUCCESS);
  CHECK(sync == SharedSync::blocking);
  CHECK(parse_shared_sync("keep", &sync, &why) == GSHMEM_SUCCESS);
  CHECK(sync == SharedSync::keep);
  CHECK(parse_shared_sync("spin", &sync, &why) == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(why.find("GSHMEM_PROXY_SHARED_SYNC='spin'") != std::string::npos);
}

TEST_CASE("GSHMEM_PROXY_CPUS reaches the remote settings", "[affinity]") {
  std::map<std::string, std::string> vars{{"GSHMEM_PROXY_CPUS", "2-3"}, {"GSHMEM_PROXY_SHARED_SYNC", "blocking"}};
  Env env;
  std::string why;
  REQUIRE(parse_env(&gshmem_test::env_map_lookup, &vars, &env, &why) == GSHMEM_SUCCESS);
  RemoteSettings s;
  REQUIRE(parse_remote_settings(env, &s, &why) == GSHMEM_SUCCESS);
  CHECK(s.proxy_cpus.mode == ProxyCpusSetting::Mode::list);
  CHECK(s.proxy_cpus.list == CpuList{2, 3});
  CHECK(s.shared_sync == SharedSync::blocking);
  std::map<std::string, std::string> defaults;
  REQUIRE(parse_env(&gshmem_test::env_map_lookup, &defaults, &env, &why) == GSHMEM_SUCCESS);
  REQUIRE(parse_remote_settings(env, &s, &why) == GSHMEM_SUCCESS);
  CHECK(s.proxy_cpus.mode == ProxyCpusSetting::Mode::automatic);
  CHECK(s.shared_sync == SharedSync::yield);
  std::map<std::string, std::string> bad{{"GSHMEM_PROXY_CPUS", "x"}};
  REQUIRE(parse_env(&gshmem_test::env_map_lookup, &bad, &env, &why) == GSHMEM_SUCCESS);
  CHECK(parse_remote_settings(env, &s, &why) == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(why.find("GSHMEM_PROXY_CPUS='x'") != std::string::npos);
}

TEST_CASE("proxy placement: auto", "[affinity]") {
  const ProxyCpusSetting automatic = setting("auto");
  SECTION("mpirun's default binding: one core a rank, the proxy leaves for free GPU-local CPUs") {
    ProxyPlacementInput in{{0}, list("0-15"), list("0-7"), {{1}}};
    const ProxyPlacement p = choose_proxy_cpus(automatic, in);
    CHECK(p.set_mask);
    CHECK_FALSE(p.shared);
    CHECK(p.cpus == list("2-7"));
    CHECK(p.reason.find("local to the GPU") != std::string::npos);
  }
  SECTION("no free CPU local to the GPU: any free one") {
    ProxyPlacementInput in{{0}, list("0-15"), list("0-1"), {{1}}};
    const ProxyPlacement p = choose_proxy_cpus(automatic, in);
    CHECK(p.set_mask);
    CHECK(p.cpus == list("2-15"));
  }
  SECTION("the GPU's CPUs unknown") {
    ProxyPlacementInput in{{3}, list("0-3"), {}, {}};
    const ProxyPlacement p = choose_proxy_cpus(automatic, in);
    CHECK(p.set_mask);
    CHECK(p.cpus == list("0-2"));
  }
  SECTION("two CPUs a PE (--map-by slot:PE=2): the mask is kept") {
    ProxyPlacementInput in{{0, 1}, list("0-15"), list("0-15"), {{2, 3}}};
    const ProxyPlacement p = choose_proxy_cpus(automatic, in);
    CHECK_FALSE(p.set_mask);
    CHECK_FALSE(p.shared);
    CHECK(p.cpus == CpuList{0, 1});
  }
  SECTION("unbound on a large machine: the mask is kept") {
    ProxyPlacementInput in{list("0-15"), list("0-15"), {}, {list("0-15")}};
    const ProxyPlacement p = choose_proxy_cpus(automatic, in);
    CHECK_FALSE(p.set_mask);
    CHECK_FALSE(p.shared);
  }
  SECTION("taskset -c 0 around the launch: both PEs on one CPU, the proxies leave it") {
    ProxyPlacementInput in{{0}, list("0-15"), {}, {{0}}};
    const ProxyPlacement p = choose_proxy_cpus(automatic, in);
    CHECK(p.set_mask);
    CHECK(p.cpus == list("1-15"));
  }
  SECTION("two PEs sharing two CPUs: crowded (four threads)") {
    ProxyPlacementInput in{{0, 1}, list("0-3"), {}, {{0, 1}}};
    const ProxyPlacement p = choose_proxy_cpus(automatic, in);
    CHECK(p.set_mask);
    CHECK(p.cpus == list("2-3"));
  }
  SECTION("the cpuset allows nothing else: the proxy shares") {
    ProxyPlacementInput in{{4}, {4}, list("0-7"), {}};
    const ProxyPlacement p = choose_proxy_cpus(automatic, in);
    CHECK_FALSE(p.set_mask);
    CHECK(p.shared);
    CHECK(p.cpus == CpuList{4});
    const std::string w = shared_cpu_warning(p, in);
    CHECK(w.find("shares CPU 4 with the application thread") != std::string::npos);
    CHECK(w.find("--bind-to none") != std::string::npos);
    CHECK(w.find("PE=2") != std::string::npos);
    CHECK(w.find("--cpu-bind=none") != std::string::npos);
    CHECK(w.find("--cpus-per-task=2") != std::string::npos);
    CHECK(w.find("taskset") != std::string::npos);
    CHECK(w.find("GSHMEM_PROXY_CPUS") != std::string::npos);
  }
  SECTION("every allowed CPU is some PE's: the proxy shares, and the warning counts the PEs") {
    ProxyPlacementInput in{{0}, list("0-1"), {}, {{1}}};
    ProxyPlacement p = choose_proxy_cpus(automatic, in);
    CHECK(p.shared);
    ProxyPlacementInput both{{0, 1}, list("0-1"), {}, {{0, 1}}};
    p = choose_proxy_cpus(automatic, both);
    CHECK(p.shared);
    CHECK(shared_cpu_warning(p, both).find("2 PEs of this node") != std::string::npos);
  }
  SECTION("the application mask unknown: nothing is changed") {
    ProxyPlacementInput in{{}, list("0-3"), {}, {}};
    const ProxyPlacement p = choose_proxy_cpus(automatic, in);
    CHECK_FALSE(p.set_mask);
    CHECK_FALSE(p.shared);
  }
}

TEST_CASE("proxy placement: inherit and a list", "[affinity]") {
  ProxyPlacementInput one{{0}, list("0-15"), {}, {{1}}};
  ProxyPlacement p = choose_proxy_cpus(setting("inherit"), one);
  CHECK_FALSE(p.set_mask);
  CHECK(p.shared);  // as before: with the application thread on its one CPU
  CHECK(p.cpus == CpuList{0});
  p = choose_proxy_cpus(setting("12-13,40"), one);
  CHECK(p.set_mask);
  CHECK_FALSE(p.shared);
  CHECK(p.cpus == CpuList{12, 13});  // 40 may not be used
  p = choose_proxy_cpus(setting("0"), one);
  CHECK(p.set_mask);
  CHECK(p.shared);  // the user put it on the application's CPU
  int error = 0;
  std::string why;
  p = choose_proxy_cpus(setting("20-21"), one, &error, &why);
  CHECK(error == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(why.find("GSHMEM_PROXY_CPUS=20-21") != std::string::npos);
  CHECK(why.find("0-15") != std::string::npos);
}

TEST_CASE("affinity queries on this machine", "[affinity]") {
  const CpuList mine = current_thread_cpus();
  REQUIRE_FALSE(mine.empty());
  const CpuList allowed = process_allowed_cpus();
  REQUIRE_FALSE(allowed.empty());
  CHECK(cpus_minus(mine, allowed).empty());  // the mask lies within what may be used
  CHECK(current_thread_cpus() == mine);      // the probe left this thread alone
  // A thread of our own can be given one allowed CPU, and then has it.
  std::thread t([] { std::this_thread::sleep_for(std::chrono::milliseconds(50)); });
  CHECK(set_thread_cpus(t.native_handle(), {allowed.back()}) == 0);
  CpuList got;
  CHECK(thread_cpus(t.native_handle(), &got) == 0);
  CHECK(got == CpuList{allowed.back()});
  CHECK(set_thread_cpus(t.native_handle(), {}) != 0);
  t.join();
  CHECK(pci_local_cpus("0000:ZZ:00.0").empty());  // no such device
}
