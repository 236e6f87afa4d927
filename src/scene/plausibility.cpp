#include "plausibility.hpp"

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

}  // namespace softgrad::detail
