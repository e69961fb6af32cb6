// The perftest harness (see harness.h).
#include "harness.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace gshmem_perf {

std::vector<uint64_t> Range::values() const {
  std::vector<uint64_t> out;
  if (min > max) return out;
  uint64_t v = min;
  while (true) {
    out.push_back(v);
    if (factor <= 1 || v > max / factor) break;
    v *= factor;
    if (v > max) break;
  }
  return out;
}

bool parse_count(const std::string &text, uint64_t &out, std::string &error) {
  if (text.empty() || text[0] == '-' || text[0] == '+') {
    error = "expected a non-negative number, got '" + text + "'";
    return false;
  }
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || errno == ERANGE) {
    error = "expected a non-negative number, got '" + text + "'";
    return false;
  }
  uint64_t mult = 1;
  std::string suffix(end);
  if (suffix == "K" || suffix == "k") mult = 1ull << 10;
  else if (suffix == "M" || suffix == "m") mult = 1ull << 20;
  else if (suffix == "G" || suffix == "g") mult = 1ull << 30;
  else if (!suffix.empty()) {
    error = "unknown suffix '" + suffix + "' in '" + text + "' (use K, M or G)";
    return false;
  }
  if (v > UINT64_MAX / mult) {
    error = "value too large: '" + text + "'";
    return false;
  }
  out = v * mult;
  return true;
}

bool parse_range(const std::string &text, Range &out, std::string &error) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ':')) parts.push_back(item);
  if (!text.empty() && text.back() == ':') parts.push_back("");
  if (parts.empty() || parts.size() > 3) {
    error = "a range is min:max:factor, got '" + text + "'";
    return false;
  }
  Range r;
  if (!parse_count(parts[0], r.min, error)) return false;
  r.max = r.min;
  r.factor = 2;
  if (parts.size() >= 2 && !parse_count(parts[1], r.max, error)) return false;
  if (parts.size() == 3 && !parse_count(parts[2], r.factor, error)) return false;
  if (r.min == 0) {
    error = "range minimum must be at least 1 in '" + text + "'";
    return false;
  }
  if (r.max < r.min) {
    error = "range maximum below minimum in '" + text + "'";
    return false;
  }
  if (r.factor < 2 && r.max != r.min) {
    error = "range factor must be at least 2 in '" + text + "'";
    return false;
  }
  out = r;
  return true;
}

bool parse_threads(const std::string &text, std::vector<int> &out, std::string &error) {
  std::vector<int> widths;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "thread") widths.push_back(1);
    else if (item == "warp") widths.push_back(32);
    else if (item == "block") widths.push_back(1024);
    else {
      uint64_t v = 0;
      if (!parse_count(item, v, error)) return false;
      if (v == 0 || v > 1024 || (v != 1 && v % 32 != 0)) {
        error = "a width is thread, warp, block, 1 or a multiple of 32 up to 1024; got '" + item + "'";
        return false;
      }
      widths.push_back(static_cast<int>(v));
    }
  }
  if (widths.empty()) {
    error = "empty thread list";
    return false;
  }
  out = widths;
  return true;
}

std::string usage(const char *program) {
  std::ostringstream u;
  u << "usage: mpirun -np <PEs> " << program << " [options]\n"
    << "  -n, --iters N         timed iterations per repeat (device-side loop)\n"
    << "  -w, --warmup N        warm-up iterations before the first repeat\n"
    << "  -r, --repeats N       repeats; the median, min and max are reported (default 5)\n"
    << "  -b, --range MIN:MAX:F size in bytes or element count n, geometric (K/M/G suffixes)\n"
    << "  -t, --threads LIST    issuer widths: thread,warp,block or numbers (1, 32..1024)\n"
    << "  -j, --json FILE       append one JSON object per result row to FILE\n"
    << "      --json-stderr     also write the JSON lines to stderr\n"
    << "  -q, --quick           fewer points and iterations\n"
    << "  -h, --help            this text\n";
  return u.str();
}

