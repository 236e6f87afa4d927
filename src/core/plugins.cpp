// Loading user plugins (plugin.hpp): dlopen, a version check, registration, and a check that
// no registered material was replaced.
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <set>

#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"
#include "softgrad/plugin.hpp"

namespace softgrad {
namespace {

// Re-opens the shared library this code is part of with RTLD_GLOBAL (RTLD_NOLOAD: never loads
// anything new); nothing to do when softgrad is linked into the program itself.
void promote_library_to_global() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&promote_library_to_global), &info) || !info.dli_fname)
    return;
  if (void* self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) dlclose(self);
}

std::mutex& plugins_mutex() {
  static std::mutex m;
  return m;
}

std::set<std::string>& loaded_plugins() {
  static std::set<std::string> files;
  return files;
}

std::map<std::string, std::shared_ptr<const MaterialModel>> registered() {
  std::map<std::string, std::shared_ptr<const MaterialModel>> by_name;
  for (auto& m : all_materials()) by_name[m->name()] = m;
  return by_name;
}

}  // namespace

std::vector<std::string> load_plugin(const std::filesystem::path& file) {
  const std::string where = "plugin '" + file.string() + "'";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(where + ": no such file");
  const std::string canonical = std::filesystem::canonical(file, ec).string();
  std::lock_guard<std::mutex> lock(plugins_mutex());
  if (loaded_plugins().count(canonical)) return {};

  // A plugin calls the library's functions: when libsoftgrad came in privately (as the Python
  // module's dependency), make its symbols visible to what is loaded next.
  promote_library_to_global();
  // RTLD_NOW: a symbol the program lacks is an error here, not a crash in the middle of a run.
  void* handle = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* reason = dlerror();
    throw InputError(where + ": cannot load it: " + (reason ? reason : "unknown reason"));
  }
  using VersionFn = const char* (*)();
  using RegisterFn = void (*)();
  const auto version = reinterpret_cast<VersionFn>(dlsym(handle, "softgrad_plugin_version"));
  const auto register_fn = reinterpret_cast<RegisterFn>(dlsym(handle, "softgrad_register_plugin"));
  if (!version || !register_fn) {
    dlclose(handle);
    throw InputError(where +
                     " is not a softgrad plugin: it defines no entry point (SOFTGRAD_PLUGIN in "
                     "softgrad/plugin.hpp)");
  }
  if (std::string(version()) != SOFTGRAD_VERSION) {
    const std::string built_with = version();
    dlclose(handle);
    throw InputError(where + " was built with softgrad " + built_with + ", this is softgrad " +
                     SOFTGRAD_VERSION + "; rebuild it against this version");
  }

  const auto before = registered();
  register_fn();
  loaded_plugins().insert(canonical);  // its code now backs registered models: never unloaded
  std::vector<std::string> added;
  std::string replaced;
  for (const auto& [name, model] : registered()) {
    const auto old = before.find(name);
    if (old == before.end()) {
      added.push_back(name);
    } else if (old->second != model) {
      register_material_model(old->second);  // keep the one already in use
      replaced += (replaced.empty() ? "'" : ", '") + name + "'";
    }
  }
  if (!replaced.empty())
    throw InputError(where + " registers " + replaced +
                     ", a name already registered; rename its material");
  if (added.empty()) log(LogLevel::Warn, where + " registered no material");
  return added;
}

}  // namespace softgrad
