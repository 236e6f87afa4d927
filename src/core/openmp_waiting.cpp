// Passive OpenMP waiting by restarting the program (libgomp reads the policy only at load).
#include "softgrad/openmp_waiting.hpp"

#include <strings.h>
#include <unistd.h>

#include <cstdlib>

namespace softgrad {

void restart_with_passive_openmp_waiting(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT") || !argv || !argv[0]) return;
  if (setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("OMP_WAIT_POLICY");  // exec failed: this process keeps libgomp's default
}

const char* openmp_wait_policy() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  if (policy && strcasecmp(policy, "passive") == 0) return "passive";
  if (policy && strcasecmp(policy, "active") == 0) return "active";
  if (std::getenv("GOMP_SPINCOUNT")) return "spin GOMP_SPINCOUNT iterations, then sleep";
  return "default (spin, then sleep)";
}

}  // namespace softgrad
