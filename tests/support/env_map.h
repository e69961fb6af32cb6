// Variables for the environment table's readers (src/env.h) taken from a
// map instead of the process environment, so that a test can set them
// without touching getenv: pass env_map_lookup with the map as context.
#pragma once

#include <map>
#include <string>

namespace gshmem_test {

inline const char *env_map_lookup(const char *name, void *context) {
  const auto *vars = static_cast<const std::map<std::string, std::string> *>(context);
  const auto it = vars->find(name);
  return it == vars->end() ? nullptr : it->second.c_str();
}

}  // namespace gshmem_test
