/// @file cantilever_beam.hpp
/// The benchmark cantilever shared by cantilever_solvers and adjoint_cantilever: a
/// kLength x kWidth x kWidth beam of tetrahedra (box_tet_mesh: 6 per cell) clamped at x = 0 (a
/// Fixed KinematicGroup of the x = 0 vertices), one elastic body, gravity -9.81 m/s^2 along y.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "softgrad/material_model.hpp"
#include "softgrad/mesh_generators.hpp"
#include "softgrad/model.hpp"

namespace softgrad::bench {

constexpr double kLength = 1.0;  ///< beam length along x [m]
constexpr double kWidth = 0.1;   ///< beam cross-section (y and z) [m]

/// Cells (nx, ny, nz) of the beam.
struct Cells {
  int nx = 0, ny = 0, nz = 0;
  int n_tets() const { return 6 * nx * ny * nz; }
  int n_dofs() const { return 3 * (nx + 1) * (ny + 1) * (nz + 1); }
};

/// The cells of a size name: 1k, 10k, 50k (19x3x3, 46x6x6, 83x10x10: 1026, 9936 and 49800
/// tets, cells within 1.6:1:1 of cubes) or explicit cells "NXxNYxNZ" (e.g. 40x4x4).
/// Empty for anything else.
inline std::optional<Cells> parse_cells(const std::string& s) {
  if (s == "1k") return Cells{19, 3, 3};
  if (s == "10k") return Cells{46, 6, 6};
  if (s == "50k") return Cells{83, 10, 10};
  Cells c;
  char x1 = 0, x2 = 0, tail = 0;
  if (std::sscanf(s.c_str(), "%d%c%d%c%d%c", &c.nx, &x1, &c.ny, &x2, &c.nz, &tail) == 5 &&
      x1 == 'x' && x2 == 'x' && c.nx > 0 && c.ny > 0 && c.nz > 0)
    return c;
  return std::nullopt;
}

/// The beam's material: a registered model from Young's modulus and Poisson's ratio.
struct BeamMaterial {
  std::string model = "stable_neo_hookean";
  double youngs = 1e7;    ///< [Pa]
  double poisson = 0.4;   ///< [-]
  double density = 1000;  ///< [kg/m^3]
};

/// A built cantilever: the model (body "beam") and its free-end vertices.
struct Cantilever {
  std::shared_ptr<Model> model;
  std::vector<int> tip;  ///< vertices at x = kLength
};

/// Builds the clamped beam under gravity.
/// @throws InputError for an unknown material or invalid parameters.
inline Cantilever make_cantilever(const Cells& cells, const BeamMaterial& m) {
  Cantilever c;
  c.model = std::make_shared<Model>();
  Model& model = *c.model;
  const auto material = find_material(m.model);
  add_body(model, "beam",
           box_tet_mesh(cells.nx, cells.ny, cells.nz, Eigen::Vector3d(kLength, kWidth, kWidth)),
           material, params_from_youngs_poisson(*material, m.youngs, m.poisson), m.density);
  add_elastic_terms(model);
  add_gravity(model, Eigen::Vector3d(0.0, -9.81, 0.0));
  const double tol = 1e-9 * model.length_scale();
  KinematicGroup clamp;
  clamp.name = "clamp";
  for (int v = 0; v < model.n_verts; ++v) {
    if (std::abs(model.X[3 * v]) <= tol) clamp.verts.push_back(v);
    if (std::abs(model.X[3 * v] - kLength) <= tol) c.tip.push_back(v);
  }
  model.kinematic.push_back(std::move(clamp));
  return c;
}

/// Mean y displacement of the tip vertices at positions x [m].
inline double tip_deflection(const Cantilever& c, const Eigen::VectorXd& x) {
  double d = 0.0;
  for (int v : c.tip) d += x[3 * v + 1] - c.model->X[3 * v + 1];
  return d / static_cast<double>(std::max<size_t>(1, c.tip.size()));
}

/// Static Euler-Bernoulli tip deflection q L^4 / (8 E I) of the beam under its weight [m],
/// positive: a scale for the dynamic deflections.
inline double static_tip_deflection(const BeamMaterial& m) {
  const double q = m.density * 9.81 * kWidth * kWidth;
  const double I = std::pow(kWidth, 4) / 12.0;
  return q * std::pow(kLength, 4) / (8.0 * m.youngs * I);
}

}  // namespace softgrad::bench
