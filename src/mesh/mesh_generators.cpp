#include "softgrad/mesh_generators.hpp"

#include <array>
#include <climits>
#include <cmath>
#include <sstream>

#include "softgrad/errors.hpp"
#include "softgrad/mesh.hpp"

namespace softgrad {
namespace {

// A generated mesh above this size would exhaust memory long before it simulated.
constexpr long long kMaxGeneratedElements = 100'000'000;

// Resolutions >= 1, finite positive sizes, finite origin, and at most kMaxGeneratedElements
// vertices and elements.
template <int d>
void check_arguments(const char* generator, const std::array<int, d>& n,
                     const Eigen::Matrix<double, d, 1>& size,
                     const Eigen::Matrix<double, d, 1>& origin, long long elems_per_cell) {
  const char* names[3] = {"nx", "ny", "nz"};
  std::ostringstream os;
  os << generator << ": ";
  long long n_verts = 1;
  long long n_elems = elems_per_cell;
  for (int k = 0; k < d; ++k) {
    if (n[k] < 1) {
      os << names[k] << " must be >= 1, got " << n[k];
      throw InputError(os.str());
    }
    if (!(size[k] > 0) || !std::isfinite(size[k])) {
      os << "size[" << k << "] must be finite and positive, got " << size[k];
      throw InputError(os.str());
    }
    if (!std::isfinite(origin[k])) {
      os << "origin[" << k << "] must be finite, got " << origin[k];
      throw InputError(os.str());
    }
    n_verts *= n[k] + 1LL;
    n_elems *= n[k];
    if (n_verts > kMaxGeneratedElements || n_elems > kMaxGeneratedElements) break;
  }
  if (n_verts > kMaxGeneratedElements || n_elems > kMaxGeneratedElements) {
    os << "resolution too large: the mesh would have more than " << kMaxGeneratedElements
       << " vertices or elements (tens of GB before the first step)";
    throw InputError(os.str());
  }
}

}  // namespace

Mesh box_tet_mesh(int nx, int ny, int nz, const Eigen::Vector3d& size,
                  const Eigen::Vector3d& origin) {
  check_arguments<3>("box_tet_mesh", {nx, ny, nz}, size, origin, 6);
  Mesh mesh;
  mesh.dim = 3;
  std::ostringstream source;
  source << "box_tet_mesh(" << nx << "x" << ny << "x" << nz << ")";
  mesh.source = source.str();

  // Lattice vertices, x fastest.
  const int sx = nx + 1, sy = ny + 1, sz = nz + 1;
  mesh.X.resize(sx * sy * sz, 3);
  for (int k = 0; k < sz; ++k)
    for (int j = 0; j < sy; ++j)
      for (int i = 0; i < sx; ++i) {
        const int v = i + sx * (j + sy * k);
        mesh.X(v, 0) = origin.x() + size.x() * i / nx;
        mesh.X(v, 1) = origin.y() + size.y() * j / ny;
        mesh.X(v, 2) = origin.z() + size.z() * k / nz;
      }

  // Kuhn subdivision: one tetrahedron per axis order p, on the path 000 -> 111 that steps along
  // p[0], then p[1], then p[2]. Odd permutations are negatively oriented: swap two vertices.
  constexpr int kPerms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  const int stride[3] = {1, sx, sx * sy};
  mesh.elems.resize(6 * nx * ny * nz, 4);
  int e = 0;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const int v000 = i + sx * (j + sy * k);
        for (int p = 0; p < 6; ++p) {
          const int v1 = v000 + stride[kPerms[p][0]];
          const int v2 = v1 + stride[kPerms[p][1]];
          const int v3 = v2 + stride[kPerms[p][2]];
          const bool even = p < 3;
          mesh.elems.row(e++) << v000, even ? v1 : v2, even ? v2 : v1, v3;
        }
      }
  return mesh;
}

Mesh ball_tet_mesh(int n, const Eigen::Vector3d& size, const Eigen::Vector3d& origin) {
  check_arguments<3>("ball_tet_mesh", {n, n, n}, size, origin, 6);
  Mesh mesh =
      box_tet_mesh(n, n, n, Eigen::Vector3d::Constant(2.0), Eigen::Vector3d::Constant(-1.0));
  for (int v = 0; v < mesh.n_verts(); ++v) {
    const Eigen::Vector3d p = mesh.X.row(v).transpose();
    const double r = p.norm();
    const Eigen::Vector3d q = r > 0.0 ? Eigen::Vector3d(p * (p.lpNorm<Eigen::Infinity>() / r)) : p;
    mesh.X.row(v) = (origin + 0.5 * (q + Eigen::Vector3d::Ones()).cwiseProduct(size)).transpose();
  }
  mesh.source = "ball_tet_mesh(" + std::to_string(n) + ")";
  return mesh;
}

