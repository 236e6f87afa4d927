// `softgrad render OUT_DIR [...]`: pictures of a run, drawn by the Python package's renderer
// (softgrad.render: meshio reads the frames, matplotlib draws them). This command finds the
// package beside the library that runs it and hands the arguments to it in a Python process of
// its own.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "softgrad/errors.hpp"
#include "solvers/loadable_module.hpp"

#ifndef SOFTGRAD_RENDER_PYTHON
#define SOFTGRAD_RENDER_PYTHON "/usr/bin/python3"
#endif

namespace softgrad::app {
namespace {

namespace fs = std::filesystem;

// The folder that holds the `softgrad` package for this library: a wheel puts the library in the
// package (site-packages/softgrad/libsoftgrad.so.0), the build tree in build/lib beside
// build/python, a CMake install in lib/ beside lib/pythonX.Y/dist-packages.
fs::path package_parent() {
  const fs::path lib_dir = detail::module_dir();  // libsoftgrad's folder, as for its modules
  std::vector<fs::path> candidates = {lib_dir.parent_path(), lib_dir.parent_path() / "python"};
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(lib_dir, ec))
    if (entry.path().filename().string().rfind("python", 0) == 0) {
      candidates.push_back(entry.path() / "dist-packages");
      candidates.push_back(entry.path() / "site-packages");
    }
  for (const fs::path& c : candidates)
    if (fs::is_regular_file(c / "softgrad" / "render.py", ec)) return c;
  throw InputError(
      "render: the softgrad Python package (softgrad/render.py) is not installed "
      "beside " +
      lib_dir.string() + "; install it with `pip install .`");
}

}  // namespace

int run_render(const std::vector<std::string>& args) {
  const fs::path parent = package_parent();
  const char* old = std::getenv("PYTHONPATH");
  const std::string path = parent.string() + (old && *old ? ":" + std::string(old) : "");
  setenv("PYTHONPATH", path.c_str(), 1);
  // The interpreter of the environment this program is installed in (a venv's bin/), else the
  // build's, else Debian's.
  std::error_code ec;
  const fs::path bin = fs::canonical("/proc/self/exe", ec).parent_path();
  const fs::path beside = bin / "python3";
  std::string python = "/usr/bin/python3";
  if (!ec && fs::exists(bin.parent_path() / "pyvenv.cfg", ec) && fs::exists(beside, ec)) {
    python = beside.string();
  } else if (fs::exists(SOFTGRAD_RENDER_PYTHON, ec)) {
    python = SOFTGRAD_RENDER_PYTHON;
  }
  std::vector<std::string> argv_text = {python, "-m", "softgrad.render"};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  throw InputError("render: cannot start " + python + ": " + std::strerror(errno));
}

Command add_render_command(CLI::App& program) {
  // Listed in --help only: run_cli hands `render ...` to run_render before parsing, so that every
  // argument (--help included) reaches the renderer.
  CLI::App* sub = program.add_subcommand(
      "render", "Pictures of a run's frames (PNG, GIF or MP4): softgrad render OUT_DIR --help");
  return {sub, [](const Console&) -> int { return run_render({}); }};
}

}  // namespace softgrad::app
