/// @file model.hpp
/// What is fixed after loading a scene: bodies (mesh, material, per-element rest data and
/// parameters), lumped masses, kinematic constraints, and the list of energy terms.
#pragma once

#include <Eigen/Core>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "softgrad/energy.hpp"
#include "softgrad/joints.hpp"
#include "softgrad/kinematic_group.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/mesh.hpp"
#include "softgrad/rigid_body.hpp"
#include "softgrad/state.hpp"

namespace softgrad {

/// One mesh made of one material. Its vertices are numbered vertex_offset.. in the model.
struct Body {
  std::string name;
  Mesh mesh;  ///< rest mesh, local vertex numbering
  std::shared_ptr<const MaterialModel> material;
  double density = 1000.0;  ///< [kg/m^3] (per unit area in 2D: kg/m^2)
  /// False when the scene gave the vertex masses: the body has no density parameter.
  bool mass_from_density = true;
  int vertex_offset = 0;
  std::vector<int> elems;      ///< connectivity in model numbering
  std::vector<double> Dm_inv;  ///< n_elems x dim^2, row-major
  std::vector<double> volume;  ///< rest volumes [m^3] (areas in 2D)
  std::vector<double> params;  ///< n_elems x n_params

  int n_elems() const { return mesh.n_elems(); }
  /// The batch view the material kernels take.
  ElementBatch batch() const;
};

/// Values of every energy term's parameters, one vector per Model::terms entry (each
/// EnergyTerm::n_parameters() long): what a rollout evaluates the model with.
using TermParameters = std::vector<Eigen::VectorXd>;

/// Everything fixed after loading. Built by the functions below (add_body, add_elastic_terms,
/// add_gravity, ...; add_rigid_body, add_joint, add_contact, add_muscle_edges and
/// add_fibre_muscles in their headers) on a ModelBuilder's model,
/// then shared as `std::shared_ptr<const Model>`: nothing writes to it during a rollout, so
/// any number of rollouts (threads, processes, Python objects) can share one.
struct Model {
  int dim = 3;
  int n_verts = 0;
  std::vector<Body> bodies;
  /// Rigid bodies (rigid_body.hpp): four vertices each, after the deformable bodies' vertices.
  std::vector<RigidBody> rigid_bodies;
  std::vector<Joint> joints;  ///< between rigid bodies (joints.hpp)
  Eigen::VectorXd X;          ///< rest positions, flat (n_verts * dim)
  /// Lumped mass per dof [kg]; a rigid body's axis vertices hold its second moments [kg m^2].
  Eigen::VectorXd mass;
  std::vector<KinematicGroup> kinematic;
  /// The energy terms; the first is inertia (added with the first body), whose parameters are
  /// the bodies' densities ("density:BODY"): a rollout's masses are `mass` at its densities.
  std::vector<std::unique_ptr<const EnergyTerm>> terms;

  int n_dofs() const { return n_verts * dim; }
  /// The deformable bodies' vertices, 0 .. n_mesh_verts() - 1 (the rigid bodies' follow).
  int n_mesh_verts() const { return rigid_bodies.empty() ? n_verts : rigid_bodies.front().node; }
  /// The mass that moves with each dof's translation [kg]: `mass`, with zeros at the rigid
  /// bodies' axis vertices. Gravity pulls it; centres of mass weigh with it.
  Eigen::VectorXd translational_mass() const;
  /// Dofs with prescribed positions (sorted, unique).
  std::vector<int> kinematic_dofs() const;
  /// Prescribed positions at time t, written into x for the kinematic dofs only.
  void apply_kinematics(double t, Eigen::VectorXd& x) const;
  /// Diagonal of the bounding box of the rest positions [m] (the length scale of tolerances):
  /// the deformable bodies' vertices and the rigid bodies' surfaces.
  double length_scale() const;
  /// The parameter values the terms were built with.
  TermParameters default_parameters() const;
  /// The terms' adaptive values at the start of a rollout (State::adaptive), in term order.
  Eigen::VectorXd initial_adaptive() const;
  /// The state at rest at t = 0: X (kinematic dofs where their motion puts them), no velocity,
  /// the initial adaptive values.
  State rest_state() const;
  /// The index in `terms` of the term called `name`.
  /// @throws InputError listing the terms' names if there is none.
  int find_term(const std::string& name) const;
};

/// Builds a Model: the functions below (add_body, add_elastic_terms, ...) write into model(),
/// then finalize() hands it over fixed, as every rollout takes it:
///
///     ModelBuilder builder(2);
///     add_body(builder.model(), "beam", mesh, material, params, 1000.0);
///     add_elastic_terms(builder.model());
///     std::shared_ptr<const Model> model = builder.finalize();
class ModelBuilder {
 public:
  /// An empty model of dimension `dim` (2 or 3). @throws InputError for another dimension.
  explicit ModelBuilder(int dim = 3);
  /// The model under construction. @throws InputError after finalize().
  Model& model();
  /// The model, from here on shared as const; the builder holds nothing afterwards.
  /// @throws InputError if the model has no body and no rigid body, or after finalize().
  std::shared_ptr<const Model> finalize();

 private:
  std::shared_ptr<Model> model_;
};

/// Appends a body: validates the mesh (InputError naming the body), computes Dm^-1, volumes and
/// lumped masses (each element's mass split equally among its vertices), and stores one copy of
/// `params` per element after validating them against the material's table.
/// @pre all bodies of a model have the same dimension.
/// @throws InputError also after a rigid body was added (deformable bodies come first).
void add_body(Model& model, std::string name, Mesh mesh,
              std::shared_ptr<const MaterialModel> material, const std::vector<double>& params,
              double density);

/// Elements of every body that are inverted or degenerate (det F <= 0) at positions x.
int count_inverted_elements(const Model& model, const Eigen::VectorXd& x);

/// Adds the elastic energy term of every body (call after all add_body).
void add_elastic_terms(Model& model);

/// Gravity: W = -sum_i m_i g . x_i. `g` has dim entries [m/s^2].
void add_gravity(Model& model, const Eigen::VectorXd& g);

/// Constant external point forces: W = -sum f . x. `forces` is flat (n_dofs) [N].
void add_external_forces(Model& model, const Eigen::VectorXd& forces);

/// Per-step forces on chosen dofs, W_n = -f_n . x[dofs] in step n -> n+1 (zero after n_steps):
/// open-loop controls. `values` is n_steps x dofs.size(), step-major (empty: all zero). The
/// term's parameter group "force" makes them differentiable.
void add_step_forces(Model& model, std::string name, std::vector<int> dofs, int n_steps,
                     std::vector<double> values = {});

/// Rayleigh damping as a dissipation potential over one step (dynamics only):
///   D(x) = 1/(2 dt) (x - x_n)^T (alpha M + beta K_0) (x - x_n),
/// with K_0 the elastic stiffness at the rest state (frozen; see damping_term.hpp for why).
/// alpha [1/s], beta [s].
void add_damping(Model& model, double alpha, double beta);

}  // namespace softgrad
