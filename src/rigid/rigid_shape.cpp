// Rigid body shapes: validation, exact mass properties, drawing surfaces, contact spheres.
#include "softgrad/rigid_shape.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <sstream>
#include <string>

#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

constexpr double kPi = std::numbers::pi;

// "(x, y, z)" for messages.
std::string format(const Eigen::Vector3d& x) {
  std::ostringstream os;
  os << "(" << x[0] << ", " << x[1] << ", " << x[2] << ")";
  return os.str();
}

[[noreturn]] void fail(RigidShape::Kind kind, const std::string& what) {
  throw InputError(std::string("rigid shape (") + to_string(kind) + "): " + what);
}

// A length [m] (or density) that must be positive and finite; NaN fails `> 0`.
void check_positive(RigidShape::Kind kind, const char* name, double value, const char* unit) {
  if (value > 0 && std::isfinite(value)) return;
  std::ostringstream os;
  os << name << " " << value << " " << unit << " must be positive and finite";
  fail(kind, os.str());
}

// Array shapes, finite vertices and index bounds of a mesh.
void validate_mesh_arrays(const RigidShape& s) {
  const auto kind = RigidShape::Kind::Mesh;
  std::ostringstream os;
  if (s.V.rows() == 0 || s.F.rows() == 0) {
    os << "the mesh is empty (V is " << s.V.rows() << " x " << s.V.cols() << ", F is " << s.F.rows()
       << " x " << s.F.cols() << "); give vertices and triangles";
    fail(kind, os.str());
  }
  if (s.V.cols() != 3 || s.F.cols() != 3) {
    os << "V and F must have 3 columns (V is n x " << s.V.cols() << ", F is m x " << s.F.cols()
       << ")";
    fail(kind, os.str());
  }
  for (Eigen::Index i = 0; i < s.V.rows(); ++i)
    if (!s.V.row(i).allFinite()) {
      os << "vertex " << i << " " << format(s.V.row(i)) << " is not finite";
      fail(kind, os.str());
    }
  for (Eigen::Index t = 0; t < s.F.rows(); ++t)
    for (int k = 0; k < 3; ++k)
      if (s.F(t, k) < 0 || s.F(t, k) >= s.V.rows()) {
        os << "triangle " << t << " has vertex index " << s.F(t, k) << " out of range [0, "
           << s.V.rows() << ")";
        fail(kind, os.str());
      }
}

// Degenerate triangles: a repeated vertex, or (near) zero area relative to the longest edge.
void validate_mesh_triangles(const RigidShape& s) {
  for (Eigen::Index t = 0; t < s.F.rows(); ++t) {
    const int i = s.F(t, 0), j = s.F(t, 1), k = s.F(t, 2);
    const Eigen::Vector3d a = s.V.row(i), b = s.V.row(j), c = s.V.row(k);
    const double longest =
        std::max({(b - a).squaredNorm(), (c - b).squaredNorm(), (a - c).squaredNorm()});
    const bool repeated = i == j || j == k || k == i;
    if (!repeated && (b - a).cross(c - a).norm() > 1e-12 * longest) continue;
    std::ostringstream os;
    os << "triangle " << t << " (vertices " << i << ", " << j << ", " << k << ") is degenerate ("
       << (repeated ? "a repeated vertex" : "zero area") << ")";
    fail(RigidShape::Kind::Mesh, os.str());
  }
}

// Every undirected edge must join exactly two triangles that run along it in opposite directions.
void validate_mesh_edges(const RigidShape& s) {
  // (low vertex, high vertex, triangle, runs low -> high), sorted to group each edge's uses.
  std::vector<std::array<int, 4>> uses;
  uses.reserve(3 * s.F.rows());
  for (int t = 0; t < static_cast<int>(s.F.rows()); ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = s.F(t, k), b = s.F(t, (k + 1) % 3);
      uses.push_back({std::min(a, b), std::max(a, b), t, a < b ? 1 : 0});
    }
  std::sort(uses.begin(), uses.end());
  for (std::size_t first = 0; first < uses.size();) {
    std::size_t end = first + 1;
    while (end < uses.size() && uses[end][0] == uses[first][0] && uses[end][1] == uses[first][1])
      ++end;
    const auto& u = uses[first];
    std::ostringstream os;
    os << "edge (" << u[0] << ", " << u[1] << ")";
    if (end - first == 1) {
      os << " belongs to triangle " << u[2] << " only: the mesh is open (it must be closed)";
      fail(RigidShape::Kind::Mesh, os.str());
    }
    if (end - first > 2) {
      os << " is shared by " << end - first << " triangles: the mesh is non-manifold (each edge "
         << "must join exactly two)";
      fail(RigidShape::Kind::Mesh, os.str());
    }
    if (uses[first][3] == uses[first + 1][3]) {
      os << " is run in the same direction by triangles " << u[2] << " and " << uses[first + 1][2]
         << ": the mesh is inconsistently oriented (list every triangle counter-clockwise seen "
         << "from outside)";
      fail(RigidShape::Kind::Mesh, os.str());
    }
    first = end;
  }
}

