// The parsed environment (the table is src/env.def).
//
// Parsing is pure and separate from reading, so that unit tests can feed
// values without touching the process environment. load_env() is the only
// place in the library that reads the process environment.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "log.h"

namespace gshmemi {

// One field per table row, named like the variable without its GSHMEM_ prefix.
struct Env {
  // Kinds of value, as spelled in env.def.
  using size = std::size_t;
  using seconds = double;
  using string = std::string;
  using level = LogLevel;
#define GSHMEMI_ENV(NAME, KIND, DEFAULT, DOC) KIND NAME;
  // `bool` is a keyword, so it needs no alias.
#include "env.def"
#undef GSHMEMI_ENV
};

// How a table row describes itself (for gshmem-info and error messages).
struct EnvVarInfo {
  const char *name;          // full name, "GSHMEM_SYMMETRIC_SIZE"
  const char *kind;          // "size", "bool", ...
  const char *default_text;  // as written in the table
  const char *doc;
};
GSHMEM_API const std::vector<EnvVarInfo> &env_table();

// Pure parsers: true on success. `error` (if given) receives why not.
GSHMEM_API bool parse_size(const std::string &text, std::size_t *out, std::string *error = nullptr);
GSHMEM_API bool parse_bool(const std::string &text, bool *out, std::string *error = nullptr);
GSHMEM_API bool parse_seconds(const std::string &text, double *out, std::string *error = nullptr);
GSHMEM_API bool parse_level(const std::string &text, LogLevel *out, std::string *error = nullptr);
GSHMEM_API bool parse_string(const std::string &text, std::string *out, std::string *error = nullptr);

// A parsed `seconds` value in nanoseconds, rounded down; past about 292
// years (what a signed 64-bit count holds) it stays at that largest count,
// which every user of a timeout or spin reads as "for ever".
GSHMEM_API long long seconds_to_ns(double seconds);

// True if `text` is a valid value for the variable `info` (the parser of its kind).
GSHMEM_API bool validate_env_value(const EnvVarInfo &info, const std::string &text, std::string *error);

// Looks up a variable: the raw text, or nullptr when unset. Pluggable so tests
// can parse a made-up environment.
using EnvLookup = const char *(*)(const char *name, void *context);

// Fills *out from `lookup` (defaults for unset variables). On a malformed
// value returns GSHMEMX_ERROR_ENVIRONMENT and sets *message to a sentence
// naming the variable and the value; the other fields keep their parsed or
// default values. Pure: logs nothing.
GSHMEM_API int parse_env(EnvLookup lookup, void *context, Env *out, std::string *message);

// parse_env over the process environment; reports a malformed value through
// GSHMEMI_ERROR. Called at every init, so a changed variable takes effect.
GSHMEM_API int load_env(Env *out);
// The same, but leaves reporting to the caller: *message gets the sentence.
GSHMEM_API int load_env(Env *out, std::string *message);

// The last environment loaded (defaults before the first load_env).
GSHMEM_API const Env &env();

// The process environment for things that are not GSHMEM_* settings: the
// launcher's variables (to detect mpirun) and CUDA_MODULE_LOADING.
GSHMEM_API const char *raw_getenv(const char *name);

// True when this process looks like it was started by an MPI launcher.
GSHMEM_API bool launched_by_mpi();

}  // namespace gshmemi
