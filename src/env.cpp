// Parsing of the GSHMEM_* environment (table: env.def).
#include "env.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

namespace gshmemi {

namespace {

std::string trimmed_lower(const std::string &text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  std::string out = text.substr(begin, end - begin);
  for (char &c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool fail(std::string *error, const std::string &why) {
  if (error) *error = why;
  return false;
}

}  // namespace

bool parse_size(const std::string &text, std::size_t *out, std::string *error) {
  const std::string t = trimmed_lower(text);
  std::size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  if (digits == 0) return fail(error, "expected a number of bytes with an optional K, M, G or T suffix");
  unsigned shift = 0;
  std::string suffix = t.substr(digits);
  if (!suffix.empty()) {
    switch (suffix[0]) {
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      case 't': shift = 40; break;
      case 'b': shift = 0; break;
      default: return fail(error, "unknown size suffix '" + suffix + "' (use K, M, G or T)");
    }
    // Accept "512M", "512MB", "512MiB" and "4096B".
    const std::string rest = suffix.substr(1);
    const bool ok = suffix[0] == 'b' ? rest.empty() : (rest.empty() || rest == "b" || rest == "ib");
    if (!ok) return fail(error, "unknown size suffix '" + suffix + "' (use K, M, G or T)");
  }
  const unsigned long long max = std::numeric_limits<std::size_t>::max();
  unsigned long long value = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    const unsigned d = static_cast<unsigned>(t[i] - '0');
    if (value > (max - d) / 10) return fail(error, "size does not fit in 64 bits");
    value = value * 10 + d;
  }
  if (shift && value > (max >> shift)) return fail(error, "size does not fit in 64 bits");
  *out = static_cast<std::size_t>(value << shift);
  return true;
}

bool parse_bool(const std::string &text, bool *out, std::string *error) {
  const std::string t = trimmed_lower(text);
  if (t == "1" || t == "true" || t == "yes" || t == "on" || t == "y") { *out = true; return true; }
  if (t == "0" || t == "false" || t == "no" || t == "off" || t == "n") { *out = false; return true; }
  return fail(error, "expected 0/1, true/false, yes/no or on/off");
}

bool parse_seconds(const std::string &text, double *out, std::string *error) {
  std::string t = trimmed_lower(text);
  if (!t.empty() && t.back() == 's') t.pop_back();
  if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.'))
    return fail(error, "expected a non-negative number of seconds");
  errno = 0;
  char *end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (errno != 0 || end != t.c_str() + t.size() || !std::isfinite(v) || v < 0)
    return fail(error, "expected a non-negative number of seconds");
  *out = v;
  return true;
}

long long seconds_to_ns(double seconds) {
  constexpr long long kMax = std::numeric_limits<long long>::max();
  if (!(seconds > 0)) return 0;
  const double ns = seconds * 1e9;
  return ns >= static_cast<double>(kMax) ? kMax : static_cast<long long>(ns);
}

bool parse_level(const std::string &text, LogLevel *out, std::string *error) {
  const std::string t = trimmed_lower(text);
  if (t == "none" || t == "0") { *out = LogLevel::NONE; return true; }
  if (t == "warn" || t == "1") { *out = LogLevel::WARN; return true; }
  if (t == "info" || t == "2") { *out = LogLevel::INFO; return true; }
  if (t == "trace" || t == "3") { *out = LogLevel::TRACE; return true; }
  return fail(error, "expected NONE, WARN, INFO or TRACE");
}

bool parse_string(const std::string &text, std::string *out, std::string *) {
  *out = text;
  return true;
}

const std::vector<EnvVarInfo> &env_table() {
  static const std::vector<EnvVarInfo> table = {
#define GSHMEMI_ENV(NAME, KIND, DEFAULT, DOC) {"GSHMEM_" #NAME, #KIND, DEFAULT, DOC},
#include "env.def"
#undef GSHMEMI_ENV
  };
  return table;
}

bool validate_env_value(const EnvVarInfo &info, const std::string &text, std::string *error) {
  const std::string kind = info.kind;
  if (kind == "size") { std::size_t v; return parse_size(text, &v, error); }
  if (kind == "bool") { bool v; return parse_bool(text, &v, error); }
  if (kind == "seconds") { double v; return parse_seconds(text, &v, error); }
  if (kind == "level") { LogLevel v; return parse_level(text, &v, error); }
  std::string v;
  return parse_string(text, &v, error);
}

int parse_env(EnvLookup lookup, void *context, Env *out, std::string *message) {
  int status = GSHMEM_SUCCESS;
  std::string why;
  // An empty value counts as unset, like most tools treat VAR= .
#define GSHMEMI_ENV(NAME, KIND, DEFAULT, DOC)                                              \
  {                                                                                        \
    const char *raw = lookup("GSHMEM_" #NAME, context);                                    \
    const bool set = raw && *raw;                                                          \
    if (!parse_##KIND(set ? raw : DEFAULT, &out->NAME, &why)) {                            \
      if (set && status == GSHMEM_SUCCESS) {                                               \
        status = GSHMEMX_ERROR_ENVIRONMENT;                                                \
        if (message)                                                                       \
          *message = std::string("GSHMEM_" #NAME "=") + raw + " is not valid: " + why;     \
      }                                                                                    \
      if (set) parse_##KIND(DEFAULT, &out->NAME, nullptr);                                 \
      if (!set) {                                                                          \
        status = GSHMEMX_ERROR_INTERNAL;                                                   \
        if (message) *message = "bad default in env.def for GSHMEM_" #NAME;                \
      }                                                                                    \
    }                                                                                      \
  }
#include "env.def"
#undef GSHMEMI_ENV
  return status;
}

namespace {

const char *process_lookup(const char *name, void *) { return std::getenv(name); }

std::mutex &env_mutex() {
  static std::mutex m;
  return m;
}

Env &current_env() {
  static Env e = [] {
    // Until the first init, the process environment as it is (bad values fall
    // back to defaults here; init reports them).
    Env d{};
    parse_env(process_lookup, nullptr, &d, nullptr);
    return d;
  }();
  return e;
}

}  // namespace

int load_env(Env *out, std::string *message) {
  Env parsed{};
  const int status = parse_env(process_lookup, nullptr, &parsed, message);
  {
    std::lock_guard<std::mutex> lock(env_mutex());
    current_env() = parsed;
  }
  if (out) *out = parsed;
  return status;
}

int load_env(Env *out) {
  std::string message;
  const int status = load_env(out, &message);
  if (status != GSHMEM_SUCCESS) return GSHMEMI_ERROR(status, "%s", message.c_str());
  return GSHMEM_SUCCESS;
}

const Env &env() { return current_env(); }

const char *raw_getenv(const char *name) { return std::getenv(name); }

bool launched_by_mpi() {
  // Variables the common launchers (Open MPI, MPICH/Hydra, PMIx, Slurm's PMI,
  // MVAPICH, Intel MPI) put into each process they start.
  static const char *const markers[] = {
      "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_SIZE", "PMI_RANK",
      "MPI_LOCALNRANKS", "MV2_COMM_WORLD_SIZE"};
  for (const char *name : markers)
    if (const char *v = std::getenv(name); v && *v) return true;
  return false;
}

}  // namespace gshmemi