// The integrals of 1, X and X X^T over a closed polyhedron, with X measured from `origin`.
struct PolyhedronIntegrals {
  double volume = 0.0;
  Eigen::Vector3d first = Eigen::Vector3d::Zero();
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
};

// Eberly's sums of powers of one coordinate over a triangle's three vertex values w.
void subexpressions(const Eigen::Vector3d& w, double& f1, double& f2, double& f3,
                    Eigen::Vector3d& g) {
  const double t0 = w[0] + w[1], t1 = w[0] * w[0], t2 = t1 + w[1] * t0;
  f1 = t0 + w[2];
  f2 = t2 + w[2] * f1;
  f3 = w[0] * t1 + w[1] * t2 + w[2] * f2;
  for (int i = 0; i < 3; ++i) g[i] = f2 + w[i] * (f1 + w[i]);
}

// Divergence theorem over the triangles (Eberly 2002): each integral of a monomial over the
// solid becomes one over the surface of a polynomial in one coordinate, times the normal's
// component d = (p1 - p0) x (p2 - p0), integrated over each triangle in closed form.
PolyhedronIntegrals polyhedron_integrals(const RigidShape& s, const Eigen::Vector3d& origin) {
  std::array<double, 10> in{};  // 1, x, y, z, x^2, y^2, z^2, xy, yz, zx
  for (Eigen::Index t = 0; t < s.F.rows(); ++t) {
    Eigen::Matrix3d P;  // columns: the triangle's vertices, rows: x, y, z
    for (int k = 0; k < 3; ++k) P.col(k) = s.V.row(s.F(t, k)).transpose() - origin;
    const Eigen::Vector3d d = (P.col(1) - P.col(0)).cross(P.col(2) - P.col(0));
    std::array<double, 3> f1, f2, f3;
    std::array<Eigen::Vector3d, 3> g;
    for (int c = 0; c < 3; ++c) subexpressions(P.row(c).transpose(), f1[c], f2[c], f3[c], g[c]);
    in[0] += d[0] * f1[0];
    for (int c = 0; c < 3; ++c) {
      in[1 + c] += d[c] * f2[c];
      in[4 + c] += d[c] * f3[c];
      // xy from d_x and x's g; yz from d_y and y's g; zx from d_z and z's g.
      in[7 + c] += d[c] * P.row((c + 1) % 3).dot(g[c]);
    }
  }
  PolyhedronIntegrals r;
  r.volume = in[0] / 6.0;
  r.first = Eigen::Vector3d(in[1], in[2], in[3]) / 24.0;
  r.second.diagonal() = Eigen::Vector3d(in[4], in[5], in[6]) / 60.0;
  r.second(0, 1) = r.second(1, 0) = in[7] / 120.0;
  r.second(1, 2) = r.second(2, 1) = in[8] / 120.0;
  r.second(2, 0) = r.second(0, 2) = in[9] / 120.0;
  return r;
}

// The mesh's volume, measured from the mean of its vertices (to keep far-off meshes accurate).
PolyhedronIntegrals mesh_integrals(const RigidShape& s, Eigen::Vector3d& origin) {
  origin = s.V.colwise().mean().transpose();
  return polyhedron_integrals(s, origin);
}

void validate_mesh(const RigidShape& s) {
  validate_mesh_arrays(s);
  validate_mesh_triangles(s);
  validate_mesh_edges(s);
  Eigen::Vector3d origin;
  const double volume = mesh_integrals(s, origin).volume;
  if (volume > 0) return;
  std::ostringstream os;
  os << "the enclosed volume " << volume << " m^3 is not positive: the triangles face inward "
     << "(list them counter-clockwise seen from outside)";
  fail(RigidShape::Kind::Mesh, os.str());
}

// Capsule of radius r, length L along y, density 1, about its centre (the origin); by symmetry
// S is diagonal. Cylinder (volume Vc = pi r^2 L): int y^2 = Vc L^2 / 12, int x^2 = Vc r^2 / 4.
// Hemisphere (volume Vh = 2/3 pi r^3) about the centre of its flat face: int x^2 = int y^2 =
// Vh r^2 / 5 (half the ball's), and int y = Vh 3r/8 (its centroid). Moved by L/2 along its
// axis, y -> y + L/2: int y^2 = Vh (r^2/5 + 3rL/8 + L^2/4); x^2 and z^2 do not change. The
// two hemispheres contribute equally, and S adds over the parts (all about the same origin).
Eigen::Matrix3d capsule_second_moment(double r, double L) {
  const double vc = kPi * r * r * L, vh = 2.0 / 3.0 * kPi * r * r * r;
  const double across = vc * r * r / 4.0 + 2.0 * vh * r * r / 5.0;
  const double along =
      vc * L * L / 12.0 + 2.0 * vh * (r * r / 5.0 + 3.0 * r * L / 8.0 + L * L / 4.0);
  return Eigen::Vector3d(across, along, across).asDiagonal();
}

