// Device failure reports (include/gshmem/detail/device_report.h,
// src/device_report.h): the line each record becomes, that each is printed
// once, and (GPU) that a kernel's failure reaches the host's stderr.
#include <gshmem/detail/device_report.h>
#include <gshmem/detail/team_collectives.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "device_report.h"

namespace {

gshmemi_device_report_slot_t slot(unsigned kind, const char *routine) {
  gshmemi_device_report_slot_t s;
  std::memset(&s, 0, sizeof s);
  s.ready = 1;
  s.kind = kind;
  s.pe = 3;
  std::snprintf(s.routine, sizeof s.routine, "%s", routine);
  return s;
}

std::string printed_by(const gshmemi_device_report_t &area, bool *printed, unsigned *further, int *lines) {
  std::FILE *f = std::tmpfile();
  REQUIRE(f != nullptr);
  *lines = gshmemi::print_device_reports(&area, printed, further, f);
  std::rewind(f);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) text += buf;
  std::fclose(f);
  return text;
}

}  // namespace

TEST_CASE("device reports: each kind becomes the line device printf used to print", "[device_report][cpu]") {
  auto s = slot(GSHMEMI_FAIL_WAIT_TIMEOUT, "gshmem_int_wait_until");
  s.i0 = 5;  // GE
  s.is_signed = 1;
  s.u0 = 0x1000;
  s.u1 = 2;
  s.u2 = 8;
  s.u3 = (unsigned long long)-5LL;
  s.u4 = (unsigned long long)-7LL;
  s.u5 = 1500000000ull;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_int_wait_until: wait timed out (1500000000 ns) at 0x1000 [element 2 of 8]: expected GE "
        "-5, last seen -7");
  s.is_signed = 0;  // an unsigned value at or past 2^63 is not shown negative
  CHECK(gshmemi::format_device_report(s).find("expected GE 18446744073709551611, last seen 18446744073709551609") !=
        std::string::npos);
  s.kind = GSHMEMI_FAIL_WAIT_PEER_LOST;
  s.i1 = 1;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_int_wait_until: PE 1 is gone (its process ended); stopping the wait at 0x1000 [element 2 "
        "of 8] for GE 18446744073709551611, last seen 18446744073709551609");

  s = slot(GSHMEMI_FAIL_INVALID_CMP, "gshmem_long_test");
  s.i0 = 17;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_long_test: invalid cmp 17 (valid: 0 .. 5: EQ=0 NE=1 GT=2 LE=3 LT=4 GE=5)");
  s = slot(GSHMEMI_FAIL_INVALID_SIG_OP, "gshmemx_signal_op");
  s.i0 = 9;
  CHECK(gshmemi::format_device_report(s).find("invalid sig_op 9 (GSHMEM_SIGNAL_SET") != std::string::npos);
  s = slot(GSHMEMI_FAIL_INVALID_ORDER, "gshmem::atomic_load");
  s.i0 = 3;
  s.i1 = 1;
  s.i2 = 0;
  std::snprintf(s.text, sizeof s.text, "a load cannot have release order");
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem::atomic_load: invalid memory order 3 / thread scope 1 for operation 0: a load cannot "
        "have release order");
  s = slot(GSHMEMI_FAIL_NOT_SYMMETRIC, "gshmem_uint64_p");
  s.u0 = 0x2000;
  s.i0 = 5;
  s.i1 = 2;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_uint64_p: address 0x2000 is not symmetric (heap or registered buffer) or PE 5 is not "
        "reachable (n_pes 2)");
  s = slot(GSHMEMI_FAIL_TEAM_PEER_LOST, "gshmem_barrier_all");
  s.i0 = 1;
  s.i1 = 0;
  s.u0 = 0x30;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_barrier_all: PE 1 is gone (its process ended); stopping the wait for PE 0 at 0x30");
  s = slot(GSHMEMI_FAIL_TEAM_TIMEOUT, "gshmem_sync_all");
  s.i1 = 2;
  s.u0 = 0x40;
  s.u3 = 7;
  s.u4 = 6;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_sync_all: timed out waiting for PE 2 at 0x40: expected >= 7, found 6");
  s = slot(GSHMEMI_FAIL_INVALID_TEAM, "gshmem_team_sync");
  s.i0 = 99;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_team_sync: team 99 is not a valid team handle on this PE");
  s = slot(GSHMEMI_FAIL_OVERLAP, "gshmem_int_sum_reduce");
  s.u0 = 0x50;
  s.u1 = 0x58;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_int_sum_reduce: dest 0x50 and source 0x58 overlap without being equal");
  s = slot(GSHMEMI_FAIL_OVERLAP, "gshmem_int_alltoall");
  s.i0 = 1;
  s.u0 = 0x60;
  s.u1 = 0x60;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_int_alltoall: dest 0x60 and source 0x60 overlap (this routine allows no overlap)");
  s = slot(GSHMEMI_FAIL_INVALID_ROOT, "gshmem_int_broadcast");
  s.i0 = 2;
  s.i1 = 2;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_int_broadcast: PE_root 2 is not a rank of the team (team size 2: 0 .. 1)");
  s = slot(GSHMEMI_FAIL_OVERLAP, "gshmem_int_sum_reducescatter");
  s.u0 = 0x50;
  s.u1 = 0x50;
  s.i0 = 1;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_int_sum_reducescatter: dest 0x50 and source 0x50 overlap (this routine allows no "
        "overlap)");
  s = slot(GSHMEMI_FAIL_COUNT_TOO_LARGE, "gshmem_long_max_reducescatter");
  s.u0 = 1ull << 62;
  s.u1 = 8;
  s.i0 = 4;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmem_long_max_reducescatter: count 4611686018427387904 of 8-byte elements times the team's "
        "4 members does not fit the address space");
  s = slot(GSHMEMI_FAIL_COLLECTIVE_MISMATCH, "gshmemx_broadcast_on_stream");
  s.i0 = 1;
  s.i1 = 6;
  s.u0 = gshmem::detail::collective_signature(gshmem::detail::collective_broadcast, 0, 0x1234);
  s.u1 = gshmem::detail::collective_signature(gshmem::detail::collective_broadcast, 1, 0x1234);
  s.u2 = 9;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmemx_broadcast_on_stream: PE 1, a member of team 6, passed a different root to the same "
        "collective call (the team's sync 9): here broadcast, root 0, size fold 0x26; PE 1: broadcast, root 1, size "
        "fold 0x26 (roots mod 128). Every member must call the same collective with the same root and size");
  s.u1 = gshmem::detail::collective_signature(gshmem::detail::collective_reduce + gshmem::detail::reduce_sum::kCode,
                                              0, 0x1234);
  CHECK(gshmemi::format_device_report(s).find("passed a different collective or reduction operator to the same "
                                              "collective call (the team's sync 9): here broadcast, root 0, size "
                                              "fold 0x26; PE 1: reduction, root 0") != std::string::npos);
  s.u1 = gshmem::detail::collective_signature(gshmem::detail::collective_broadcast, 0, 0x1238);
  CHECK(gshmemi::format_device_report(s).find("passed a different size") != std::string::npos);
  // The LL path's wrap sync against a two-sync entry: the kind is named.
  s.u1 = gshmem::detail::collective_signature(gshmem::detail::collective_ll_wrap, 0, 0);
  CHECK(gshmemi::format_device_report(s).find("PE 1: a collective on the LL path, root 0") != std::string::npos);
  s = slot(GSHMEMI_FAIL_COLLECTIVE_FORM, "gshmemx_int_fcollect_block");
  s.i0 = 0;
  s.i1 = 0;
  s.u0 = 0x2000;
  s.u1 = 3;
  s.u2 = 2;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: gshmemx_int_fcollect_block: waits for PE 0's lines (LL protocol, team 0, line 0x2000) while "
        "PE 0 is in a team sync (its sync 3, this PE's 2): that member took the two-sync path for this call. "
        "Members must call a collective all from one thread or all from a group (warp, block, host, stream) once a "
        "one-thread call moves more than GSHMEM_COLLECTIVE_LL_THREAD_BYTES; or the members called different "
        "collectives");
  s = slot(GSHMEMI_FAIL_INVALID_ARGUMENT, "nvshmemx_putmem_signal_counted_nbi_block");
  std::snprintf(s.text, sizeof s.text, "the counter is not 256-byte aligned in the symmetric heap");
  s.u0 = 0x1008;
  s.u1 = 64;
  s.i0 = 1;
  CHECK(gshmemi::format_device_report(s) ==
        "gshmem: PE 3: nvshmemx_putmem_signal_counted_nbi_block: the counter is not 256-byte aligned in the "
        "symmetric heap (address 0x1008, 64 bytes, target PE 1); returned GSHMEMX_ERROR_INVALID_VALUE");
  s = slot(77, "x");
  CHECK(gshmemi::format_device_report(s) == "gshmem: PE 3: x: a device failure of unknown kind 77");
  // A routine name the device did not terminate is cut at its field.
  s = slot(GSHMEMI_FAIL_INVALID_TEAM, "");
  std::memset(s.routine, 'r', sizeof s.routine);
  CHECK(gshmemi::format_device_report(s).find(std::string(sizeof s.routine, 'r') + ": team 0") != std::string::npos);
}

