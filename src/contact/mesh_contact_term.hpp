/// @file mesh_contact_term.hpp
/// The term "mesh_contact" (softgrad/mesh_contact.hpp). Its stencils are the primitive pairs
/// closer than dhat, found anew for each x (cached while x repeats: CG's products, the
/// adjoint); their Hessian blocks go into the pattern as dynamic stencils. Friction's pairs are
/// fixed per step (those within dhat at its start). A pair's energy is a function of its kSize
/// surface points; a rigid body's point is p + A X, so a pair with rigid points acts on up to
/// kRigidNodes model vertices (its gradient and Hessian mapped by the points' weights).
#pragma once

#include <array>
#include <limits>
#include <vector>

#include "broad_phase.hpp"
#include "mesh_contact_energy.hpp"
#include "softgrad/energy.hpp"
#include "softgrad/mesh_contact.hpp"

namespace softgrad {

template <int d>
class MeshContactTerm final : public EnergyTerm, public StepLimit {
 public:
  static constexpr int kSize = d + 1;     ///< vertices per pair
  static constexpr int kN = d * (d + 1);  ///< dofs per pair
  /// Model vertices of a pair with rigid points: two rigid bodies' four nodes (3D only).
  static constexpr int kRigidNodes = 8;

  MeshContactTerm(const Model& model, CollisionSurface surface, MeshContactOptions options);

  std::string name() const override { return "mesh_contact"; }
  /// The longest motion max_step sweeps at once (longer ones are swept in pieces).
  double sweep_reach() const { return sweep_reach_; }
  const CollisionSurface& surface() const { return surface_; }
  /// A pair closer than dhat: its kSize surface points and distance [m] (0: touching).
  struct PairReport {
    std::array<int, kSize> v;
    double distance;
  };
  /// The primitive pairs closer than dhat at x, and those that touch or overlap.
  std::vector<PairReport> pairs(TermData& data, const Eigen::VectorXd& x) const;

  std::unique_ptr<TermData> make_data() const override;
  bool depends_on_previous_state(const TermData& data) const override;
  void begin_step(TermData& data) const override;
  /// Adaptive values: the stiffness factor and the closest gap at the start of the step [m].
  int n_adaptive() const override { return options_.adaptive_stiffness ? 2 : 0; }
  void initial_adaptive(double* a) const override;
  void update_adaptive(TermData& data, const Eigen::VectorXd& x, double* a) const override;
  double value(TermData& data, const Eigen::VectorXd& x) const override;
  double value_and_gradient(TermData& data, const Eigen::VectorXd& x,
                            Eigen::VectorXd& g) const override;
  void add_hessian(TermData& data, const Eigen::VectorXd& x, bool project,
                   HessianAssembler& H) const override;
  void add_hessian_vector_product(TermData& data, const Eigen::VectorXd& x,
                                  const Eigen::VectorXd& u, Eigen::VectorXd& out) const override;
  void add_hessian_diagonal(TermData& data, const Eigen::VectorXd& x,
                            Eigen::VectorXd& diag) const override;
  double max_step(const TermData& data, const Eigen::VectorXd& x,
                  const Eigen::VectorXd& dx) const override;

  std::vector<ParameterGroup> parameter_groups() const override;
  Eigen::VectorXd default_parameters() const override;
  void validate_parameters(const double* p) const override;
  void pull_back(TermData& data, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                 const StepInputBars& bars) const override;
  void push_forward(TermData& data, const Eigen::VectorXd& x, const StepInputDirections& directions,
                    Eigen::VectorXd& out) const override;

 private:
  struct Pair {
    std::array<int, kSize> v;  ///< model vertices
    detail::PairGeometry geometry;
  };
  struct Data;
  static Data& own(TermData& data);