// The closed-form volume and density-1 second moment of a box, sphere or capsule.
void primitive_integrals(const RigidShape& s, double& volume, Eigen::Matrix3d& second) {
  const double r = s.radius;
  switch (s.kind) {
    case RigidShape::Kind::Box:
      volume = s.size.prod();
      second = (volume / 12.0 * s.size.cwiseProduct(s.size)).asDiagonal();
      return;
    case RigidShape::Kind::Sphere:
      volume = 4.0 / 3.0 * kPi * r * r * r;
      second = volume * r * r / 5.0 * Eigen::Matrix3d::Identity();
      return;
    default:  // Capsule
      volume = kPi * r * r * s.length + 4.0 / 3.0 * kPi * r * r * r;
      second = capsule_second_moment(r, s.length);
  }
}

// A surface of revolution about y: a top pole, rings of (y, ring radius) from the top down,
// a bottom pole; `n` segments around. Ring points (rho sin phi, y, rho cos phi) make the top
// fan (pole, j, j + 1) point up, so every triangle below is listed the same way round.
void revolve(double top, const std::vector<Eigen::Vector2d>& rings, double bottom, int n,
             Eigen::MatrixXd& V, Eigen::MatrixXi& F) {
  const int n_rings = static_cast<int>(rings.size());
  const int last = n_rings * n + 1;
  V.resize(last + 1, 3);
  F.resize(2 * n * n_rings, 3);
  V.row(0) << 0.0, top, 0.0;
  V.row(last) << 0.0, bottom, 0.0;
  for (int k = 0; k < n_rings; ++k)
    for (int j = 0; j < n; ++j) {
      const double phi = 2.0 * kPi * j / n;
      V.row(1 + k * n + j) << rings[k][1] * std::sin(phi), rings[k][0], rings[k][1] * std::cos(phi);
    }
  const auto at = [n](int k, int j) { return 1 + k * n + j % n; };
  int t = 0;
  for (int j = 0; j < n; ++j) {
    F.row(t++) << 0, at(0, j), at(0, j + 1);
    for (int k = 0; k + 1 < n_rings; ++k) {
      F.row(t++) << at(k, j), at(k + 1, j), at(k + 1, j + 1);
      F.row(t++) << at(k, j), at(k + 1, j + 1), at(k, j + 1);
    }
    F.row(t++) << last, at(n_rings - 1, j + 1), at(n_rings - 1, j);
  }
}

// A UV sphere (length 0) or capsule: resolution segments around, 2h latitude steps over the
// two hemispheres (h = resolution / 4 rounded), the capsule's equator ring doubled at +-L/2.
void round_surface(double r, double length, int resolution, Eigen::MatrixXd& V,
                   Eigen::MatrixXi& F) {
  const int h = std::max(1, (resolution + 2) / 4);
  std::vector<Eigen::Vector2d> rings;
  for (int k = 1; k < 2 * h; ++k) {
    const double theta = kPi * k / (2 * h);
    const double y = r * std::cos(theta), rho = r * std::sin(theta);
    if (k <= h) rings.emplace_back(0.5 * length + y, rho);
    if (k >= h && (k > h || length > 0)) rings.emplace_back(-0.5 * length + y, rho);
  }
  revolve(0.5 * length + r, rings, -0.5 * length - r, resolution, V, F);
}

// A box's 8 corners (bit 0: +x, bit 1: +y, bit 2: +z) and 12 outward triangles.
void box_surface(const Eigen::Vector3d& size, Eigen::MatrixXd& V, Eigen::MatrixXi& F) {
  V.resize(8, 3);
  for (int i = 0; i < 8; ++i)
    for (int c = 0; c < 3; ++c) V(i, c) = ((i >> c) & 1 ? 0.5 : -0.5) * size[c];
  F.resize(12, 3);
  F << 0, 4, 6, 0, 6, 2,  // -x
      1, 3, 7, 1, 7, 5,   // +x
      0, 1, 5, 0, 5, 4,   // -y
      2, 6, 7, 2, 7, 3,   // +y
      0, 2, 3, 0, 3, 1,   // -z
      4, 5, 7, 4, 7, 6;   // +z
}

}  // namespace

