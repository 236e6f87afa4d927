#include "softgrad/detail/memory_limit.hpp"

#include <unistd.h>

#include <atomic>
#include <climits>
#include <cmath>
#include <cstdio>

#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

std::atomic<double> chosen_limit{0.0};  // 0: half the physical memory

double physical_memory() {
  const double pages = static_cast<double>(sysconf(_SC_PHYS_PAGES));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  return pages > 0 && page > 0 ? pages * page : 0.0;
}

}  // namespace

double memory_limit() {
  const double chosen = chosen_limit.load();
  return chosen > 0.0 ? chosen : 0.5 * physical_memory();
}

void set_memory_limit(double bytes) {
  if (!(bytes >= 0.0) || !std::isfinite(bytes))
    throw InputError("the memory limit must be a positive number of bytes");
  chosen_limit.store(bytes);
}

void require_memory(double bytes, const std::string& what, double entries) {
  const double limit = memory_limit();
  char text[400];
  if (entries > static_cast<double>(INT_MAX)) {
    std::snprintf(text, sizeof text, "%s: %.3g values, more than one table can hold (%d)",
                  what.c_str(), entries, INT_MAX);
    throw InputError(text);
  }
  if (limit > 0.0 && !(bytes <= limit)) {
    std::snprintf(text, sizeof text,
                  "%s needs about %.3g GB, more than the memory limit of %.3g GB (%s; "
                  "--max-memory sets it)",
                  what.c_str(), bytes * 1e-9, limit * 1e-9,
                  chosen_limit.load() > 0.0 ? "set for this run" : "half of this machine's memory");
    throw InputError(text);
  }
}

}  // namespace softgrad
