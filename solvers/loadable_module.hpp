/// @file loadable_module.hpp
/// softgrad's own loadable modules (the CUDA backend, the TetGen mesher): shared libraries that
/// sit beside libsoftgrad and are opened only when a run needs them, so that a run that does not
/// never maps their libraries (CUDA's) or links their licence (TetGen's AGPL-3). Modules are
/// opened by absolute path from the library's own folder, never searched for elsewhere. Lives in
/// softgrad_solvers, the lowest layer that opens one.
#pragma once

#include <filesystem>
#include <string>

namespace softgrad::detail {

/// The folder softgrad's modules live in: that of the shared library (or program) this code was
/// linked into; in a program linked with softgrad's archives (the test suites), the build's
/// library folder.
std::filesystem::path module_dir();

/// Whether module `file` (e.g. "libsoftgrad_tetgen.so") is present in module_dir().
bool module_present(const std::string& file);

/// Opens module `file` from module_dir() (RTLD_NOW | RTLD_LOCAL, once; later calls return the
/// same handle). Returns nullptr and sets `why` when it is absent or fails to load.
void* open_module(const std::string& file, std::string& why);

/// The address of `symbol` in module `handle`, or nullptr with `why` set.
void* module_symbol(void* handle, const char* symbol, std::string& why);

}  // namespace softgrad::detail
