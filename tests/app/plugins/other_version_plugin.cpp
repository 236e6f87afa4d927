// A plugin that says it was built with another softgrad version, and whose constructor leaves
// the same mark as marker_plugin.cpp: the version is read from the file, so the refusal comes
// before the loader runs any of its code.
#include <cstdio>
#include <cstdlib>

__attribute__((constructor)) static void leave_mark() {
  if (const char* file = std::getenv("SOFTGRAD_TEST_PLUGIN_MARKER"))
    if (FILE* f = std::fopen(file, "a")) {
      std::fputs("constructor ran\n", f);
      std::fclose(f);
    }
}

extern "C" __attribute__((visibility("default"))) const char softgrad_plugin_version[] = "0.0.1";
extern "C" __attribute__((visibility("default"))) void softgrad_register_plugin() {}
