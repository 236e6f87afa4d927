// The closed triangle mesh: validation (closed, manifold, consistently oriented, outward) and
// exact mass properties of its polyhedron.
#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <sstream>
#include <stdexcept>
#include <string>

#include "shape_helpers.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"

namespace softgrad {
namespace {

// "(x, y, z)" for messages.
std::string format_point(const Eigen::Vector3d& x) {
  std::ostringstream os;
  os << "(" << x[0] << ", " << x[1] << ", " << x[2] << ")";
  return os.str();
}

// Array shapes, finite vertices and index bounds of a mesh.
void validate_mesh_arrays(const TriangleMesh& m) {
  const Eigen::MatrixXd& V = m.vertices();
  const Eigen::MatrixXi& F = m.triangles();
  std::ostringstream os;
  if (V.rows() == 0 || F.rows() == 0) {
    os << "the mesh is empty (V is " << V.rows() << " x " << V.cols() << ", F is " << F.rows()
       << " x " << F.cols() << "); give vertices and triangles";
    shape_detail::fail(m, os.str());
  }
  if (V.cols() != 3 || F.cols() != 3) {
    os << "V and F must have 3 columns (V is n x " << V.cols() << ", F is m x " << F.cols() << ")";
    shape_detail::fail(m, os.str());
  }
  for (Eigen::Index i = 0; i < V.rows(); ++i)
    if (!V.row(i).allFinite()) {
      os << "vertex " << i << " " << format_point(V.row(i)) << " is not finite";
      shape_detail::fail(m, os.str());
    }
  for (Eigen::Index t = 0; t < F.rows(); ++t)
    for (int k = 0; k < 3; ++k)
      if (F(t, k) < 0 || F(t, k) >= V.rows()) {
        os << "triangle " << t << " has vertex index " << F(t, k) << " out of range [0, "
           << V.rows() << ")";
        shape_detail::fail(m, os.str());
      }
}

// Degenerate triangles: a repeated vertex, or (near) zero area relative to the longest edge.
void validate_mesh_triangles(const TriangleMesh& m) {
  const Eigen::MatrixXd& V = m.vertices();
  const Eigen::MatrixXi& F = m.triangles();
  for (Eigen::Index t = 0; t < F.rows(); ++t) {
    const int i = F(t, 0), j = F(t, 1), k = F(t, 2);
    const Eigen::Vector3d a = V.row(i), b = V.row(j), c = V.row(k);
    const double longest =
        std::max({(b - a).squaredNorm(), (c - b).squaredNorm(), (a - c).squaredNorm()});
    const bool repeated = i == j || j == k || k == i;
    if (!repeated && (b - a).cross(c - a).norm() > 1e-12 * longest) continue;
    std::ostringstream os;
    os << "triangle " << t << " (vertices " << i << ", " << j << ", " << k << ") is degenerate ("
       << (repeated ? "a repeated vertex" : "zero area") << ")";
    shape_detail::fail(m, os.str());
  }
}

// Every undirected edge must join exactly two triangles that run along it in opposite directions.
void validate_mesh_edges(const TriangleMesh& m) {
  const Eigen::MatrixXi& F = m.triangles();
  // (low vertex, high vertex, triangle, runs low -> high), sorted to group each edge's uses.
  std::vector<std::array<int, 4>> uses;
  uses.reserve(3 * F.rows());
  for (int t = 0; t < static_cast<int>(F.rows()); ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = F(t, k), b = F(t, (k + 1) % 3);
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
      shape_detail::fail(m, os.str());
    }
    if (end - first > 2) {
      os << " is shared by " << end - first << " triangles: the mesh is non-manifold (each edge "
         << "must join exactly two)";
      shape_detail::fail(m, os.str());
    }
    if (uses[first][3] == uses[first + 1][3]) {
      os << " is run in the same direction by triangles " << u[2] << " and " << uses[first + 1][2]
         << ": the mesh is inconsistently oriented (list every triangle counter-clockwise seen "
         << "from outside)";
      shape_detail::fail(m, os.str());
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
PolyhedronIntegrals polyhedron_integrals(const TriangleMesh& m, const Eigen::Vector3d& origin) {
  const Eigen::MatrixXd& V = m.vertices();
  const Eigen::MatrixXi& F = m.triangles();
  std::array<double, 10> in{};  // 1, x, y, z, x^2, y^2, z^2, xy, yz, zx
  for (Eigen::Index t = 0; t < F.rows(); ++t) {
    Eigen::Matrix3d P;  // columns: the triangle's vertices, rows: x, y, z
    for (int k = 0; k < 3; ++k) P.col(k) = V.row(F(t, k)).transpose() - origin;
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
PolyhedronIntegrals mesh_integrals(const TriangleMesh& m, Eigen::Vector3d& origin) {
  origin = m.vertices().colwise().mean().transpose();
  return polyhedron_integrals(m, origin);
}

void validate_mesh(const TriangleMesh& m) {
  validate_mesh_arrays(m);
  validate_mesh_triangles(m);
  validate_mesh_edges(m);
  Eigen::Vector3d origin;
  const double volume = mesh_integrals(m, origin).volume;
  if (volume > 0) return;
  std::ostringstream os;
  os << "the enclosed volume " << volume << " m^3 is not positive: the triangles face inward "
     << "(list them counter-clockwise seen from outside)";
  shape_detail::fail(m, os.str());
}

}  // namespace

TriangleMesh::TriangleMesh(std::string name, Eigen::MatrixXd V, Eigen::MatrixXi F)
    : Shape(std::move(name)), V_(std::move(V)), F_(std::move(F)) {}

void TriangleMesh::validate(int) const { validate_mesh(*this); }

namespace {

[[noreturn]] void no_distance() {
  throw std::logic_error("a triangle mesh has no signed distance (check has_distance())");
}

}  // namespace

double TriangleMesh::distance(const double*, int) const { no_distance(); }
void TriangleMesh::distance_derivatives(const double*, int, double*, double*) const {
  no_distance();
}
void TriangleMesh::normal(const double*, int, double*, double*) const { no_distance(); }
double TriangleMesh::time_of_impact(const double*, const double*, int) const { no_distance(); }

MassProperties TriangleMesh::mass_properties(double density) const {
  validate(3);
  shape_detail::check_positive(*this, "density", density, "kg/m^3");
  // About the vertex mean o: int (X - c)(X - c)^T = int (X - o)(X - o)^T - vol (c - o)(c - o)^T.
  Eigen::Vector3d origin;
  const PolyhedronIntegrals in = mesh_integrals(*this, origin);
  const Eigen::Vector3d offset = in.first / in.volume;
  MassProperties mp;
  mp.volume = in.volume;
  mp.center = origin + offset;
  mp.second_moment = density * (in.second - in.volume * offset * offset.transpose());
  mp.mass = density * mp.volume;
  return mp;
}

void TriangleMesh::surface_mesh(int, Eigen::MatrixXd& V, Eigen::MatrixXi& F) const {
  validate(3);
  V = V_;
  F = F_;
}

void TriangleMesh::contact_spheres(std::vector<Eigen::Vector3d>& centers,
                                   std::vector<double>& radii) const {
  validate(3);
  centers.clear();
  for (Eigen::Index i = 0; i < V_.rows(); ++i) centers.emplace_back(V_.row(i));
  radii.assign(centers.size(), 0.0);
}

double TriangleMesh::bounding_radius() const {
  validate(3);
  return V_.rowwise().norm().maxCoeff();
}

}  // namespace softgrad
