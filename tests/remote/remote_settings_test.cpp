// GSHMEM_REMOTE_PEERS, GSHMEM_REMOTE_RMA, GSHMEM_PROXY_QUEUE_CAPACITY, GSHMEM_PROXY_IDLE_SPIN and GSHMEM_PROXY_BATCH:
// parsing, and which
// pairs of PEs are remote (src/remote.h). CPU only.
#include <map>
#include <string>
#include <vector>

#include "catch.hpp"
#include "env.h"
#include "env_map.h"
#include "remote.h"

using namespace gshmemi;

namespace {

int parse(std::map<std::string, std::string> vars, RemoteSettings *out, std::string *why) {
  Env env;
  std::string message;
  const int rc = parse_env(&gshmem_test::env_map_lookup, &vars, &env, &message);
  if (rc != GSHMEM_SUCCESS) {
    *why = message;
    return rc;
  }
  return parse_remote_settings(env, out, why);
}
}  // namespace

TEST_CASE("remote settings: defaults, auto, all") {
  RemoteSettings s;
  std::string why;
  REQUIRE(parse({}, &s, &why) == GSHMEM_SUCCESS);
  CHECK(s.mode == RemotePeersMode::automatic);
  CHECK(s.queue_capacity == 4096);
  CHECK(s.idle_spin_seconds == 0.001);
  CHECK(s.batch == 1024);
  CHECK_FALSE(s.rma_messages);
  REQUIRE(parse({{"GSHMEM_REMOTE_RMA", "messages"}}, &s, &why) == GSHMEM_SUCCESS);
  CHECK(s.rma_messages);
  REQUIRE(parse({{"GSHMEM_REMOTE_RMA", "auto"}}, &s, &why) == GSHMEM_SUCCESS);
  CHECK_FALSE(s.rma_messages);
  REQUIRE(parse({{"GSHMEM_REMOTE_PEERS", "all"}, {"GSHMEM_PROXY_QUEUE_CAPACITY", "64"}, {"GSHMEM_PROXY_IDLE_SPIN", "0.25"}},
                &s, &why) == GSHMEM_SUCCESS);
  CHECK(s.mode == RemotePeersMode::all);
  CHECK(s.queue_capacity == 64);
  CHECK(s.idle_spin_seconds == 0.25);
  REQUIRE(parse({{"GSHMEM_REMOTE_PEERS", "auto"}, {"GSHMEM_PROXY_QUEUE_CAPACITY", "1K"}}, &s, &why) == GSHMEM_SUCCESS);
  CHECK(s.mode == RemotePeersMode::automatic);
  CHECK(s.queue_capacity == 1024);
  REQUIRE(parse({{"GSHMEM_PROXY_BATCH", "4K"}}, &s, &why) == GSHMEM_SUCCESS);
  CHECK(s.batch == 4096);
  REQUIRE(parse({{"GSHMEM_PROXY_BATCH", "1"}}, &s, &why) == GSHMEM_SUCCESS);
  CHECK(s.batch == 1);
}

TEST_CASE("remote settings: bad values name the variable") {
  RemoteSettings s;
  std::string why;
  CHECK(parse({{"GSHMEM_REMOTE_PEERS", "some"}}, &s, &why) == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(why.find("GSHMEM_REMOTE_PEERS") != std::string::npos);
  CHECK(why.find("some") != std::string::npos);
  why.clear();
  CHECK(parse({{"GSHMEM_REMOTE_RMA", "rdma"}}, &s, &why) == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(why.find("GSHMEM_REMOTE_RMA") != std::string::npos);
  CHECK(why.find("rdma") != std::string::npos);
  for (const char *bad : {"0", "1", "3", "100", "32M"}) {
    why.clear();
    INFO(bad);
    CHECK(parse({{"GSHMEM_PROXY_QUEUE_CAPACITY", bad}}, &s, &why) == GSHMEMX_ERROR_ENVIRONMENT);
    CHECK(why.find("GSHMEM_PROXY_QUEUE_CAPACITY") != std::string::npos);
  }
  CHECK(parse({{"GSHMEM_PROXY_QUEUE_CAPACITY", "ten"}}, &s, &why) == GSHMEMX_ERROR_ENVIRONMENT);
  for (const char *bad : {"-1", "soon"}) {
    why.clear();
    INFO(bad);
    CHECK(parse({{"GSHMEM_PROXY_IDLE_SPIN", bad}}, &s, &why) == GSHMEMX_ERROR_ENVIRONMENT);
    CHECK(why.find("GSHMEM_PROXY_IDLE_SPIN") != std::string::npos);
  }
  for (const char *bad : {"0", "32M"}) {
    why.clear();
    INFO(bad);
    CHECK(parse({{"GSHMEM_PROXY_BATCH", bad}}, &s, &why) == GSHMEMX_ERROR_ENVIRONMENT);
    CHECK(why.find("GSHMEM_PROXY_BATCH") != std::string::npos);
  }
}

TEST_CASE("remote settings: the variables are in the env table") {
  int found = 0;
  for (const EnvVarInfo &v : env_table()) {
    const std::string name = v.name;
    found += name == "GSHMEM_REMOTE_PEERS" || name == "GSHMEM_REMOTE_RMA" || name == "GSHMEM_PROXY_QUEUE_CAPACITY" ||
             name == "GSHMEM_PROXY_IDLE_SPIN" || name == "GSHMEM_PROXY_BATCH";
  }
  CHECK(found == 5);
}

TEST_CASE("peer classes: forced, unmappable, symmetric") {
  const int n = 3;
  const std::vector<unsigned char> none(n, 0);
  // Before the heap exists: only what GSHMEM_REMOTE_PEERS=all forces.
  CHECK(classify_peers(0, n, none, {}) == std::vector<unsigned char>{0, 0, 0});
  CHECK_FALSE(job_has_remote_pair(n, none, {}));
  const std::vector<unsigned char> pe1_all{0, 1, 0};
  CHECK(classify_peers(0, n, pe1_all, {}) == std::vector<unsigned char>{0, 1, 0});
  CHECK(classify_peers(1, n, pe1_all, {}) == std::vector<unsigned char>{1, 0, 1});
  CHECK(classify_peers(2, n, pe1_all, {}) == std::vector<unsigned char>{0, 1, 0});
  CHECK(job_has_remote_pair(n, pe1_all, {}));
  // After: a pair is P2P only when both map each other (row a: what PE a maps).
  std::vector<unsigned char> maps{1, 1, 1,  //
                                  1, 1, 0,  // PE 1 cannot map PE 2
                                  1, 1, 1};
  CHECK(classify_peers(1, n, none, maps) == std::vector<unsigned char>{0, 0, 1});
  CHECK(classify_peers(2, n, none, maps) == std::vector<unsigned char>{0, 1, 0});
  CHECK(classify_peers(0, n, none, maps) == std::vector<unsigned char>{0, 0, 0});
  CHECK(job_has_remote_pair(n, none, maps));
  const std::vector<unsigned char> all_map(n * n, 1);
  CHECK_FALSE(job_has_remote_pair(n, none, all_map));
  CHECK(classify_peers(0, 1, std::vector<unsigned char>{1}, {}) == std::vector<unsigned char>{0});
}
