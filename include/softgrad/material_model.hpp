/// @file material_model.hpp
/// The run-time face of a material: batched element kernels behind a small virtual interface
/// (one virtual call per batch, never per element), and the registry that maps scene names to
/// models. Built-in models are registered in materials/material_model.cpp; a user registers their
/// own with softgrad::register_material<MyMaterial>() (hyperelastic_model.hpp).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "softgrad/material.hpp"

namespace softgrad {

/// Elements of one body that share a material, in structure-of-arrays form.
struct ElementBatch {
  int dim = 3;  ///< 2 (triangles) or 3 (tetrahedra)
  int n_elems = 0;
  const int* elems = nullptr;      ///< n_elems x (dim + 1) vertex indices
  const double* Dm_inv = nullptr;  ///< n_elems x dim*dim, row-major inverse rest-shape matrices
  const double* volume = nullptr;  ///< n_elems rest volumes (areas in 2D)
  const double* params = nullptr;  ///< n_elems x n_params material parameters
  int n_elem_dofs() const { return (dim + 1) * dim; }
};

/// What a batched evaluation found.
struct BatchReport {
  int n_inverted = 0;       ///< elements with det F <= 0 for a model that forbids it
  int first_inverted = -1;  ///< index (within the batch) of the first one
  int n_failed = 0;         ///< elements whose AD evaluation failed (tape capacity)
  bool ok() const { return n_inverted == 0 && n_failed == 0; }
};

/// A material model: per-element energy, gradient, Hessian (optionally PSD-projected),
/// Hessian-vector product and parameter derivatives, all over a batch of elements, in parallel.
/// Positions x and directions u, lambda are global flat vectors (n_verts * dim). Per-element
/// outputs are written densely, element e at offset e * n_elem_dofs (or e * n_elem_dofs^2 for
/// Hessians, e * n_params for parameter outputs), and assembled by the caller.
class MaterialModel {
 public:
  virtual ~MaterialModel() = default;

  /// The scene key, e.g. "neo_hookean".
  virtual std::string name() const = 0;
  /// The parameter table (keys, units, ranges, defaults).
  virtual std::span<const ParamInfo> params() const = 0;
  int n_params() const { return static_cast<int>(params().size()); }
  /// False when the energy is undefined for inverted elements (det F <= 0).
  virtual bool allows_inversion() const = 0;
  /// False for models that change under rigid rotations (linear elasticity), by design.
  virtual bool frame_indifferent() const { return true; }
  /// True when psi(R F Q) = psi(F) for all rotations R, Q: PSD projections then work in F's
  /// singular frame (ad/isotropic_projection.hpp) instead of an eigen-solver.
  virtual bool isotropic() const { return false; }
  /// True when psi is convex in F for every parameter set in the table's ranges: its PSD
  /// projection is then psi's own Hessian, with no test or eigen-solver.
  virtual bool convex() const { return false; }
  /// True for hyperelastic models defined by a density psi(F); false for e.g. springs.
  virtual bool has_density() const { return true; }
  /// The model's parameters (n_params() values) from Young's modulus [Pa] and Poisson's ratio,
  /// which scenes may give instead of the model's own; false if the model has no such mapping.
  virtual bool youngs_poisson_parameters(double youngs, double poisson, double* p) const {
    return false;
  }
  /// False if that mapping ignores Poisson's ratio (springs cannot represent one).
  virtual bool uses_poisson() const { return true; }

  /// Parameters that belong together: one named group each in gradients and optimisers (a
  /// neural material's weights). The default is one group per parameter, named by its key.
  struct ParamBlock {
    std::string name;
    int first = 0;
    int count = 1;
  };
  virtual std::vector<ParamBlock> param_blocks() const;

  /// Sum of element energies [J]; +infinity if an element is inverted and that is forbidden.
  /// per_elem (optional) receives each element's energy.
  virtual double energy(const ElementBatch& b, const double* x, double* per_elem = nullptr,
                        BatchReport* report = nullptr) const = 0;
  /// Element energies are written to per_elem and gradients to elem_grad.
  virtual BatchReport gradient(const ElementBatch& b, const double* x, double* per_elem,
                               double* elem_grad) const = 0;
  /// As gradient(), plus element Hessians (projected to PSD when `project`).
  virtual BatchReport hessian(const ElementBatch& b, const double* x, bool project,
                              double* per_elem, double* elem_grad, double* elem_hess) const = 0;
  /// Element Hessian-vector products H_e u_e for the global direction u.
  virtual BatchReport hessian_vector_product(const ElementBatch& b, const double* x,
                                             const double* u, double* elem_Hu) const = 0;
  /// dE_e/dp_e and d/dp_e (lambda_e . dE_e/dx_e) for the global adjoint vector lambda (may be
  /// null: then only dE/dp). Either output may be null.
  virtual BatchReport parameter_derivatives(const ElementBatch& b, const double* x,
                                            const double* lambda, double* elem_dE_dp,
                                            double* elem_mixed) const = 0;

  /// Element parameter Jacobian-vector products (d^2E_e / dx_e dp_e) dp_e, for per-element
  /// parameter directions dp (n_elems x n_params): what forward sensitivities need.
  virtual BatchReport parameter_jvp(const ElementBatch& b, const double* x, const double* dp,
                                    double* elem_jvp) const = 0;

  /// Every element's stress differential A_e = dP/dF at F_e (row-major d^2 x d^2, element e at
  /// e * d^4), from which H_e u_e = V_e D_e^T A_e D_e u_e for any direction u (F_e = D_e x_e):
  /// matrix-free CG reuses them over the products of one Newton iteration. Returns false, and
  /// writes nothing, for models whose element energy is not V_e psi(F_e) (the default). The
  /// answer depends on the model alone: a batch of no elements asks without work.
  virtual bool stress_differentials(const ElementBatch& b, const double* x, double* A,
                                    BatchReport& report) const {
    (void)b, (void)x, (void)A, (void)report;
    return false;
  }

  /// Density-level access for tests and tools (has_density() models only): psi(F), the first
  /// Piola-Kirchhoff stress P = dpsi/dF and dP/dF (row-major d^2 x d^2). F, P row-major d x d.
  /// Return false when F is inadmissible (inverted and forbidden).
  virtual bool density(int dim, const double* F, const double* p, double& psi) const = 0;
  virtual bool stress(int dim, const double* F, const double* p, double* P) const = 0;
  virtual bool stress_differential(int dim, const double* F, const double* p,
                                   double* dP_dF) const = 0;
};

/// Checks a parameter vector against the model's table.
/// @throws InputError naming the parameter, its value and the valid range; `where` (a file,
/// JSON path or element index) prefixes the message.
void validate_params(const MaterialModel& model, std::span<const double> p,
                     const std::string& where);

/// Parameters for a model from Young's modulus and Poisson's ratio
/// (MaterialModel::youngs_poisson_parameters). @throws InputError if the model has no mapping.
std::vector<double> params_from_youngs_poisson(const MaterialModel& model, double youngs,
                                               double poisson);

/// Adds a model under its name(); a second model with the same name replaces the first.
void register_material_model(std::shared_ptr<const MaterialModel> model);
/// The model registered as `name`. @throws InputError listing the known names if none.
std::shared_ptr<const MaterialModel> find_material(const std::string& name);
/// All registered models (built-ins first, then user models in registration order).
std::vector<std::shared_ptr<const MaterialModel>> all_materials();

}  // namespace softgrad
