// Filling a closed surface with tetrahedra: TetGen (Debian's libtet1.5-dev), in a module of its
// own (libsoftgrad_tetgen.so, AGPL-3) opened on the first surface, else a clear error.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "orient_elements.hpp"
#include "softgrad/config.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"
#include "solvers/loadable_module.hpp"
#include "surface_check.hpp"
#include "tetgen_module.hpp"
#include "text_output.hpp"

namespace softgrad {
namespace {

constexpr const char* kTetgenModule = "libsoftgrad_tetgen.so";

std::string tetgen_failure(int code) {
  switch (code) {
    case 1:
      return "out of memory";
    case 3:
      return "the surface intersects itself";
    case 4:
      return "a feature of the surface is too small for TetGen's tolerance";
    case 5:
      return "two facets of the surface are too close to each other";
    case 10:
      return "TetGen refused the input (is the surface closed?)";
    default:
      return "TetGen failed (code " + std::to_string(code) + ")";
  }
}

// The module's two functions; throws InputError naming `where` when it cannot be had.
std::pair<SoftgradTetgenFill, SoftgradTetgenFree> tetgen_functions(const std::string& where) {
  std::string why;
  void* module = SOFTGRAD_HAS_TETGEN ? detail::open_module(kTetgenModule, why) : nullptr;
  void* fill = module ? detail::module_symbol(module, "softgrad_tetgen_fill", why) : nullptr;
  void* release = fill ? detail::module_symbol(module, "softgrad_tetgen_free", why) : nullptr;
  if (!release) {
    throw InputError(where + ": this build of softgrad cannot fill surfaces with tetrahedra (" +
                     (SOFTGRAD_HAS_TETGEN ? why : std::string("built without TetGen")) +
                     "): install Debian's libtet1.5-dev (TetGen, AGPL-3) and rebuild with "
                     "-DSOFTGRAD_WITH_TETGEN=ON, or give a tetrahedral mesh (.msh, .node/.ele)");
  }
  return {reinterpret_cast<SoftgradTetgenFill>(fill),
          reinterpret_cast<SoftgradTetgenFree>(release)};
}

// What the child sends back through the pipe: code, n_points, n_tets, then the arrays.
struct TetgenOutput {
  int code = -1;
  int n_tets = 0;
  std::vector<double> points;
  std::vector<int> tets;
};

// TetGen's limits for one surface: its wall time, and the memory it may add to this process's.
constexpr double kTetgenSeconds = 45.0;
constexpr rlim_t kTetgenBytes = rlim_t(8) << 30;
// Where refinement would make more tetrahedra than this, it is refused before TetGen runs (a
// simulation of this size would take hours per second of motion on a workstation anyway).
constexpr double kMaxFilledTets = 2e6;

// The address space this process uses now (the child starts with a copy of it).
rlim_t address_space_now() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (f) {
    if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
}

[[noreturn]] void run_tetgen_child(SoftgradTetgenFill fill, SoftgradTetgenFree release,
                                   const char* switches, const std::vector<double>& points,
                                   const std::vector<int>& triangles, int fd, rlim_t memory) {
  // Ctrl-C and SIGTERM stop TetGen at once (the parent's handlers only set flags).
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  // TetGen reports failed assertions on stderr before it aborts: the parent explains instead.
  const int null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
  const rlimit limit{memory, memory};
  setrlimit(RLIMIT_AS, &limit);
  SoftgradTetgenResult out{};
  const int n_points = static_cast<int>(points.size() / 3);
  const int n_triangles = static_cast<int>(triangles.size() / 3);
  // First TetGen's self-intersection check (-d, exact predicates): its meshing trusts the
  // surface and may crash on one that intersects itself.
  fill("pdzQ", points.data(), n_points, triangles.data(), n_triangles, &out);
  if (out.code == 0 && switches) {  // (none: the check alone)
    release(&out);
    fill(switches, points.data(), n_points, triangles.data(), n_triangles, &out);
  }
  const int header[3] = {out.code, out.code == 0 ? out.n_points : 0,
                         out.code == 0 ? out.n_tets : 0};
  bool ok = detail::write_all(fd, header, sizeof header);
  if (ok && out.code == 0)
    ok =
        detail::write_all(fd, out.points, sizeof(double) * 3 * static_cast<size_t>(out.n_points)) &&
        detail::write_all(fd, out.tets, sizeof(int) * 4 * static_cast<size_t>(out.n_tets));
  release(&out);
  _exit(ok ? 0 : 1);  // no atexit handlers, no static destructors: they belong to the parent
}

// Runs TetGen in a child process with a time and a memory budget, so that a crash (TetGen
// dies on some bad surfaces: a segmentation fault or a failed assertion) or a runaway
// refinement is an InputError naming the file, and the program goes on.
TetgenOutput fill_in_child(SoftgradTetgenFill fill, SoftgradTetgenFree release,
                           const char* switches, const std::vector<double>& points,
                           const std::vector<int>& triangles, const std::string& where) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw InputError(where + ": cannot start TetGen: " + std::strerror(errno));
  const rlim_t memory = address_space_now() + kTetgenBytes;
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(fds[0]);
    close(fds[1]);
    throw InputError(where + ": cannot start TetGen: " + std::strerror(error));
  }
  if (pid == 0) {
    close(fds[0]);
    run_tetgen_child(fill, release, switches, points, triangles, fds[1], memory);
  }
  close(fds[1]);
  std::string bytes;
  const auto start = std::chrono::steady_clock::now();
  bool timed_out = false;
  for (char buffer[1 << 16];;) {
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > kTetgenSeconds) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, 200);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end: done or dead
    bytes.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    throw InputError(where + ": TetGen did not finish within " +
                     std::to_string(static_cast<int>(kTetgenSeconds)) +
                     " s; relax the refinement (a larger max_volume, a quality bound of 1.4 or "
                     "more) or give a tetrahedral mesh");
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGINT || sig == SIGTERM) throw InputError(where + ": TetGen was interrupted");
    throw InputError(where + ": TetGen crashed (" + strsignal(sig) +
                     ") filling this surface: it is probably not a closed surface without "
                     "self-intersections, duplicated or degenerate faces (or it needed more than " +
                     std::to_string(kTetgenBytes >> 30) +
                     " GiB); repair it, or give a tetrahedral mesh (.msh, .node/.ele)");
  }
  TetgenOutput out;
  int header[3];
  if (bytes.size() < sizeof header || WEXITSTATUS(status) != 0)
    throw InputError(where + ": TetGen stopped without a result (exit status " +
                     std::to_string(WEXITSTATUS(status)) + ")");
  std::memcpy(header, bytes.data(), sizeof header);
  out.code = header[0];
  const size_t n_points = static_cast<size_t>(std::max(header[1], 0));
  const size_t n_tets = static_cast<size_t>(std::max(header[2], 0));
  if (bytes.size() != sizeof header + sizeof(double) * 3 * n_points + sizeof(int) * 4 * n_tets)
    throw InputError(where + ": TetGen's result came back incomplete");
  out.points.resize(3 * n_points);
  out.tets.resize(4 * n_tets);
  out.n_tets = static_cast<int>(n_tets);
  if (n_points > 0)  // (memcpy from or to an empty vector's null data() is undefined)
    std::memcpy(out.points.data(), bytes.data() + sizeof header,
                sizeof(double) * out.points.size());
  if (n_tets > 0)
    std::memcpy(out.tets.data(), bytes.data() + sizeof header + sizeof(double) * out.points.size(),
                sizeof(int) * out.tets.size());
  for (const int v : out.tets)
    if (v < 0 || static_cast<size_t>(v) >= n_points)
      throw InputError(where + ": TetGen's result names a point that does not exist");
  return out;
}