const char* to_string(RigidShape::Kind kind) {
  switch (kind) {
    case RigidShape::Kind::Box:
      return "box";
    case RigidShape::Kind::Sphere:
      return "sphere";
    case RigidShape::Kind::Capsule:
      return "capsule";
    case RigidShape::Kind::Mesh:
      return "mesh";
  }
  return "unknown";
}

void validate_shape(const RigidShape& shape) {
  const auto kind = shape.kind;
  switch (kind) {
    case RigidShape::Kind::Box:
      if (!(shape.size.minCoeff() > 0) || !shape.size.allFinite()) {
        std::ostringstream os;
        os << "size " << format(shape.size) << " m must be positive and finite";
        fail(kind, os.str());
      }
      return;
    case RigidShape::Kind::Capsule:
      check_positive(kind, "length", shape.length, "m");
      [[fallthrough]];
    case RigidShape::Kind::Sphere:
      check_positive(kind, "radius", shape.radius, "m");
      return;
    case RigidShape::Kind::Mesh:
      validate_mesh(shape);
      return;
  }
  throw InputError("rigid shape: unknown kind " + std::to_string(static_cast<int>(kind)));
}

MassProperties mass_properties(const RigidShape& shape, double density) {
  validate_shape(shape);
  check_positive(shape.kind, "density", density, "kg/m^3");
  MassProperties mp;
  if (shape.kind == RigidShape::Kind::Mesh) {
    // About the vertex mean o: int (X - c)(X - c)^T = int (X - o)(X - o)^T - vol (c - o)(c - o)^T.
    Eigen::Vector3d origin;
    const PolyhedronIntegrals in = mesh_integrals(shape, origin);
    const Eigen::Vector3d offset = in.first / in.volume;
    mp.volume = in.volume;
    mp.center = origin + offset;
    mp.second_moment = density * (in.second - in.volume * offset * offset.transpose());
  } else {
    primitive_integrals(shape, mp.volume, mp.second_moment);
    mp.second_moment *= density;
  }
  mp.mass = density * mp.volume;
  return mp;
}

void surface_mesh(const RigidShape& shape, int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F) {
  validate_shape(shape);
  const bool round =
      shape.kind == RigidShape::Kind::Sphere || shape.kind == RigidShape::Kind::Capsule;
  if (round && resolution < 3)
    fail(shape.kind, "resolution " + std::to_string(resolution) +
                         " is too small for a surface (it needs at least 3 segments around)");
  switch (shape.kind) {
    case RigidShape::Kind::Box:
      box_surface(shape.size, V, F);
      return;
    case RigidShape::Kind::Sphere:
      round_surface(shape.radius, 0.0, resolution, V, F);
      return;
    case RigidShape::Kind::Capsule:
      round_surface(shape.radius, shape.length, resolution, V, F);
      return;
    case RigidShape::Kind::Mesh:
      V = shape.V;
      F = shape.F;
      return;
  }
}

void contact_spheres(const RigidShape& shape, std::vector<Eigen::Vector3d>& centers,
                     std::vector<double>& radii) {
  validate_shape(shape);
  centers.clear();
  radii.clear();
  switch (shape.kind) {
    case RigidShape::Kind::Sphere:
      centers.emplace_back(Eigen::Vector3d::Zero());
      break;
    case RigidShape::Kind::Capsule:
      centers.emplace_back(0.0, 0.5 * shape.length, 0.0);
      centers.emplace_back(0.0, -0.5 * shape.length, 0.0);
      break;
    case RigidShape::Kind::Box:
      for (int i = 0; i < 8; ++i)
        centers.emplace_back(((i & 1) ? 0.5 : -0.5) * shape.size[0],
                             ((i & 2) ? 0.5 : -0.5) * shape.size[1],
                             ((i & 4) ? 0.5 : -0.5) * shape.size[2]);
      break;
    case RigidShape::Kind::Mesh:
      for (Eigen::Index i = 0; i < shape.V.rows(); ++i) centers.emplace_back(shape.V.row(i));
      break;
  }
  const bool round =
      shape.kind == RigidShape::Kind::Sphere || shape.kind == RigidShape::Kind::Capsule;
  radii.assign(centers.size(), round ? shape.radius : 0.0);
}

double bounding_radius(const RigidShape& shape) {
  validate_shape(shape);
  switch (shape.kind) {
    case RigidShape::Kind::Box:
      return 0.5 * shape.size.norm();
    case RigidShape::Kind::Sphere:
      return shape.radius;
    case RigidShape::Kind::Capsule:
      return 0.5 * shape.length + shape.radius;
    case RigidShape::Kind::Mesh:
      break;
  }
  return shape.V.rowwise().norm().maxCoeff();
}

}  // namespace softgrad
