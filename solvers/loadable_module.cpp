#include "solvers/loadable_module.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>

namespace softgrad::detail {

namespace fs = std::filesystem;

fs::path module_dir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&module_dir), &info) || !info.dli_fname) return {};
  std::error_code ec;
  const fs::path self = fs::canonical(fs::path(info.dli_fname), ec);
  const fs::path here = ec ? fs::path(info.dli_fname).parent_path() : self.parent_path();
  // A program with softgrad linked in statically (dladdr names the executable): the build tree.
  const fs::path program = fs::canonical("/proc/self/exe", ec);
  if (!ec && program == self) return fs::path(SOFTGRAD_BUILD_LIBRARY_DIR);
  return here;
}

bool module_present(const std::string& file) {
  std::error_code ec;
  return fs::is_regular_file(module_dir() / file, ec);
}

void* open_module(const std::string& file, std::string& why) {
  static std::mutex mutex;
  static std::map<std::string, void*> opened;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = opened.find(file); it != opened.end()) return it->second;
  const fs::path path = module_dir() / file;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    why = "module " + path.string() + " is not installed";
    return nullptr;
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* error = dlerror();
    why = "cannot load " + path.string() + ": " + (error ? error : "unknown error");
    return nullptr;
  }
  opened[file] = handle;
  return handle;
}

void* module_symbol(void* handle, const char* symbol, std::string& why) {
  dlerror();
  void* address = dlsym(handle, symbol);
  if (!address) {
    const char* error = dlerror();
    why = std::string("module has no ") + symbol + ": " + (error ? error : "null symbol");
  }
  return address;
}

}  // namespace softgrad::detail
