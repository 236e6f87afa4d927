/// @file plugin.hpp
/// User materials for the command line: a shared library that registers them, loaded with
/// `softgrad <command> --plugin FILE`, `softgrad.load_plugin(FILE)` in Python, or a scene's
/// "plugins" list where the user allows it (ScenePlugins in scene.hpp). A plugin is one source
/// file:
///
///   #include "softgrad/plugin.hpp"
///   struct MyMaterial { ... };  // a density psi(F), as in hyperelastic_model.hpp
///   SOFTGRAD_PLUGIN { softgrad::register_material<MyMaterial>(); }
///
/// built against an installed softgrad with
///
///   find_package(softgrad REQUIRED)
///   softgrad_add_plugin(my_plugin my_plugin.cpp)
///
/// (examples/plugin). A plugin links none of softgrad's libraries: the functions it calls are
/// those of the program that loads it, so that it registers into that program's registry. It
/// must be built with the headers of the same softgrad version.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "softgrad/config.hpp"
#include "softgrad/hyperelastic_model.hpp"

/// Defines the plugin's entry point; the braces that follow are its body, which registers the
/// plugin's materials (register_material<...>()).
/// The version it was built with is data (softgrad_plugin_version), so that load_plugin reads it
/// from the file and refuses a plugin of another version before any of its code runs.
#define SOFTGRAD_PLUGIN                                                                    \
  extern "C" __attribute__((visibility("default"))) const char softgrad_plugin_version[] = \
      SOFTGRAD_VERSION;                                                                    \
  extern "C" __attribute__((visibility("default"))) void softgrad_register_plugin()

namespace softgrad {

/// Loads the plugin `file` and runs its registration, once per file (a second call with the
/// same file does nothing and returns no names). Returns the names of the materials it
/// registered. The library stays loaded until the program ends (its materials live in it).
/// Before the loader runs any of the file's code (its constructors run when it is opened), the
/// file must be a regular file that no other user can have written (owned by this user or root,
/// not writable by everyone, nor by a group when another user owns it) and an ELF shared library
/// for this machine whose dynamic symbols include SOFTGRAD_PLUGIN's entry point and its version
/// mark, built with this softgrad version (read from the file).
/// @throws InputError naming the file when it does not exist, is a folder or another user's,
/// is writable by others, is not such a library, cannot be loaded (with the loader's reason,
/// e.g. a symbol this program does not have), was built with another softgrad version, or
/// registers a material under the name of one that is already registered (built in or from
/// another plugin).
std::vector<std::string> load_plugin(const std::filesystem::path& file);

/// Whether load_plugin has loaded `file` (the same file by any path).
bool plugin_loaded(const std::filesystem::path& file);

/// The files load_plugin has loaded in this process (canonical paths, sorted).
std::vector<std::string> loaded_plugin_files();

}  // namespace softgrad
