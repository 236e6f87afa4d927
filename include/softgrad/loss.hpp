/// @file loss.hpp
/// Losses on a trajectory, L = sum_n l_n(x_n, v_n): each built-in loss is a sum over states, so
/// the adjoint can evaluate it (and its derivatives) while it walks back through recomputed
/// checkpoint segments. State n = 0 is the initial state, n = T the last (in a static solve
/// T = 1 and state 1 is the equilibrium).
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "softgrad/detail/ad/tape.hpp"
#include "softgrad/model.hpp"
#include "softgrad/sensors.hpp"
#include "softgrad/state.hpp"

namespace softgrad {

/// A step index meaning "the last state of the rollout".
inline constexpr int kFinalStep = -1;

class Loss {
 public:
  virtual ~Loss() = default;
  /// l_n at state n of a rollout of T steps; adds dl_n/dx to *xbar and dl_n/dv to *vbar when
  /// they are non-null (both sized like s.x).
  virtual double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                          Eigen::VectorXd* vbar) const = 0;
};

/// 1/2 w |x_vertex - target|^2 at a step.
struct PositionTarget {
  int step = kFinalStep;   ///< state index, or kFinalStep
  int vertex = 0;          ///< model vertex index
  Eigen::VectorXd target;  ///< dim entries [m]
  double weight = 1.0;
};

class PositionLoss final : public Loss {
 public:
  /// @throws InputError for a vertex outside the model or a target of the wrong size.
  PositionLoss(const Model& model, std::vector<PositionTarget> targets);
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;

 private:
  int dim_;
  std::vector<PositionTarget> targets_;
};

/// 1/2 w |c - target|^2 and/or 1/2 w |c' - target|^2 for the mass-weighted centre c of a vertex
/// set (all vertices when empty) and its velocity c'. The weights are the model's masses (the
/// scene's densities), also in a rollout that sets other densities.
struct CenterOfMassTarget {
  int step = kFinalStep;
  Eigen::VectorXd position;  ///< dim entries, or empty: no position term
  Eigen::VectorXd velocity;  ///< dim entries, or empty: no velocity term
  double weight = 1.0;
};

class CenterOfMassLoss final : public Loss {
 public:
  CenterOfMassLoss(const Model& model, std::vector<int> vertices,
                   std::vector<CenterOfMassTarget> targets);
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;
  /// The centre of mass of the vertex set (dim entries).
  Eigen::VectorXd center(const Eigen::VectorXd& x) const;
  /// bar += (dc/dx)^T r.
  void add_center_transpose(const Eigen::VectorXd& r, Eigen::VectorXd& bar) const;

 private:
  int dim_;
  std::vector<int> vertices_;
  std::vector<double> weight_;  ///< m_i / sum m per listed vertex
  std::vector<CenterOfMassTarget> targets_;
};

/// sum_n w_n 1/2 |x_n[vertices] - reference_n|^2: matching a whole recorded or simulated
/// trajectory. reference has one entry per state (T + 1), each |vertices| * dim values (all
/// vertices when `vertices` is empty); an empty entry skips that state. weights: one per state,
/// or empty for all 1.
class TrajectoryLoss final : public Loss {
 public:
  TrajectoryLoss(const Model& model, std::vector<int> vertices,
                 std::vector<Eigen::VectorXd> reference, std::vector<double> weights = {});
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;

 private:
  int dim_;
  std::vector<int> vertices_;
  std::vector<Eigen::VectorXd> reference_;
  std::vector<double> weights_;
};

/// -w d . (c(x_T) - c(x_0)): minus the distance the centre of mass c of a vertex set (all when
/// empty) travels along the unit direction d over the rollout. Minimising it is locomotion.
class DisplacementLoss final : public Loss {
 public:
  DisplacementLoss(const Model& model, std::vector<int> vertices, Eigen::VectorXd direction,
                   double weight = 1.0);
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;

 private:
  CenterOfMassLoss com_;
  Eigen::VectorXd direction_;
  double weight_;
};

