#include "softgrad/mesh.hpp"

#include <Eigen/Geometry>
#include <cmath>
#include <sstream>
#include <vector>

#include "measure_tolerance.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"

namespace softgrad {
namespace {

[[noreturn]] void fail(const Mesh& mesh, const std::string& what) {
  throw InputError("mesh '" + mesh.source + "': " + what);
}

// Shape checks: dimension, column counts, at least one element.
void check_shape(const Mesh& mesh) {
  std::ostringstream os;
  if (mesh.dim != 2 && mesh.dim != 3) {
    os << "dim must be 2 (triangles) or 3 (tetrahedra), got " << mesh.dim;
    fail(mesh, os.str());
  }
  if (mesh.X.cols() != mesh.dim) {
    os << "X has " << mesh.X.cols() << " columns but dim is " << mesh.dim;
    fail(mesh, os.str());
  }
  if (mesh.elems.cols() != mesh.dim + 1) {
    os << "elements have " << mesh.elems.cols() << " vertices but a " << mesh.dim
       << "D simplex has " << mesh.dim + 1;
    fail(mesh, os.str());
  }
  if (mesh.n_elems() == 0) fail(mesh, "the mesh has no elements");
}

// Every coordinate finite; report the first bad vertex.
void check_finite(const Mesh& mesh) {
  for (int v = 0; v < mesh.n_verts(); ++v) {
    if (!mesh.X.row(v).allFinite()) {
      std::ostringstream os;
      os << "vertex " << v << " has a non-finite coordinate (" << mesh.X.row(v) << ")";
      fail(mesh, os.str());
    }
  }
}

// Every index in [0, n_verts); returns how many vertices no element references.
int check_indices(const Mesh& mesh) {
  std::vector<char> referenced(static_cast<size_t>(mesh.n_verts()), 0);
  for (int e = 0; e < mesh.n_elems(); ++e) {
    for (int k = 0; k < mesh.dim + 1; ++k) {
      const int v = mesh.elems(e, k);
      if (v < 0 || v >= mesh.n_verts()) {
        std::ostringstream os;
        os << "element " << e << " refers to vertex " << v << ", outside [0, " << mesh.n_verts()
           << ")";
        fail(mesh, os.str());
      }
      referenced[static_cast<size_t>(v)] = 1;
    }
  }
  int unreferenced = 0;
  for (char r : referenced) unreferenced += r ? 0 : 1;
  return unreferenced;
}

}  // namespace

namespace detail {

double degenerate_measure_tolerance(const Mesh& mesh) {
  if (mesh.n_verts() == 0) return 0.0;
  const double diag = (mesh.X.colwise().maxCoeff() - mesh.X.colwise().minCoeff()).norm();
  return kDegenerateRatio * std::pow(diag, mesh.dim);
}

}  // namespace detail

double signed_measure(const Mesh& mesh, int e) {
  SOFTGRAD_ASSERT(e >= 0 && e < mesh.n_elems());
  const auto x0 = mesh.X.row(mesh.elems(e, 0));
  if (mesh.dim == 2) {
    const Eigen::Vector2d a = mesh.X.row(mesh.elems(e, 1)) - x0;
    const Eigen::Vector2d b = mesh.X.row(mesh.elems(e, 2)) - x0;
    return 0.5 * (a.x() * b.y() - a.y() * b.x());
  }
  const Eigen::Vector3d a = mesh.X.row(mesh.elems(e, 1)) - x0;
  const Eigen::Vector3d b = mesh.X.row(mesh.elems(e, 2)) - x0;
  const Eigen::Vector3d c = mesh.X.row(mesh.elems(e, 3)) - x0;
  return a.dot(b.cross(c)) / 6.0;
}

void validate_mesh(const Mesh& mesh) {
  check_shape(mesh);
  check_finite(mesh);
  const int unreferenced = check_indices(mesh);

  // Positive measure above a tolerance relative to the mesh size (NaN-safe comparison).
  const double tol = detail::degenerate_measure_tolerance(mesh);
  for (int e = 0; e < mesh.n_elems(); ++e) {
    const double m = signed_measure(mesh, e);
    if (!(m > tol)) {
      std::ostringstream os;
      os << "element " << e << " is degenerate or inverted (signed "
         << (mesh.dim == 2 ? "area " : "volume ") << m << ", must exceed " << tol
         << "); fix the mesh or reorder the element's vertices";
      fail(mesh, os.str());
    }
  }

  if (unreferenced > 0) {
    std::ostringstream os;
    os << "mesh '" << mesh.source << "': " << unreferenced << " of " << mesh.n_verts()
       << " vertices are not referenced by any element (they get no mass or stiffness)";
    log(LogLevel::Warn, os.str());
  }
}

}  // namespace softgrad