Mesh rectangle_tri_mesh(int nx, int ny, const Eigen::Vector2d& size,
                        const Eigen::Vector2d& origin) {
  check_arguments<2>("rectangle_tri_mesh", {nx, ny}, size, origin, 2);
  Mesh mesh;
  mesh.dim = 2;
  std::ostringstream source;
  source << "rectangle_tri_mesh(" << nx << "x" << ny << ")";
  mesh.source = source.str();

  const int sx = nx + 1, sy = ny + 1;
  mesh.X.resize(sx * sy, 2);
  for (int j = 0; j < sy; ++j)
    for (int i = 0; i < sx; ++i) {
      mesh.X(i + sx * j, 0) = origin.x() + size.x() * i / nx;
      mesh.X(i + sx * j, 1) = origin.y() + size.y() * j / ny;
    }

  // Cell corners a (i,j), b (i+1,j), c (i+1,j+1), d (i,j+1); diagonal a-c or b-d alternating.
  mesh.elems.resize(2 * nx * ny, 3);
  int e = 0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int a = i + sx * j, b = a + 1, c = b + sx, d = a + sx;
      if ((i + j) % 2 == 0) {
        mesh.elems.row(e++) << a, b, c;
        mesh.elems.row(e++) << a, c, d;
      } else {
        mesh.elems.row(e++) << a, b, d;
        mesh.elems.row(e++) << b, c, d;
      }
    }
  return mesh;
}

Mesh disk_tri_mesh(int rings, int sectors, const Eigen::Vector2d& size,
                   const Eigen::Vector2d& origin) {
  // Checked as rings x sectors cells of `rings` elements each: sectors rings^2 triangles fit in an
  // int, and so do the 1 + sectors rings (rings + 1) / 2 <= 1 + sectors rings^2 vertices.
  if (rings < 1)
    throw InputError("disk_tri_mesh: rings must be >= 1, got " + std::to_string(rings));
  check_arguments<2>("disk_tri_mesh", {rings, sectors}, size, origin, rings * 1LL);
  if (sectors < 3)
    throw InputError("disk_tri_mesh: sectors must be >= 3, got " + std::to_string(sectors));
  Mesh mesh;
  mesh.dim = 2;
  mesh.source =
      "disk_tri_mesh(" + std::to_string(rings) + " rings, " + std::to_string(sectors) + " sectors)";
  const Eigen::Vector2d centre = origin + size / 2, half = size / 2;
  const double two_pi = 6.283185307179586;
  // Ring k (0 = the centre) has sectors k vertices, the first at angle 0.
  const auto first = [&](int k) { return k == 0 ? 0 : 1 + sectors * k * (k - 1) / 2; };
  const auto count = [&](int k) { return k == 0 ? 1 : sectors * k; };
  mesh.X.resize(first(rings + 1), 2);
  for (int k = 0; k <= rings; ++k)
    for (int i = 0; i < count(k); ++i) {
      const double t = two_pi * i / count(k), r = static_cast<double>(k) / rings;
      mesh.X.row(first(k) + i) << centre.x() + half.x() * r * std::cos(t),
          centre.y() + half.y() * r * std::sin(t);
    }
  // Zip ring k - 1 to ring k by angle: each triangle advances along one ring, counter-clockwise.
  mesh.elems.resize(sectors * rings * rings, 3);
  int e = 0;
  for (int k = 1; k <= rings; ++k) {
    const int m = count(k - 1), M = count(k);
    int i = 0, j = 0;
    const auto inner = [&](int a) { return first(k - 1) + a % m; };
    const auto outer = [&](int b) { return first(k) + b % M; };
    while (i < (k == 1 ? 0 : m) || j < M) {
      const bool advance_outer =
          j < M &&
          (k == 1 || i == m || static_cast<double>(j + 1) / M <= static_cast<double>(i + 1) / m);
      if (advance_outer) {
        mesh.elems.row(e++) << inner(i), outer(j), outer(j + 1);
        ++j;
      } else {
        mesh.elems.row(e++) << inner(i), outer(j), inner(i + 1);
        ++i;
      }
    }
  }
  SOFTGRAD_ASSERT(e == mesh.n_elems());
  return mesh;
}

}  // namespace softgrad
