/// @file tiny_models.hpp
/// Small models built in code for integrator tests: one box (3D) or rectangle (2D) body of a
/// registered material, plus helpers for boundary vertex sets and for the mass-weighted sums
/// (centroid, momentum) and reaction forces that physics checks compare against known answers.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "softgrad/energy.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/mesh_generators.hpp"
#include "softgrad/model.hpp"
#include "support/term_evaluation.hpp"

namespace softgrad::test {

/// Material parameters for `material` from Young's modulus [Pa] and Poisson's ratio.
inline std::vector<double> material_params(const MaterialModel& material, double youngs,
                                           double poisson) {
  return params_from_youngs_poisson(material, youngs, poisson);
}

/// A model with one body: a box [origin, origin + size] of nx * ny * nz cubes of tetrahedra, and
/// its elastic term. Add gravity, damping and kinematic groups afterwards.
inline std::shared_ptr<Model> box_model(const std::string& material, double youngs, double poisson,
                                        double density, const Eigen::Vector3i& n,
                                        const Eigen::Vector3d& size,
                                        const Eigen::Vector3d& origin = Eigen::Vector3d::Zero()) {
  auto model = std::make_shared<Model>();
  const auto mat = find_material(material);
  add_body(*model, "box", box_tet_mesh(n[0], n[1], n[2], size, origin), mat,
           material_params(*mat, youngs, poisson), density);
  add_elastic_terms(*model);
  return model;
}

/// As box_model, in 2D: a rectangle of nx * ny cells of triangles (plane strain).
inline std::shared_ptr<Model> rectangle_model(
    const std::string& material, double youngs, double poisson, double density,
    const Eigen::Vector2i& n, const Eigen::Vector2d& size,
    const Eigen::Vector2d& origin = Eigen::Vector2d::Zero()) {
  auto model = std::make_shared<Model>();
  const auto mat = find_material(material);
  add_body(*model, "rectangle", rectangle_tri_mesh(n[0], n[1], size, origin), mat,
           material_params(*mat, youngs, poisson), density);
  add_elastic_terms(*model);
  return model;
}

/// Rest position of vertex v (dim entries).
inline Eigen::VectorXd rest_position(const Model& model, int v) {
  return model.X.segment(v * model.dim, model.dim);
}

/// Vertices whose rest coordinate `axis` equals `value` (within 1e-9 of the length scale).
inline std::vector<int> vertices_at(const Model& model, int axis, double value) {
  const double tol = 1e-9 * model.length_scale();
  std::vector<int> verts;
  for (int v = 0; v < model.n_verts; ++v)
    if (std::abs(model.X[v * model.dim + axis] - value) <= tol) verts.push_back(v);
  return verts;
}

/// Holds `verts` at their rest positions.
inline void fix_vertices(Model& model, std::vector<int> verts, const std::string& name = "fixed") {
  KinematicGroup g;
  g.name = name;
  g.verts = std::move(verts);
  g.motion = KinematicGroup::Motion::Fixed;
  model.kinematic.push_back(std::move(g));
}

/// Sum over vertices of a flat per-dof vector weighted by the lumped mass: sum_a m_a y_a (dim).
inline Eigen::VectorXd mass_weighted_sum(const Model& model, const Eigen::VectorXd& y) {
  Eigen::VectorXd s = Eigen::VectorXd::Zero(model.dim);
  for (int v = 0; v < model.n_verts; ++v)
    for (int i = 0; i < model.dim; ++i)
      s[i] += model.mass[v * model.dim + i] * y[v * model.dim + i];
  return s;
}

/// Total mass [kg].
inline double total_mass(const Model& model) {
  double m = 0.0;
  for (int v = 0; v < model.n_verts; ++v) m += model.mass[v * model.dim];
  return m;
}

/// Mass-weighted centroid [m].
inline Eigen::VectorXd centroid(const Model& model, const Eigen::VectorXd& x) {
  return mass_weighted_sum(model, x) / total_mass(model);
}

/// Total linear momentum sum_a m_a v_a [kg m/s].
inline Eigen::VectorXd momentum(const Model& model, const Eigen::VectorXd& v) {
  return mass_weighted_sum(model, v);
}

/// sum_a m_a |v_a|: the scale against which a momentum error is relative [kg m/s].
inline double momentum_scale(const Model& model, const Eigen::VectorXd& v) {
  double s = 0.0;
  for (int a = 0; a < model.n_verts; ++a)
    s += model.mass[a * model.dim] * v.segment(a * model.dim, model.dim).norm();
  return s;
}

/// dW/dx summed over the model's static terms: the force a support must apply to hold each dof
/// (the internal force is its negative) [N].
inline Eigen::VectorXd potential_gradient(const Model& model, const Eigen::VectorXd& x) {
  Eigen::VectorXd g = Eigen::VectorXd::Zero(model.n_dofs());
  for (const auto& t : model.terms)
    if (t->in_statics()) {
      TermEvaluation e(*t, x);
      t->value_and_gradient(e.data(), x, g);
    }
  return g;
}

/// Rest positions mapped by the affine map x = F X + c (F is dim x dim).
inline Eigen::VectorXd affine_positions(const Model& model, const Eigen::MatrixXd& F,
                                        const Eigen::VectorXd& c) {
  Eigen::VectorXd x(model.n_dofs());
  for (int v = 0; v < model.n_verts; ++v)
    x.segment(v * model.dim, model.dim) = F * rest_position(model, v) + c;
  return x;
}

}  // namespace softgrad::test
