#include "plausibility.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "softgrad/log.hpp"

namespace softgrad::detail {
namespace {

// Gels (a few hundred Pa) to steel and diamond; rock salt to osmium; a cell to a building.
constexpr double kModulusMin = 100.0, kModulusMax = 2e12;  // [Pa]
constexpr double kDensityMin = 1.0, kDensityMax = 3e4;     // [kg/m^3] (3D)
constexpr double kSizeMin = 1e-4, kSizeMax = 100.0;        // [m], bounding box diagonal
constexpr double kPoissonMax = 0.4999;

void add(std::vector<std::string>& warnings, const std::string& where, const std::string& what) {
  const std::string message = where + ": " + what + " (--strict makes this an error)";
  log(LogLevel::Warn, message);
  warnings.push_back(message);
}

std::string format(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// A modulus [Pa] at `where` (its key's pointer); 0 (an absent term) is fine.
void check_modulus(const std::string& where, double v, std::vector<std::string>& warnings) {
  if (v != 0.0 && (std::abs(v) < kModulusMin || std::abs(v) > kModulusMax))
    add(warnings, where,
        format("%g", v) +
            " Pa is far outside the moduli of solids (100 Pa for soft gels to 2e12 Pa); is the "
            "unit Pa?");
}

void check_poisson(const std::string& where, double v, std::vector<std::string>& warnings) {
  if (v > kPoissonMax)
    add(warnings, where,
        format("%.17g", v) +
            " is all but incompressible: Newton and the linear solves struggle (rubber is 0.45 "
            "to 0.49)");
}

}  // namespace

void check_material_parameters(const std::string& where, const MaterialModel& model,
                               const std::vector<double>& params,
                               std::vector<std::string>& warnings) {
  const auto table = model.params();
  for (size_t k = 0; k < table.size() && k < params.size(); ++k) {
    const std::string at = where + "/" + table[k].key;
    if (std::strcmp(table[k].unit, "Pa") == 0) check_modulus(at, params[k], warnings);
    if (std::strcmp(table[k].key, "poisson") == 0) check_poisson(at, params[k], warnings);
  }
}

void check_youngs_poisson(const std::string& where, double youngs, double poisson,
                          std::vector<std::string>& warnings) {
  check_modulus(where + "/youngs", youngs, warnings);
  check_poisson(where + "/poisson", poisson, warnings);
}

void check_density_and_size(const std::string& where, double density, const Mesh& mesh,
                            std::vector<std::string>& warnings) {
  if (mesh.dim == 3 && (density < kDensityMin || density > kDensityMax))
    add(warnings, where + "/density",
        format("%g", density) +
            " kg/m^3 is far outside the densities of solids (1 for aerogels to 3e4); is the "
            "unit kg/m^3?");
  if (mesh.X.rows() > 0) {
    const double size = (mesh.X.colwise().maxCoeff() - mesh.X.colwise().minCoeff()).norm();
    if (size < kSizeMin || size > kSizeMax)
      add(warnings, where + "/mesh",
          "the body is " + format("%g", size) +
              " m across (1e-4 to 100 m is usual); is the mesh in metres? (\"scale\" converts)");
  }
}

namespace {

// Whether point p lies inside element e of m, by a margin (barycentric coordinates > 1e-9).
bool strictly_inside(const Mesh& m, int e, const Eigen::VectorXd& p) {
  const int d = m.dim;
  const Eigen::VectorXd x0 = m.X.row(m.elems(e, 0)).transpose();
  Eigen::MatrixXd D(d, d);
  for (int k = 0; k < d; ++k) D.col(k) = m.X.row(m.elems(e, k + 1)).transpose() - x0;
  const Eigen::VectorXd l = D.partialPivLu().solve(p - x0);
  return l.allFinite() && l.minCoeff() > 1e-9 && l.sum() < 1.0 - 1e-9;
}

}  // namespace

namespace {

// How many elements of `mesh` have their centres inside an element of `other`.
int centres_inside(const Mesh& mesh, const Mesh& other) {
  if (mesh.n_elems() == 0 || other.n_elems() == 0 || mesh.dim != other.dim) return 0;
  const int d = other.dim;
  // The other's elements in a grid of cells about their mean size, by their bounding boxes.
  const Eigen::VectorXd lo = other.X.colwise().minCoeff().transpose();
  const Eigen::VectorXd hi = other.X.colwise().maxCoeff().transpose();
  const Eigen::VectorXd mlo = mesh.X.colwise().minCoeff().transpose();
  const Eigen::VectorXd mhi = mesh.X.colwise().maxCoeff().transpose();
  if ((mhi.array() <= lo.array()).any() || (mlo.array() >= hi.array()).any()) return 0;
  const double cell = std::max((hi - lo).maxCoeff() / std::cbrt(double(other.n_elems())), 1e-300);
  const Eigen::ArrayXd cells = ((hi - lo) / cell).array().floor() + 1.0;
  if (!cells.allFinite() || cells.prod() > 1e7) return 0;  // (a degenerate extent: skipped)
  const auto index = [&](const Eigen::VectorXd& p, int k) {
    return std::clamp(static_cast<long>((p[k] - lo[k]) / cell), 0L,
                      static_cast<long>(cells[k]) - 1);
  };
  std::vector<std::vector<int>> grid(static_cast<size_t>(cells.prod()));
  const auto flat = [&](const Eigen::VectorXi& c) {
    long f = 0;
    for (int k = d - 1; k >= 0; --k) f = f * static_cast<long>(cells[k]) + c[k];
    return static_cast<size_t>(f);
  };
  for (int e = 0; e < other.n_elems(); ++e) {
    Eigen::VectorXd blo = Eigen::VectorXd::Constant(d, 1e300), bhi = -blo;
    for (int k = 0; k <= d; ++k) {
      blo = blo.cwiseMin(other.X.row(other.elems(e, k)).transpose());
      bhi = bhi.cwiseMax(other.X.row(other.elems(e, k)).transpose());
    }
    Eigen::VectorXi a(d), b(d), c(d);
    for (int k = 0; k < d; ++k)
      a[k] = static_cast<int>(index(blo, k)), b[k] = static_cast<int>(index(bhi, k));
    c = a;
    for (;;) {  // every cell of the box
      grid[flat(c)].push_back(e);
      int k = 0;
      while (k < d && ++c[k] > b[k]) c[k] = a[k], ++k;
      if (k == d) break;
    }
  }
  int inside = 0;
  for (int e = 0; e < mesh.n_elems(); ++e) {
    Eigen::VectorXd centre = Eigen::VectorXd::Zero(d);
    for (int k = 0; k <= d; ++k) centre += mesh.X.row(mesh.elems(e, k)).transpose();
    centre /= d + 1;
    if ((centre.array() <= lo.array()).any() || (centre.array() >= hi.array()).any()) continue;
    Eigen::VectorXi c(d);
    for (int k = 0; k < d; ++k) c[k] = static_cast<int>(index(centre, k));
    for (const int o : grid[flat(c)])
      if (strictly_inside(other, o, centre)) {
        ++inside;
        break;
      }
  }
  return inside;
}

}  // namespace

void check_overlap(const std::string& where, const Mesh& mesh, const std::string& other_name,
                   const Mesh& other, std::vector<std::string>& warnings) {
  // Both ways: a small body inside a coarse one may hold none of the coarse one's centres.
  const int mine = centres_inside(mesh, other);
  const int theirs = mine > 0 ? 0 : centres_inside(other, mesh);
  if (mine == 0 && theirs == 0) return;
  const std::string count =
      mine > 0 ? std::to_string(mine) + " of its " + std::to_string(mesh.n_elems()) +
                     " elements have their centres inside it"
               : std::to_string(theirs) + " of that body's " + std::to_string(other.n_elems()) +
                     " elements have their centres inside this one";
  add(warnings, where + "/mesh",
      "the body overlaps body '" + other_name + "': " + count +
          ", so that space counts twice (mass and stiffness add, and no contact acts between "
          "them); give each body a space of its own");
}

}  // namespace softgrad::detail
