// Environment parsing: every kind, good and bad values, and the table itself.
#include <cstring>
#include <limits>
#include <map>
#include <string>

#include "catch.hpp"
#include "env.h"
#include "env_map.h"

using namespace gshmemi;

TEST_CASE("sizes accept plain bytes and K/M/G/T suffixes") {
  std::size_t v = 0;
  CHECK(parse_size("0", &v)); CHECK(v == 0);
  CHECK(parse_size("4096", &v)); CHECK(v == 4096);
  CHECK(parse_size("512M", &v)); CHECK(v == (512ull << 20));
  CHECK(parse_size("512m", &v)); CHECK(v == (512ull << 20));
  CHECK(parse_size("2G", &v)); CHECK(v == (2ull << 30));
  CHECK(parse_size("2GiB", &v)); CHECK(v == (2ull << 30));
  CHECK(parse_size("64KB", &v)); CHECK(v == (64ull << 10));
  CHECK(parse_size("1T", &v)); CHECK(v == (1ull << 40));
  CHECK(parse_size(" 8k ", &v)); CHECK(v == 8192);
}

TEST_CASE("bad sizes are rejected with a reason") {
  std::size_t v = 12345;
  std::string why;
  for (const char *bad : {"banana", "", "-1", "1.5G", "12Q", "G", "1GG", "99999999999999999999",
                          "20000000T", "1 G x"}) {
    INFO("value: '" << bad << "'");
    why.clear();
    CHECK_FALSE(parse_size(bad, &v, &why));
    CHECK_FALSE(why.empty());
  }
  CHECK(v == 12345);  // untouched on failure
}

TEST_CASE("bools, seconds and levels") {
  bool b = false;
  CHECK(parse_bool("1", &b)); CHECK(b);
  CHECK(parse_bool("off", &b)); CHECK_FALSE(b);
  CHECK(parse_bool("TRUE", &b)); CHECK(b);
  CHECK(parse_bool("no", &b)); CHECK_FALSE(b);
  CHECK_FALSE(parse_bool("2", &b));
  CHECK_FALSE(parse_bool("maybe", &b));

  double s = -1;
  CHECK(parse_seconds("0", &s)); CHECK(s == 0);
  CHECK(parse_seconds("2.5", &s)); CHECK(s == 2.5);
  CHECK(parse_seconds("10s", &s)); CHECK(s == 10);
  CHECK_FALSE(parse_seconds("-3", &s));
  CHECK_FALSE(parse_seconds("soon", &s));
  CHECK_FALSE(parse_seconds("1e400", &s));
  CHECK_FALSE(parse_seconds("nan", &s));
  // In nanoseconds: exact for ordinary values, the largest count past ~292 years.
  CHECK(seconds_to_ns(0) == 0);
  CHECK(seconds_to_ns(2.5) == 2500000000ll);
  CHECK(seconds_to_ns(0.001) == 1000000ll);
  CHECK(seconds_to_ns(1e300) == std::numeric_limits<long long>::max());
  CHECK(seconds_to_ns(9.3e9) == std::numeric_limits<long long>::max());

  LogLevel l = LogLevel::NONE;
  CHECK(parse_level("trace", &l)); CHECK(l == LogLevel::TRACE);
  CHECK(parse_level("WARN", &l)); CHECK(l == LogLevel::WARN);
  CHECK(parse_level("Info", &l)); CHECK(l == LogLevel::INFO);
  CHECK(parse_level("NONE", &l)); CHECK(l == LogLevel::NONE);
  CHECK_FALSE(parse_level("LOUD", &l));
}

TEST_CASE("every default in the table parses, and unset variables take it") {
  for (const EnvVarInfo &var : env_table()) {
    INFO(var.name);
    CHECK(std::strncmp(var.name, "GSHMEM_", 7) == 0);
    CHECK(std::strlen(var.doc) > 10);
    std::string why;
    CHECK(validate_env_value(var, var.default_text, &why));
  }
  std::map<std::string, std::string> vars;
  Env e{};
  std::string message;
  REQUIRE(parse_env(gshmem_test::env_map_lookup, &vars, &e, &message) == GSHMEM_SUCCESS);
  CHECK(e.SYMMETRIC_SIZE == (1ull << 30));
  CHECK(e.REGISTRATION_SPACE == (32ull << 30));
  CHECK(e.DEBUG == LogLevel::WARN);
  CHECK(e.WAIT_TIMEOUT == 0);
  CHECK(e.PEER_TIMEOUT == 5);
  CHECK(e.FAULT_INJECT.empty());
  CHECK_FALSE(e.DISABLE_VMM);
  CHECK(e.BOOTSTRAP == "auto");
}

TEST_CASE("set variables are parsed") {
  std::map<std::string, std::string> vars = {{"GSHMEM_SYMMETRIC_SIZE", "512M"},
                                             {"GSHMEM_DISABLE_VMM", "yes"},
                                             {"GSHMEM_WAIT_TIMEOUT", "1.5"},
                                             {"GSHMEM_DEBUG", "TRACE"},
                                             {"GSHMEM_BOOTSTRAP", "single"},
                                             {"GSHMEM_REGISTRATION_SPACE", "0"}};
  Env e{};
  std::string message;
  REQUIRE(parse_env(gshmem_test::env_map_lookup, &vars, &e, &message) == GSHMEM_SUCCESS);
  CHECK(e.SYMMETRIC_SIZE == (512ull << 20));
  CHECK(e.REGISTRATION_SPACE == 0);
  CHECK(e.DISABLE_VMM);
  CHECK(e.WAIT_TIMEOUT == 1.5);
  CHECK(e.DEBUG == LogLevel::TRACE);
  CHECK(e.BOOTSTRAP == "single");
}

TEST_CASE("a bad value is an error naming the variable and the value, not a silent default") {
  std::map<std::string, std::string> vars = {{"GSHMEM_SYMMETRIC_SIZE", "banana"},
                                             {"GSHMEM_DISABLE_VMM", "1"}};
  Env e{};
  std::string message;
  CHECK(parse_env(gshmem_test::env_map_lookup, &vars, &e, &message) == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(message.find("GSHMEM_SYMMETRIC_SIZE") != std::string::npos);
  CHECK(message.find("banana") != std::string::npos);
  CHECK(e.DISABLE_VMM);  // the other variables are still read

  vars = {{"GSHMEM_WAIT_TIMEOUT", "forever"}};
  CHECK(parse_env(gshmem_test::env_map_lookup, &vars, &e, &message) == GSHMEMX_ERROR_ENVIRONMENT);
  CHECK(message.find("GSHMEM_WAIT_TIMEOUT=forever") != std::string::npos);
}