TEST_CASE("device reports: ready slots are printed once, the overflow is counted", "[device_report][cpu]") {
  static gshmemi_device_report_t area;
  std::memset(&area, 0, sizeof area);
  bool printed[GSHMEMI_DEVICE_REPORT_SLOTS] = {};
  unsigned further = 0;
  int lines = 0;
  CHECK(printed_by(area, printed, &further, &lines).empty());
  CHECK(lines == 0);
  area.claimed = 2;
  area.slot[0] = slot(GSHMEMI_FAIL_INVALID_TEAM, "first");
  area.slot[1] = slot(GSHMEMI_FAIL_INVALID_TEAM, "second");
  area.slot[1].ready = 0;  // claimed, not written yet: not printed
  std::string text = printed_by(area, printed, &further, &lines);
  CHECK(lines == 1);
  CHECK(text.find("first") != std::string::npos);
  CHECK(text.find("second") == std::string::npos);
  area.slot[1].ready = 1;
  text = printed_by(area, printed, &further, &lines);
  CHECK(lines == 1);
  CHECK(text.find("first") == std::string::npos);  // once
  CHECK(text.find("second") != std::string::npos);
  area.claimed = GSHMEMI_DEVICE_REPORT_SLOTS + 3;
  text = printed_by(area, printed, &further, &lines);
  CHECK(lines == 1);
  CHECK(text.find("3 more device failure report(s) found no free slot") != std::string::npos);
  text = printed_by(area, printed, &further, &lines);
  CHECK(lines == 0);
  CHECK(gshmemi::print_device_reports(nullptr, printed, &further, nullptr) == 0);
}

