/// @file parameters.hpp
/// Selecting what to differentiate. A ParameterSet is an ordered list of parameter blocks named
/// by strings, flattened into one vector theta for gradients, sensitivities and optimisers:
///
///   "x0", "v0"          initial positions / velocities (n_dofs values each)
///   "controller"        the parameters of the rollout's controller (policy weights, gait...)
///   "kinematic"         prescribed positions of the kinematic dofs at the end of every step
///                       (T x n_kinematic_dofs; the scripted motion until set)
///   "TERM.GROUP"        a parameter group of an energy term, e.g. "elastic:beam.youngs",
///                       "damping.alpha", "forces.force"; "GROUP" alone if only one term has it
///   "TERM.GROUP[]"      a per-element group as a field (one value per element); without "[]"
///                       a per-element group is tied to one value (all elements share it)
///   "density:BODY"      a body's density (the inertia term's group; kg/m^3, kg/m^2 in 2D):
///                       one value for the body, or with "[]" one per element of a deformable
///                       body. The rollout's masses follow it, and with them inertia, gravity
///                       and mass damping; a rigid body's mass and second moments scale with it.
///                       Centre-of-mass losses keep weighing with the scene's masses.
///   "rigid:BODY.velocity"          a rigid body's centre-of-mass velocity p' at the start
///                                  (3 values, m/s)
///   "rigid:BODY.angular_velocity"  its angular velocity omega at the start (3 values, rad/s):
///                                  a_i' = omega x a_i(x0), read back as
///                                  RigidBody::angular_velocity(x0, v0)
///
/// The rigid velocities write the body's entries of the initial velocities, so they cannot be
/// selected with "v0"; with "x0" they are written after it (a_i' follows the selected x0, and
/// the gradient in x0 includes that dependence, with omega read back from x0 and v0: exact
/// while A(x0) is a rotation, as in any rigid placement).
///
/// `softgrad params SCENE` lists what a scene offers.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "softgrad/energy.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/trajectory.hpp"

namespace softgrad {

class ParameterSet {
 public:
  enum class Source {
    InitialPosition,
    InitialVelocity,
    Kinematic,
    Term,
    Controller,
    RigidVelocity
  };
  struct Block {
    std::string name;  ///< as selected, e.g. "elastic:beam.youngs[]"
    Source source = Source::Term;
    int term = -1;         ///< index into Model::terms (Source::Term)
    ParameterGroup group;  ///< the term's group (Source::Term)
    bool tied = false;     ///< a per-element group reduced to one shared value
    int body = -1;         ///< index into Model::rigid_bodies (Source::RigidVelocity)
    bool angular = false;  ///< omega rather than p' (Source::RigidVelocity)
    int offset = 0;        ///< first index in theta
    int size = 0;          ///< values in theta
  };

  ParameterSet() = default;
  /// Resolves names against a simulator's model and a rollout.
  /// @throws InputError for an unknown or ambiguous name (listing what is available), an
  /// unknown or kinematic rigid body (listing the rigid bodies), a block selected twice, or a
  /// rigid velocity selected with "v0".
  ParameterSet(const Simulator& sim, const Rollout& rollout, const std::vector<std::string>& names);
  /// The same against a model alone (names are checked without building a Simulator).
  ParameterSet(const Model& model, const Rollout& rollout, const std::vector<std::string>& names);

  int size() const { return size_; }
  const std::vector<Block>& blocks() const { return blocks_; }
  /// A name for entry i of theta: "youngs", "youngs[12]", "v0[7]", "kinematic[3][1]".
  std::string label(int i) const;
  /// The block holding entry i.
  const Block& block_of(int i) const;

  /// theta from the rollout (its parameters, or the model's defaults where it has none).
  /// @throws InputError if a tied group's values differ.
  Eigen::VectorXd get(const Simulator& sim, const Rollout& rollout) const;
  /// Writes theta into the rollout: its initial state, controller (a new copy), kinematic path
  /// and parameters (filled with the model's defaults first if empty). The model is not touched.
  /// @throws InputError for a value the term or controller rejects (naming it).
  void set(const Simulator& sim, Rollout& rollout, const Eigen::VectorXd& theta) const;

  /// Every selectable name for a simulator and rollout, with a one-line description each.
  static std::vector<std::pair<std::string, std::string>> available(const Simulator& sim,
                                                                    const Rollout& rollout);
  static std::vector<std::pair<std::string, std::string>> available(const Model& model,
                                                                    const Rollout& rollout);

 private:
  std::vector<Block> blocks_;
  int size_ = 0;
};

/// The scripted kinematic path of a rollout: positions of Model::kinematic_dofs() at the end of
/// each step (what Rollout::kinematic_path holds when set).
std::vector<Eigen::VectorXd> scripted_kinematic_path(const Simulator& sim, const Rollout& rollout);

}  // namespace softgrad