// The volume the surface encloses (divergence theorem; its magnitude, whatever the orientation).
double surface_enclosed_volume(const SurfaceMesh& s) {
  double six_v = 0.0;
  for (Eigen::Index t = 0; t < s.triangles.rows(); ++t) {
    const Eigen::Vector3d a = s.X.row(s.triangles(t, 0)), b = s.X.row(s.triangles(t, 1)),
                          c = s.X.row(s.triangles(t, 2));
    six_v += a.dot(b.cross(c));
  }
  return std::abs(six_v) / 6.0;
}

}  // namespace

bool has_tetgen() {
  std::string why;
  return SOFTGRAD_HAS_TETGEN && detail::open_module(kTetgenModule, why) != nullptr;
}

namespace {

// Row-major copies of a surface for the module's C interface (Eigen's are column-major here).
std::pair<std::vector<double>, std::vector<int>> flat_copies(const SurfaceMesh& surface) {
  std::vector<double> points(static_cast<size_t>(surface.X.rows()) * 3);
  for (Eigen::Index i = 0; i < surface.X.rows(); ++i)
    for (int k = 0; k < 3; ++k) points[3 * i + k] = surface.X(i, k);
  std::vector<int> triangles(static_cast<size_t>(surface.triangles.rows()) * 3);
  for (Eigen::Index t = 0; t < surface.triangles.rows(); ++t)
    for (int k = 0; k < 3; ++k) triangles[3 * t + k] = surface.triangles(t, k);
  return {std::move(points), std::move(triangles)};
}

const std::string& name_of(const SurfaceMesh& surface) {
  static const std::string unnamed = "surface";
  return surface.source.empty() ? unnamed : surface.source;
}

// The checks without TetGen: coordinates in range, then detail::check_closed_surface.
void check_surface_shape(const SurfaceMesh& surface) {
  const std::string& where = name_of(surface);
  // Coordinates this large overflow TetGen's exact predicates (it asserts and dies).
  if (surface.X.size() > 0 && !(surface.X.cwiseAbs().maxCoeff() <= 1e100))
    throw InputError(where + ": coordinates of magnitude " +
                     detail::number_text(surface.X.cwiseAbs().maxCoeff()) +
                     " or non-finite ones cannot be filled with tetrahedra (at most 1e100)");
  detail::check_closed_surface(surface, where);
}

}  // namespace