#ifdef GSHMEM_DEVICE_REPORT_CHILD
namespace {
struct ChildRun {
  int exit_code = -1;
  std::string output;
};

ChildRun run_child(const std::string &args) {
  ChildRun r;
  const std::string cmd = std::string(GSHMEM_DEVICE_REPORT_CHILD) + " " + args + " 2>&1";
  std::FILE *p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) r.output += buf;
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("device reports: a trapped kernel's failure is printed by the host, once", "[device_report][gpu]") {
  struct Case {
    const char *args, *expect;
  };
  const Case cases[] = {
      {"timeout", "gshmem_uint64_wait_until: wait timed out (300000000 ns) at 0x"},
      {"timeout finalize", "gshmem_uint64_wait_until: wait timed out (300000000 ns) at 0x"},
      {"cmp", "gshmem_uint64_wait_until: invalid cmp 17 (valid: 0 .. 5"},
      {"symmetric", "is not symmetric (heap or registered buffer) or PE 0 is not reachable (n_pes 1)"},
      // PEs outside the job: the translation's per-PE tables give them no
      // reach (state.h: peer_reach, with its last entry for every PE past
      // the tables), so the put ends in the same diagnostic, naming the PE.
      {"pe=-1", "or PE -1 is not reachable (n_pes 1)"},
      {"pe=1", "or PE 1 is not reachable (n_pes 1)"},
      {"pe=128", "or PE 128 is not reachable (n_pes 1)"},
      {"pe=100000", "or PE 100000 is not reachable (n_pes 1)"},
      {"sigop finalize", "invalid sig_op 3 (GSHMEM_SIGNAL_SET 9 or GSHMEM_SIGNAL_ADD 10)"},
  };
  for (const Case &c : cases) {
    INFO("device_report_child " << c.args);
    const ChildRun r = run_child(c.args);
    INFO("its output:\n" << r.output);
    CHECK(r.exit_code == 3);
    CHECK(count(r.output, c.expect) == 1);
    CHECK(count(r.output, "gshmem: PE 0: ") >= 1);
  }
}
#endif