  /// The barrier's pairs at x (cached): false if two primitives touch or overlap there.
  bool update_pairs(Data& data, const Eigen::VectorXd& x) const;
  /// The pair of a candidate at x, if closer than dhat (and whether they touch).
  bool narrow_phase(const collision::Candidate& c, const Eigen::VectorXd& x, Pair& pair,
                    bool& touching) const;
  /// Every stencil's Hessian (kN x kN, row-major) into data.H: barrier pairs, then friction's.
  void pair_hessians(Data& data, const Eigen::VectorXd& x, bool project) const;
  /// f(pair, its Hessian) for every stencil at x.
  template <class PerStencil>
  void for_each_hessian(Data& data, const Eigen::VectorXd& x, bool project,
                        const PerStencil& f) const;
  /// The pair's point values (kN) of a model vector (positions, directions: the map is linear).
  void gather(const Pair& p, const double* global, double* local) const;
  /// The transpose: adds the pair's point vector to the model vertices it depends on.
  void scatter(const Pair& p, const double* local, double* global) const;
  bool has_rigid_points(const Pair& p) const;
  /// The pair's distance at x [m] (0 where the primitives touch).
  double distance(const Pair& p, const Eigen::VectorXd& x) const;
  /// A pair with rigid points on model vertices: its kRigidNodes vertices (unused slots repeat
  /// the first) and the Hessian h (kN x kN, by points) mapped onto them.
  void expand_hessian(const Pair& p, const double* h, int* nodes, double* H) const;
  /// The surface points' positions at x (x itself without rigid points).
  const Eigen::VectorXd& points(Eigen::VectorXd& buffer, const Eigen::VectorXd& x) const;
  double friction_eps(const TermData& data) const;
  /// The adaptive stiffness factor of this step (1 without adaptivity).
  static double stiffness_scale(const TermData& data);
  /// Friction pair k's local inputs q = (kappa, mu, its start-of-step positions).
  void friction_inputs(const Data& data, size_t k, double* q) const;

  CollisionSurface surface_;
  MeshContactOptions options_;
  std::vector<double> edge_rest_sq_;  ///< per surface edge: its squared rest length
  /// The longest motion max_step sweeps at once: kSweepEdges mean rest edge lengths plus the
  /// activation distance. Longer motions are swept in pieces, at most kMaxSweepPieces (a motion
  /// of over 4096 mean edge lengths in one Newton step is then bounded where they end).
  static constexpr double kSweepEdges = 16.0;
  static constexpr int kMaxSweepPieces = 256;
  double sweep_reach_ = std::numeric_limits<double>::infinity();
  /// The earliest time of impact in [0, 1] of the candidates moving from y by dy (1: none).
  double first_impact(const Eigen::VectorXd& y, const Eigen::VectorXd& dy,
                      const std::vector<collision::Candidate>& candidates) const;
};

/// What a step keeps of the pairs and their Hessians.
template <int d>
struct MeshContactTerm<d>::Data : TermData {
  mutable collision::BroadPhase broad;  // also max_step's (const) sweep
  mutable std::vector<collision::Candidate> candidates;
  Eigen::VectorXd x_key;  ///< the x of `pairs`
  bool valid = false;
  bool feasible = true;
  double kappa[1] = {0.0};     ///< this step's barrier stiffness: the parameter times the scale
  std::vector<Pair> pairs;     ///< the barrier's, at x_key
  std::vector<Pair> friction;  ///< lagged friction's, this step
  std::vector<double> xn;      ///< friction pairs' start-of-step positions (kN each)
  /// The stencils at x_key: pairs with only model vertices first, then those with rigid points.
  struct Stencil {
    const Pair* pair;
    int friction;  ///< index into `friction`, -1 for a barrier pair
  };
  std::vector<Stencil> stencils;
  int n_plain = 0;
  std::vector<double> H;          ///< per stencil Hessians by points (kN x kN), at x_key
  int H_state = -1;               ///< what H holds: -1 nothing, 0 exact, 1 projected
  std::vector<int> verts;         ///< per plain stencil its model vertices (assembly)
  std::vector<double> H_rigid;    ///< per stencil with rigid points: H on its model vertices
  std::vector<int> verts_rigid;   ///< and those vertices (kRigidNodes each)
  mutable Eigen::VectorXd y, dy;  ///< surface points and their displacements (with rigid ones)
  // The last line search's segment x0 -> x0 + dx and the candidates of its swept boxes, grown
  // by dhat: every point a line search tries on it needs only the narrow phase.
  mutable Eigen::VectorXd sweep_x0, sweep_dx;
  mutable std::vector<collision::Candidate> sweep_candidates;
  // A long sweep's piece: its start, motion and candidates.
  mutable Eigen::VectorXd piece_y, piece_dy;
  mutable std::vector<collision::Candidate> piece_candidates;
};

}  // namespace softgrad
