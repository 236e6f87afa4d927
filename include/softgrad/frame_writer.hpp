/// @file frame_writer.hpp
/// A run's frames: one .vtu per written state and a .pvd collection listing them with their
/// times, so that ParaView opens the run as one animation.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "softgrad/io.hpp"
#include "softgrad/model.hpp"
#include "softgrad/state.hpp"

namespace softgrad {

/// All deformable bodies of a model as one mesh in model vertex numbering (X: the first
/// n_mesh_verts() vertices of model.X), for writing.
Mesh combined_mesh(const Model& model);

/// Writes `<name>_<step>.vtu` frames (step with 6 digits) into a folder and keeps
/// `<name>.pvd` up to date after every frame, so that a run that stops early leaves a valid
/// collection. Each frame holds the current positions x as points; point fields
/// `displacement` (x - X), `velocity` (v) and, when given, `reaction` (the force [N] the
/// supports exert on each prescribed vertex component, zero elsewhere); cell fields `body` (body
/// index), `material` (index of the body's material model among the model's distinct models,
/// in body order) and element_fields(): J, strain_energy_density and cauchy_stress. A model
/// with rigid bodies also writes their surfaces at each step, as a second part of the same
/// time (`<name>_rigid_<step>.vtu`; `<name>_<step>.vtu` when it has no deformable body) with the
/// point field `velocity` and the cell fields `rigid_body` (index in Model::rigid_bodies) and,
/// per triangle its body's, `center_of_mass`, `orientation` (the quaternion w, x, y, z),
/// `body_velocity` and `angular_velocity` (rigid_body_pose), and appends each body's pose and
/// velocities at each frame to `<name>_rigid_bodies.csv`.
class FrameWriter {
 public:
  /// Creates `directory` (with its parents) and an empty collection.
  /// @throws InputError naming the folder if it cannot be created, or the .pvd if it cannot be
  /// written. `name` must be non-empty without / < > & " '.
  FrameWriter(const Model& model, std::filesystem::path directory, std::string name,
              VtuEncoding encoding = VtuEncoding::zlib);

  /// Frames after `step` steps are listed in the .pvd at time step * dt instead of the state's
  /// time, which after many steps carries the round-off of adding dt each step.
  void set_time_step(double dt) { dt_ = dt; }
  /// The material parameters the stress fields use (a rollout's); the model's own by default.
  void set_parameters(TermParameters parameters) { parameters_ = std::move(parameters); }

  /// Writes the frame of state `s` after `step` steps, at time s.t, and adds it to the .pvd.
  /// @throws InputError naming the file if it cannot be written.
  /// `reaction` (n_dofs, optional): the support forces, written as the point field `reaction`.
  void write(const State& s, int step, const Eigen::VectorXd* reaction = nullptr);

  const std::filesystem::path& directory() const { return directory_; }
  std::filesystem::path pvd_path() const { return pvd_->path(); }
  /// Frames written so far.
  int frames_written() const { return frames_; }
  /// The step of the last frame written, if any.
  std::optional<int> last_step() const { return last_step_; }
  /// The file name (in directory()) of the frame after `step` steps.
  std::string frame_file(int step) const;

 private:
  /// Each rigid body's pose and velocities (in the model's order), as rows of
  /// <name>_rigid_bodies.csv.
  void append_rigid_bodies_csv(const std::vector<RigidBodyPose>& poses, int step, double time);

  const Model& model_;
  std::filesystem::path directory_;
  std::string name_;
  Mesh mesh_;
  VtuEncoding encoding_;
  double dt_ = 0.0;  ///< 0: list frames at the state's time
  TermParameters parameters_;
  std::vector<CellField> cell_fields_;
  std::optional<PvdWriter> pvd_;
  std::optional<int> last_step_;
  int frames_ = 0;
};

/// Creates `directory` and its parents and checks that a file can be written in it, so that a
/// command fails before its work rather than after.
/// @throws InputError naming it, with the reason (no such folder, read-only, no permission).
void create_output_directory(const std::filesystem::path& directory);

/// The same for the folder of an output file (the working directory if it names none).
void prepare_output_file(const std::filesystem::path& file);

}  // namespace softgrad
