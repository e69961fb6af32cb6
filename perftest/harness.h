// The perftest harness: options, statistics, the human table and the JSON
// lines every benchmark binary shares. Host C++ only (no kernels), so the CPU
// test suite can exercise all of it on a machine without a GPU.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace gshmem_perf {

// An inclusive geometric range "min:max:factor" (factor 1 means min only).
struct Range {
  uint64_t min = 1;
  uint64_t max = 1;
  uint64_t factor = 2;
  // min, min*factor, ... up to and including max.
  std::vector<uint64_t> values() const;
};

// Parses "min:max:factor", "min:max" (factor 2) or "v" (one value). Sizes
// accept K/M/G suffixes (powers of 1024). Returns false with `error` set.
bool parse_range(const std::string &text, Range &out, std::string &error);
// Parses a comma list of issuer widths: "thread,warp,block" or numbers.
bool parse_threads(const std::string &text, std::vector<int> &out, std::string &error);
// Parses a non-negative integer with an optional K/M/G suffix.
bool parse_count(const std::string &text, uint64_t &out, std::string &error);

struct Options {
  uint64_t iters = 0;          // 0 = the binary's default (smaller in quick mode)
  uint64_t warmup = 0;         // 0 = the binary's default
  Range range;                 // size (bytes) or n (elements)
  bool range_set = false;
  std::vector<int> threads;    // issuer widths: 1 (thread), 32 (warp), block size
  int repeats = 5;
  std::string json_path;       // JSON lines appended here when non-empty
  bool json_stderr = false;    // also write JSON lines to stderr
  bool quick = false;
  bool help = false;

  // The iteration count to use given the binary's defaults.
  uint64_t iterations(uint64_t full_default, uint64_t quick_default) const {
    return iters ? iters : (quick ? quick_default : full_default);
  }
  uint64_t warmup_iterations(uint64_t full_default, uint64_t quick_default) const {
    return warmup ? warmup : (quick ? quick_default : full_default);
  }
};

// Parses argv. Returns false with `error` set on a bad option or value.
bool parse_options(int argc, const char *const *argv, Options &out, std::string &error);
// The usage text shared by every binary.
std::string usage(const char *program);

// Median, min and max over repeats.
struct Stats {
  double median = 0, min = 0, max = 0;
  size_t count = 0;
};
Stats compute_stats(std::vector<double> samples);

// One result row: one figure of one benchmark, with its floor where it has one.
struct Row {
  std::string name;          // e.g. "signal_op+signal_wait_until"
  int pes = 2;
  std::string size_key = "size";  // "size" (bytes) or "n" (elements)
  uint64_t size = 0;
  int threads = 1;           // issuer width
  std::string metric;        // e.g. "one_way", "round_trip", "bandwidth"
  Stats stats;               // value = stats.median
  std::string unit = "us";
  bool lower_is_better = true;
  bool has_floor = false;
  double floor = 0;          // same metric and unit as the value
  uint64_t iters = 0;

  double ratio() const { return has_floor && floor > 0 ? stats.median / floor : 0; }
};

// One JSON object on one line (no trailing newline).
std::string to_json(const Row &row, const std::string &binary);
// A width-label for tables ("thread", "warp", "block(1024)", ...).
std::string threads_label(int threads);

// Prints the table on stdout (line-buffered so progress survives a timeout)
// and the JSON lines to a file and/or stderr. Only the reporting PE prints.
class Reporter {
 public:
  Reporter(std::string binary, const Options &options, bool active);
  ~Reporter();
  Reporter(const Reporter &) = delete;
  Reporter &operator=(const Reporter &) = delete;

  // Starts a section of the table with its own header.
  void section(const std::string &title);
  void add(const Row &row);
  // A free-text note in the table (prefixed with '#').
  void note(const std::string &text);
  bool ok() const { return ok_; }
  const std::vector<Row> &rows() const { return rows_; }

 private:
  std::string binary_;
  bool active_;
  bool json_stderr_;
  FILE *json_ = nullptr;
  bool ok_ = true;
  std::vector<Row> rows_;
};

// Checks, before any gshmem call, that this process can run a benchmark that
// needs `min_pes` PEs with one GPU each: prints a clear message to stderr and
// returns a non-zero exit code when there is no GPU, fewer GPUs than PEs on
// this node, or fewer PEs than needed; returns 0 when all is well. Also asks
// CUDA for eager module loading (spinning kernels on two GPUs can deadlock
// under lazy loading) unless the user chose otherwise.
int check_environment(const char *program, int min_pes);

// PEs of the job and on this node as the launcher announces them (1 when not
// launched by a known launcher).
int launcher_world_size();
int launcher_local_size();

// Exit code of a perftest that cannot run here (no GPU, too few GPUs or PEs).
constexpr int kCannotRunExitCode = 2;

}  // namespace gshmem_perf
