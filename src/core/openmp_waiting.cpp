// Bounded OpenMP spinning by restarting the program (libgomp reads its settings only at load).
#include "softgrad/openmp_waiting.hpp"

#include <strings.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace softgrad {

void restart_with_bounded_openmp_waiting(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT") || !argv || !argv[0]) return;
  if (setenv("GOMP_SPINCOUNT", std::to_string(kSpinCount).c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("GOMP_SPINCOUNT");  // exec failed: this process keeps libgomp's default
}

const char* openmp_wait_policy() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  if (policy && strcasecmp(policy, "passive") == 0) return "passive";
  if (policy && strcasecmp(policy, "active") == 0) return "active";
  if (const char* spins = std::getenv("GOMP_SPINCOUNT")) {
    static const std::string text = std::string("spin ") + spins + " iterations, then sleep";
    return text.c_str();
  }
  return "default (spin, then sleep)";
}

}  // namespace softgrad