bool parse_options(int argc, const char *const *argv, Options &out, std::string &error) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline = false;
    size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline = true;
    }
    auto need_value = [&](std::string &v) {
      if (has_inline) { v = value; return true; }
      if (i + 1 >= argc) { error = "option " + arg + " needs a value"; return false; }
      v = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "-h" || arg == "--help") {
      o.help = true;
    } else if (arg == "-q" || arg == "--quick") {
      o.quick = true;
    } else if (arg == "--json-stderr") {
      o.json_stderr = true;
    } else if (arg == "-n" || arg == "--iters") {
      if (!need_value(v) || !parse_count(v, o.iters, error)) return false;
      if (o.iters == 0) { error = "--iters must be at least 1"; return false; }
    } else if (arg == "-w" || arg == "--warmup") {
      if (!need_value(v) || !parse_count(v, o.warmup, error)) return false;
    } else if (arg == "-r" || arg == "--repeats") {
      uint64_t r = 0;
      if (!need_value(v) || !parse_count(v, r, error)) return false;
      if (r == 0 || r > 1000) { error = "--repeats must be 1..1000"; return false; }
      o.repeats = static_cast<int>(r);
    } else if (arg == "-b" || arg == "--range") {
      if (!need_value(v) || !parse_range(v, o.range, error)) return false;
      o.range_set = true;
    } else if (arg == "-t" || arg == "--threads") {
      if (!need_value(v) || !parse_threads(v, o.threads, error)) return false;
    } else if (arg == "-j" || arg == "--json") {
      if (!need_value(v)) return false;
      if (v.empty()) { error = "--json needs a file name"; return false; }
      o.json_path = v;
    } else {
      error = "unknown option '" + arg + "'";
      return false;
    }
  }
  out = o;
  return true;
}

Stats compute_stats(std::vector<double> samples) {
  Stats s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  return s;
}

std::string threads_label(int threads) {
  if (threads == 1) return "thread";
  if (threads == 32) return "warp";
  if (threads == 0) return "stream";  // an on-stream call: no caller of the program's on the GPU
  return "block" + std::to_string(threads);
}

namespace {

std::string json_escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

// JSON has no NaN or infinity: such figures become null.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::string to_json(const Row &r, const std::string &binary) {
  std::ostringstream j;
  j << "{\"binary\":\"" << json_escape(binary) << "\""
    << ",\"name\":\"" << json_escape(r.name) << "\""
    << ",\"pes\":" << r.pes
    << ",\"" << (r.size_key == "n" ? "n" : "size") << "\":" << r.size
    << ",\"threads\":" << r.threads
    << ",\"metric\":\"" << json_escape(r.metric) << "\""
    << ",\"value\":" << json_number(r.stats.median)
    << ",\"min\":" << json_number(r.stats.min)
    << ",\"max\":" << json_number(r.stats.max)
    << ",\"repeats\":" << r.stats.count
    << ",\"iters\":" << r.iters
    << ",\"unit\":\"" << json_escape(r.unit) << "\""
    << ",\"better\":\"" << (r.lower_is_better ? "lower" : "higher") << "\""
    << ",\"floor\":" << (r.has_floor ? json_number(r.floor) : "null")
    << ",\"ratio\":" << (r.has_floor && r.floor > 0 ? json_number(r.ratio()) : "null")
    << "}";
  return j.str();
}

Reporter::Reporter(std::string binary, const Options &options, bool active)
    : binary_(std::move(binary)), active_(active), json_stderr_(options.json_stderr) {
  if (!active_) return;
  // Line-buffered stdout: a run cut short by a timeout still shows its rows.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (!options.json_path.empty()) {
    json_ = std::fopen(options.json_path.c_str(), "a");
    if (!json_) {
      std::fprintf(stderr, "%s: cannot open %s for writing: %s\n", binary_.c_str(),
                   options.json_path.c_str(), std::strerror(errno));
      ok_ = false;
    }
  }
}

