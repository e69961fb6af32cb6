// printf-style formatting into a std::string, for error messages.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace gshmemi {

// Messages longer than 511 characters are cut.
inline std::string string_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string string_printf(const char *fmt, ...) {
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

}  // namespace gshmemi