void check_surface(const SurfaceMesh& surface) {
  check_surface_shape(surface);
  if (!has_tetgen()) return;
  const std::string& where = name_of(surface);
  const auto [fill, release] = tetgen_functions(where);
  const auto [points, triangles] = flat_copies(surface);
  const TetgenOutput out = fill_in_child(fill, release, nullptr, points, triangles, where);
  if (out.code != 0) throw InputError(where + ": " + tetgen_failure(out.code));
}

Mesh tetrahedralise(const SurfaceMesh& surface, const TetrahedraliseOptions& options) {
  const std::string& where = name_of(surface);
  // Below about 1.1 TetGen's refinement may never end (its manual).
  if (!(options.max_radius_edge >= 1.1) || !std::isfinite(options.max_radius_edge))
    throw InputError(where + ": quality (the radius-edge bound) must be a number >= 1.1, got " +
                     std::to_string(options.max_radius_edge));
  if (!(options.max_volume >= 0.0) || !std::isfinite(options.max_volume))
    throw InputError(where + ": max_volume must be >= 0 (0: no bound)");
  check_surface_shape(surface);
  const double volume = surface_enclosed_volume(surface);
  if (options.max_volume > 0.0 && volume / options.max_volume > kMaxFilledTets)
    throw InputError(where + ": max_volume " + detail::number_text(options.max_volume) +
                     " would make about " + detail::number_text(volume / options.max_volume) +
                     " tetrahedra in the enclosed volume " + detail::number_text(volume) +
                     ", more than the limit of " + detail::number_text(kMaxFilledTets) +
                     "; choose a larger max_volume");
  const auto [fill, release] = tetgen_functions(where);
  const auto [points, triangles] = flat_copies(surface);
  // p: a piecewise linear complex; q: radius-edge ratio bound; a: volume bound; z: 0-based;
  // Q: quiet.
  char switches[96];
  if (options.max_volume > 0.0) {
    std::snprintf(switches, sizeof switches, "pq%.6ga%.6gzQ", options.max_radius_edge,
                  options.max_volume);
  } else {
    std::snprintf(switches, sizeof switches, "pq%.6gzQ", options.max_radius_edge);
  }
  const TetgenOutput out = fill_in_child(fill, release, switches, points, triangles, where);
  if (out.code != 0)
    throw InputError(where +
                     ": cannot fill the surface with tetrahedra: " + tetgen_failure(out.code));
  if (out.n_tets <= 0)
    throw InputError(where + ": TetGen made no tetrahedra (is the surface closed?)");
  Mesh mesh;
  mesh.dim = 3;
  mesh.source = where + " (tetrahedralised)";
  const int n_points = static_cast<int>(out.points.size() / 3);
  mesh.X.resize(n_points, 3);
  for (int i = 0; i < n_points; ++i)
    for (int k = 0; k < 3; ++k) mesh.X(i, k) = out.points[3 * i + k];
  mesh.elems.resize(out.n_tets, 4);
  std::vector<detail::ElementOrigin> origins(out.n_tets);
  for (int e = 0; e < out.n_tets; ++e) {
    for (int k = 0; k < 4; ++k) mesh.elems(e, k) = out.tets[4 * e + k];
    origins[e] = {0, e};
  }
  detail::orient_elements(mesh, origins, mesh.source);
  return mesh;
}

}  // namespace softgrad