Reporter::~Reporter() {
  if (json_) std::fclose(json_);
}

void Reporter::section(const std::string &title) {
  if (!active_) return;
  std::printf("#\n# %s\n#\n", title.c_str());
  std::printf("# %-40s %10s %8s %-10s %11s %11s %11s %-5s %11s %7s\n", "name", "size/n",
              "threads", "metric", "median", "min", "max", "unit", "floor", "ratio");
}

void Reporter::note(const std::string &text) {
  if (active_) std::printf("# %s\n", text.c_str());
}

void Reporter::add(const Row &row) {
  rows_.push_back(row);
  if (!active_) return;
  char floor_text[32] = "-", ratio_text[32] = "-";
  if (row.has_floor) {
    std::snprintf(floor_text, sizeof floor_text, "%.3f", row.floor);
    if (row.floor > 0) std::snprintf(ratio_text, sizeof ratio_text, "%.2f", row.ratio());
  }
  std::printf("  %-40s %10llu %8s %-10s %11.3f %11.3f %11.3f %-5s %11s %7s\n", row.name.c_str(),
              static_cast<unsigned long long>(row.size), threads_label(row.threads).c_str(),
              row.metric.c_str(), row.stats.median, row.stats.min, row.stats.max,
              row.unit.c_str(), floor_text, ratio_text);
  std::string line = to_json(row, binary_);
  if (json_) {
    std::fprintf(json_, "%s\n", line.c_str());
    std::fflush(json_);
  }
  if (json_stderr_) std::fprintf(stderr, "%s\n", line.c_str());
}

namespace {
int env_int(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? std::atoi(v) : 0;
}
}  // namespace

int launcher_world_size() {
  for (const char *n : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS", "MPI_LOCALNRANKS"})
    if (int v = env_int(n)) return v;
  return 1;
}

int launcher_local_size() {
  for (const char *n : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"})
    if (int v = env_int(n)) return v;
  return launcher_world_size();
}

int check_environment(const char *program, int min_pes) {
  // Must happen before the first CUDA call of the process to take effect.
  setenv("CUDA_MODULE_LOADING", "EAGER", /*overwrite=*/0);
  int gpus = 0;
  cudaError_t err = cudaGetDeviceCount(&gpus);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    gpus = 0;
  }
  int world = launcher_world_size();
  int local = launcher_local_size();
  if (gpus == 0) {
    std::fprintf(stderr,
                 "%s: cannot run: no CUDA GPU found (%s). This benchmark needs at least %d "
                 "GPUs, one per PE, with peer access (launch: mpirun -np %d %s).\n",
                 program, err == cudaSuccess ? "0 devices" : cudaGetErrorString(err), min_pes,
                 min_pes, program);
    return kCannotRunExitCode;
  }
  if (gpus < local) {
    const char *sharing = std::getenv("GSHMEM_ALLOW_GPU_SHARING");
    if (!sharing || std::string(sharing) != "1") {
      std::fprintf(stderr,
                   "%s: cannot run: %d PEs on this node but only %d GPU(s); each PE needs its "
                   "own GPU (GSHMEM_ALLOW_GPU_SHARING=1 runs them anyway, sharing GPUs).\n",
                   program, local, gpus);
      return kCannotRunExitCode;
    }
    // Timings between PEs on one GPU measure that GPU's memory system (and,
    // without MPS, its time slicing), not the link between GPUs.
    std::fprintf(stderr,
                 "%s: %d PEs share %d GPU(s) (GSHMEM_ALLOW_GPU_SHARING=1): the figures are not "
                 "those of GPUs linked to each other.\n",
                 program, local, gpus);
  }
  if (world < min_pes) {
    std::fprintf(stderr,
                 "%s: cannot run: needs at least %d PEs (found %d, %d GPU(s) here); launch "
                 "with: mpirun -np %d %s\n",
                 program, min_pes, world, gpus, min_pes, program);
    return kCannotRunExitCode;
  }
  return 0;
}

}  // namespace gshmem_perf
