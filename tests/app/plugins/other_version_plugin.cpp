// A plugin that says it was built with another softgrad version.
extern "C" __attribute__((visibility("default"))) const char* softgrad_plugin_version() {
  return "0.0.1";
}
extern "C" __attribute__((visibility("default"))) void softgrad_register_plugin() {}
