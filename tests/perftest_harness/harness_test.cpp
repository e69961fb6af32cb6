// CPU tests of the perftest harness: ranges, options (good and bad),
// statistics, the JSON row format and the reporter's file output.
#include "catch.hpp"

#include "harness.h"
#include "test_support.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace gshmem_perf;

namespace {
bool parse(std::vector<const char *> args, Options &o, std::string &err) {
  args.insert(args.begin(), "prog");
  return parse_options(int(args.size()), args.data(), o, err);
}
using gshmem_test::contains;
}  // namespace

TEST_CASE("range parsing and expansion", "[range]") {
  Range r;
  std::string err;
  REQUIRE(parse_range("8:4M:2", r, err));
  CHECK(r.min == 8);
  CHECK(r.max == (4u << 20));
  std::vector<uint64_t> v = r.values();
  REQUIRE(v.size() == 20);  // 2^3 .. 2^22
  CHECK(v.front() == 8);
  CHECK(v.back() == (4u << 20));

  REQUIRE(parse_range("1:32768:8", r, err));
  CHECK(r.values() == std::vector<uint64_t>{1, 8, 64, 512, 4096, 32768});
  REQUIRE(parse_range("1:100:10", r, err));
  CHECK(r.values() == std::vector<uint64_t>{1, 10, 100});
  REQUIRE(parse_range("3:20:4", r, err));  // max not on the grid: stop below it
  CHECK(r.values() == std::vector<uint64_t>{3, 12});
  REQUIRE(parse_range("1K", r, err));
  CHECK(r.values() == std::vector<uint64_t>{1024});
  REQUIRE(parse_range("2:16", r, err));  // default factor 2
  CHECK(r.values() == std::vector<uint64_t>{2, 4, 8, 16});

  // A range near the top of uint64 must not overflow into a loop.
  REQUIRE(parse_range("1:18446744073709551615:2", r, err));
  CHECK(r.values().size() == 64);

  CHECK_FALSE(parse_range("", r, err));
  CHECK_FALSE(parse_range("0:8", r, err));
  CHECK_FALSE(parse_range("16:8", r, err));
  CHECK(contains(err, "below minimum"));
  CHECK_FALSE(parse_range("1:8:1", r, err));
  CHECK_FALSE(parse_range("1:8:2:3", r, err));
  CHECK_FALSE(parse_range("abc", r, err));
  CHECK_FALSE(parse_range("8X", r, err));
  CHECK(contains(err, "suffix"));
  CHECK_FALSE(parse_range("-1:8", r, err));
}

TEST_CASE("thread list parsing", "[options]") {
  std::vector<int> t;
  std::string err;
  REQUIRE(parse_threads("thread,warp,block", t, err));
  CHECK(t == std::vector<int>{1, 32, 1024});
  REQUIRE(parse_threads("1,64,256", t, err));
  CHECK(t == std::vector<int>{1, 64, 256});
  CHECK_FALSE(parse_threads("7", t, err));
  CHECK_FALSE(parse_threads("2048", t, err));
  CHECK_FALSE(parse_threads("0", t, err));
  CHECK_FALSE(parse_threads("wrap", t, err));
  CHECK_FALSE(parse_threads("", t, err));
  CHECK(threads_label(1) == "thread");
  CHECK(threads_label(32) == "warp");
  CHECK(threads_label(1024) == "block1024");
  CHECK(threads_label(0) == "stream");
}

TEST_CASE("option parsing: good input", "[options]") {
  Options o;
  std::string err;
  REQUIRE(parse({"-n", "500", "--warmup=50", "-r", "7", "-b", "1:1K:4", "-t", "warp,block",
                 "--json", "out.jsonl", "--quick", "--json-stderr"},
                o, err));
  CHECK(o.iters == 500);
  CHECK(o.warmup == 50);
  CHECK(o.repeats == 7);
  CHECK(o.range_set);
  CHECK(o.range.values() == std::vector<uint64_t>{1, 4, 16, 64, 256, 1024});
  CHECK(o.threads == std::vector<int>{32, 1024});
  CHECK(o.json_path == "out.jsonl");
  CHECK(o.quick);
  CHECK(o.json_stderr);
  CHECK(o.iterations(1000, 100) == 500);
  CHECK(o.warmup_iterations(10, 1) == 50);

  Options d;
  REQUIRE(parse({}, d, err));
  CHECK_FALSE(d.quick);
  CHECK(d.repeats == 5);
  CHECK(d.iterations(1000, 100) == 1000);
  Options q;
  REQUIRE(parse({"-q"}, q, err));
  CHECK(q.iterations(1000, 100) == 100);
  Options h;
  REQUIRE(parse({"--help"}, h, err));
  CHECK(h.help);
  CHECK(contains(usage("gshmem_perf_x"), "--iters"));
}

