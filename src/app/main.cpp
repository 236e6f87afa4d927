// The softgrad command: a launcher that links nothing but libc. It chooses how idle OpenMP
// threads wait (GOMP_SPINCOUNT, which libgomp reads once, when it is loaded), then loads
// libsoftgrad, the library the Python module and plugins share, and runs the command line in it.
// One process, each library loaded once: a CPU run never maps the CUDA libraries, and nothing
// is loaded from the working directory (the library is found through this program's
// $ORIGIN-relative RUNPATH only).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "softgrad/openmp_waiting.hpp"

namespace {

constexpr const char* kLibrary = "libsoftgrad.so.0";

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT"))
    setenv("GOMP_SPINCOUNT", std::to_string(softgrad::kSpinCount).c_str(), 1);
  // RTLD_GLOBAL: plugins (--plugin) call the library's functions.
  void* library = dlopen(kLibrary, RTLD_NOW | RTLD_GLOBAL);
  if (!library) {
    std::fprintf(stderr, "softgrad: cannot load %s: %s\n", kLibrary, dlerror());
    return 1;
  }
  using CliMain = int (*)(int, char**);
  auto cli_main = reinterpret_cast<CliMain>(dlsym(library, "softgrad_cli_main"));
  if (!cli_main) {
    std::fprintf(stderr, "softgrad: %s has no softgrad_cli_main: %s\n", kLibrary, dlerror());
    return 1;
  }
  return cli_main(argc, argv);
}