/// sum_n a_n . x_n + b_n . v_n for given cotangents a_n, b_n (one per state, T + 1, each n_dofs
/// values; an empty entry is zero). Its gradient is the vector-Jacobian product of the whole
/// trajectory: the adjoint with this loss is the backward pass of any function of the states
/// whose derivatives a_n = dF/dx_n, b_n = dF/dv_n are known (an autograd layer, a loss written
/// elsewhere).
class LinearLoss final : public Loss {
 public:
  /// @throws InputError for an entry that is neither empty nor n_dofs long.
  LinearLoss(const Model& model, std::vector<Eigen::VectorXd> dx, std::vector<Eigen::VectorXd> dv);
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;

 private:
  std::vector<Eigen::VectorXd> dx_, dv_;
};

/// A point of a rigid body (rigid_body.hpp) at a target: 1/2 w |p + A X - position|^2, plus
/// 1/2 w_v |p' + A' X - velocity|^2 when a velocity is given, at one step; X is the body-frame
/// point of a world point given at rest.
struct BodyPointTarget {
  int body = 0;  ///< index into Model::rigid_bodies
  /// The point in the world at rest [m]; empty: the body's centre of mass (X = 0).
  std::optional<Eigen::Vector3d> point;
  int step = kFinalStep;                               ///< state index, or kFinalStep
  Eigen::Vector3d position = Eigen::Vector3d::Zero();  ///< [m]
  Eigen::VectorXd velocity;                            ///< 3 values [m/s], or empty: none
  double weight = 1.0;                                 ///< w
  double velocity_weight = 1.0;                        ///< w_v
};

class BodyPointLoss final : public Loss {
 public:
  /// @throws InputError for a body that is not in the model, a velocity of a size other than 3,
  /// or a point, position or velocity that is not finite.
  BodyPointLoss(const Model& model, std::vector<BodyPointTarget> targets);
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;

 private:
  std::vector<BodyPointTarget> targets_;
  std::vector<int> node_;              ///< per target: the body's vertex of p
  std::vector<Eigen::Vector3d> body_;  ///< per target: X
};

/// The sum of several losses.
class SumLoss final : public Loss {
 public:
  explicit SumLoss(std::vector<std::shared_ptr<const Loss>> terms) : terms_(std::move(terms)) {}
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;

 private:
  std::vector<std::shared_ptr<const Loss>> terms_;
};

/// A user loss on chosen vertices, differentiated by softgrad's reverse-mode AD:
///     l_n = fn(n, T, t, x, v)
/// where x and v point to the |vertices| * dim positions and velocities of those vertices as
/// AD scalars (ad::Var<double>) and fn returns one. Write it generically, like an energy:
///     auto fn = [](int n, int T, double t, const auto* x, const auto* v) {
///       return n == T ? 0.5 * (x[1] - 1.0) * (x[1] - 1.0) : decltype(x[0])(0.0); };
class StateLoss final : public Loss {
 public:
  using Scalar = ad::Var<double>;
  using Function = std::function<Scalar(int n, int T, double t, const Scalar* x, const Scalar* v)>;
  /// @param tape_capacity AD nodes per evaluation (the heap tape is sized once).
  StateLoss(const Model& model, std::vector<int> vertices, Function fn,
            int tape_capacity = 1 << 16);
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;

 private:
  int dim_;
  std::vector<int> vertices_;
  Function fn_;
  int capacity_;
};

/// A loss on sensor readings (sensors.hpp) over the last part of a rollout:
///     L = 1/|W| sum_{n in W} sum_k w_k / 2 (s_k(x_n, v_n) - target_k)^2,
///     W = the states n with ceil(from T) <= n <= T and n >= 1,
/// e.g. an arm's hand at a goal over the second half of an episode (from = 0.5), a thrown ball
/// at its target at the end (from = 1), a pole upright throughout (from = 0).
class SensorLoss final : public Loss {
 public:
  /// `target` and `weights` have one entry per sensor value (SensorSet::size()).
  /// @throws InputError for sizes that do not match, a weight that is negative or not finite,
  /// a target that is not finite, or `from` outside [0, 1].
  SensorLoss(const Model& model, std::vector<Sensor> sensors, Eigen::VectorXd target,
             Eigen::VectorXd weights, double from);
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;
  /// The first state of the window for a rollout of T steps.
  int first_state(int T) const;
  const SensorSet& sensors() const { return sensors_; }

 private:
  SensorSet sensors_;
  Eigen::VectorXd target_, weights_;
  double from_;
};

}  // namespace softgrad