TEST_CASE("option parsing: bad input is rejected with a reason", "[options]") {
  Options o;
  std::string err;
  CHECK_FALSE(parse({"--bogus"}, o, err));
  CHECK(contains(err, "unknown option"));
  CHECK_FALSE(parse({"-n"}, o, err));
  CHECK(contains(err, "needs a value"));
  CHECK_FALSE(parse({"-n", "0"}, o, err));
  CHECK_FALSE(parse({"-n", "ten"}, o, err));
  CHECK_FALSE(parse({"-r", "0"}, o, err));
  CHECK_FALSE(parse({"--range=9:3"}, o, err));
  CHECK_FALSE(parse({"-t", "3"}, o, err));
  CHECK_FALSE(parse({"--json="}, o, err));
}

TEST_CASE("statistics: median, min, max", "[stats]") {
  Stats s = compute_stats({5, 1, 3});
  CHECK(s.median == 3);
  CHECK(s.min == 1);
  CHECK(s.max == 5);
  CHECK(s.count == 3);
  s = compute_stats({4, 1, 3, 2});
  CHECK(s.median == 2.5);
  CHECK(s.min == 1);
  CHECK(s.max == 4);
  s = compute_stats({7});
  CHECK(s.median == 7);
  CHECK(s.min == 7);
  CHECK(s.max == 7);
  s = compute_stats({});
  CHECK(s.count == 0);
  // A single outlier does not move the median.
  s = compute_stats({1.0, 1.1, 0.9, 1.0, 500.0});
  CHECK(s.median == 1.0);
  CHECK(s.max == 500.0);
}

namespace {
Row sample_row() {
  Row r;
  r.name = "signal_op+signal_wait_until";
  r.pes = 2;
  r.size = 8;
  r.threads = 1;
  r.metric = "one_way";
  r.stats = compute_stats({0.70, 0.72, 0.68});
  r.unit = "us";
  r.has_floor = true;
  r.floor = 0.66;
  r.iters = 1000;
  return r;
}
}  // namespace

TEST_CASE("JSON rows carry every field", "[json]") {
  Row r = sample_row();
  std::string j = to_json(r, "gshmem_perf_latency");
  CHECK(j.front() == '{');
  CHECK(j.back() == '}');
  CHECK(j.find('\n') == std::string::npos);
  for (const char *field : {"\"binary\":\"gshmem_perf_latency\"", "\"name\":\"signal_op+signal_wait_until\"",
                            "\"pes\":2", "\"size\":8", "\"threads\":1", "\"metric\":\"one_way\"",
                            "\"value\":0.7", "\"min\":0.68", "\"max\":0.72", "\"unit\":\"us\"",
                            "\"better\":\"lower\"", "\"floor\":0.66", "\"ratio\":1.06061",
                            "\"repeats\":3", "\"iters\":1000"})
    CHECK(contains(j, field));

  Row n = r;
  n.size_key = "n";
  n.size = 1024;
  n.has_floor = false;
  n.lower_is_better = false;
  n.name = "quote\"back\\slash";
  std::string jn = to_json(n, "b");
  CHECK(contains(jn, "\"n\":1024"));
  CHECK_FALSE(contains(jn, "\"size\""));
  CHECK(contains(jn, "\"floor\":null"));
  CHECK(contains(jn, "\"ratio\":null"));
  CHECK(contains(jn, "\"better\":\"higher\""));
  CHECK(contains(jn, "quote\\\"back\\\\slash"));

  Row inf = r;
  inf.stats.median = INFINITY;
  CHECK(contains(to_json(inf, "b"), "\"value\":null"));
  CHECK(std::fabs(r.ratio() - 0.70 / 0.66) < 1e-12);
}

TEST_CASE("reporter writes one JSON line per row", "[json-file]") {
  const char *path = "harness_rows.jsonl";
  std::remove(path);
  Options o;
  o.json_path = path;
  {
    Reporter rep("gshmem_perf_test", o, true);
    REQUIRE(rep.ok());
    rep.section("sample");
    Row r = sample_row();
    rep.add(r);
    r.metric = "round_trip";
    r.stats = compute_stats({1.4, 1.5});
    r.floor = 1.3;
    rep.add(r);
    Row n = sample_row();
    n.name = "wait_until_any";
    n.size_key = "n";
    n.size = 1024;
    n.threads = 1024;
    n.has_floor = false;
    rep.add(n);
    CHECK(rep.rows().size() == 3);
  }
  // An inactive reporter (not the reporting PE) writes nothing.
  {
    Reporter quiet("gshmem_perf_test", o, false);
    quiet.add(sample_row());
  }
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 3);
  CHECK(contains(lines[1], "\"metric\":\"round_trip\""));
  CHECK(contains(lines[2], "\"n\":1024"));

  Options bad;
  bad.json_path = "/nonexistent-dir/x.jsonl";
  Reporter broken("gshmem_perf_test", bad, true);
  CHECK_FALSE(broken.ok());
}
