// A plugin whose code leaves a mark: its constructor (run by the loader when the library is
// opened, before any entry point is called) appends a line to the file named by
// SOFTGRAD_TEST_PLUGIN_MARKER. The tests check that a refused plugin left no mark.
#include <cstdio>
#include <cstdlib>

#include "softgrad/config.hpp"

__attribute__((constructor)) static void leave_mark() {
  if (const char* file = std::getenv("SOFTGRAD_TEST_PLUGIN_MARKER"))
    if (FILE* f = std::fopen(file, "a")) {
      std::fputs("constructor ran\n", f);
      std::fclose(f);
    }
}

extern "C" __attribute__((visibility("default"))) const char softgrad_plugin_version[] =
    SOFTGRAD_VERSION;
extern "C" __attribute__((visibility("default"))) void softgrad_register_plugin() {}
