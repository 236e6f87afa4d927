#include "softgrad/frame_writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>
#include <utility>

#include "element_fields.hpp"
#include "softgrad/errors.hpp"
#include "text_output.hpp"

namespace softgrad {
namespace {

// Per-element body index and distinct-material index.
std::vector<CellField> element_ids(const Model& model) {
  int n_elems = 0;
  for (const Body& b : model.bodies) n_elems += b.n_elems();
  CellField body{"body", 1, Eigen::VectorXd(n_elems)};
  CellField material{"material", 1, Eigen::VectorXd(n_elems)};
  std::vector<const MaterialModel*> distinct;
  int e0 = 0;
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const Body& b = model.bodies[i];
    size_t m = 0;
    while (m < distinct.size() && distinct[m] != b.material.get()) ++m;
    if (m == distinct.size()) distinct.push_back(b.material.get());
    body.values.segment(e0, b.n_elems()).setConstant(static_cast<double>(i));
    material.values.segment(e0, b.n_elems()).setConstant(static_cast<double>(m));
    e0 += b.n_elems();
  }
  return {std::move(body), std::move(material)};
}

// The rigid bodies' surfaces at state s, as one triangle surface: per point its velocity, per
// triangle its body and the body's pose and velocities.
void rigid_surfaces(const Model& model, const State& s, const std::vector<RigidBodyPose>& poses,
                    Eigen::MatrixXd& V, Eigen::MatrixXi& F, std::vector<PointField>& points,
                    std::vector<CellField>& cells) {
  const Eigen::VectorXd& x = s.x;
  int n_v = 0, n_f = 0;
  for (const RigidBody& b : model.rigid_bodies) {
    n_v += static_cast<int>(b.surface.rows());
    n_f += static_cast<int>(b.triangles.rows());
  }
  V.resize(n_v, 3);
  F.resize(n_f, 3);
  points = {{"velocity", 3, Eigen::VectorXd(3 * n_v)}};
  cells = {{"rigid_body", 1, Eigen::VectorXd(n_f)},
           {"center_of_mass", 3, Eigen::VectorXd(3 * n_f)},
           {"orientation", 4, Eigen::VectorXd(4 * n_f)},
           {"body_velocity", 3, Eigen::VectorXd(3 * n_f)},
           {"angular_velocity", 3, Eigen::VectorXd(3 * n_f)}};
  int v0 = 0, f0 = 0;
  for (size_t k = 0; k < model.rigid_bodies.size(); ++k) {
    const RigidBody& b = model.rigid_bodies[k];
    const Eigen::Matrix3d A = b.matrix(x), A_dot = b.matrix(s.v);
    const RigidBodyPose& pose = poses[k];
    for (int v = 0; v < b.surface.rows(); ++v) {
      V.row(v0 + v) = (pose.position + A * b.surface.row(v).transpose()).transpose();
      points[0].values.segment<3>(3 * (v0 + v)) =
          pose.velocity + A_dot * b.surface.row(v).transpose();
    }
    F.middleRows(f0, b.triangles.rows()) = b.triangles.array() + v0;
    for (int f = f0; f < f0 + b.triangles.rows(); ++f) {
      cells[0].values[f] = static_cast<double>(k);
      cells[1].values.segment<3>(3 * f) = pose.position;
      cells[2].values.segment<4>(4 * f) = pose.quaternion;
      cells[3].values.segment<3>(3 * f) = pose.velocity;
      cells[4].values.segment<3>(3 * f) = pose.angular_velocity;
    }
    v0 += static_cast<int>(b.surface.rows());
    f0 += static_cast<int>(b.triangles.rows());
  }
}

}  // namespace

Mesh combined_mesh(const Model& model) {
  Mesh mesh;
  mesh.dim = model.dim;
  mesh.source = "model";
  mesh.X = Eigen::Map<const VertexMatrix>(model.X.data(), model.n_mesh_verts(), model.dim);
  int n_elems = 0;
  for (const Body& b : model.bodies) n_elems += b.n_elems();
  mesh.elems.resize(n_elems, model.dim + 1);
  int e0 = 0;
  for (const Body& b : model.bodies) {
    mesh.elems.middleRows(e0, b.n_elems()) =
        Eigen::Map<const ElementMatrix>(b.elems.data(), b.n_elems(), model.dim + 1);
    e0 += b.n_elems();
  }
  return mesh;
}

void create_output_directory(const std::filesystem::path& directory) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec || !std::filesystem::is_directory(directory, ec)) {
    throw InputError("cannot create the output directory '" + directory.string() +
                     "': " + (ec ? ec.message() : "a file of that name exists") +
                     "; choose another one with --out");
  }
  // A probe file: a read-only file system or a folder without write permission shows here.
  // Its name is unique and it is created exclusively, so a planted link is never opened.
  std::string probe;
  const int fd = detail::create_unique_file(directory, "softgrad-write-check", probe);
  if (fd < 0)
    throw InputError("cannot write into the output directory '" + directory.string() +
                     "': " + std::strerror(errno) + "; choose another one with --out");
  ::close(fd);
  std::remove(probe.c_str());
}

void prepare_output_file(const std::filesystem::path& file) {
  const std::filesystem::path folder = file.parent_path();
  create_output_directory(folder.empty() ? std::filesystem::path(".") : folder);
}

FrameWriter::FrameWriter(const Model& model, std::filesystem::path directory, std::string name,
                         VtuEncoding encoding)
    : model_(model),
      directory_(std::move(directory)),
      name_(std::move(name)),
      mesh_(combined_mesh(model)),
      encoding_(encoding),
      parameters_(model.default_parameters()),
      cell_fields_(element_ids(model)) {
  if (name_.empty() || name_.find('/') != std::string::npos)
    throw InputError("frame name '" + name_ + "' must be non-empty without '/'");
  create_output_directory(directory_);
  pvd_.emplace((directory_ / (name_ + ".pvd")).string());
}

void FrameWriter::append_rigid_bodies_csv(const std::vector<RigidBodyPose>& poses, int step,
                                          double time) {
  const std::filesystem::path path = directory_ / (name_ + "_rigid_bodies.csv");
  // The first frame starts the file; each frame's rows are on disk before the next step.
  std::ofstream out(path, frames_ == 0 ? std::ios::trunc : std::ios::app);
  if (frames_ == 0) out << "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n";
  out.precision(17);
  for (size_t k = 0; k < poses.size(); ++k) {
    const RigidBody& b = model_.rigid_bodies[k];
    const RigidBodyPose& pose = poses[k];
    const auto put = [&out](const auto& values) {
      for (Eigen::Index i = 0; i < values.size(); ++i) out << ',' << values[i];
    };
    std::string name = b.name;  // quoted where it holds a comma or a quote (RFC 4180)
    if (name.find_first_of(",\"\n") != std::string::npos) {
      std::string quoted = "\"";
      for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      name = quoted + "\"";
    }
    out << step << ',' << time << ',' << name;
    put(pose.position);
    put(pose.quaternion);
    put(pose.velocity);
    put(pose.angular_velocity);
    out << '\n';
  }
  out.flush();
  if (!out) throw InputError("cannot write " + path.string());
}

std::string FrameWriter::frame_file(int step) const {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%06d", step);
  return name_ + "_" + digits + ".vtu";
}

void FrameWriter::write(const State& s, int step, const Eigen::VectorXd* reaction) {
  const double time = dt_ > 0.0 ? step * dt_ : s.t;
  int part = 0;
  if (!model_.bodies.empty()) {
    // The deformable bodies: the model's first n_mesh_verts() vertices.
    const std::string file = frame_file(step);
    const Eigen::Index n = mesh_.n_dofs();
    std::vector<PointField> fields = {{"displacement", model_.dim, (s.x - model_.X).head(n)},
                                      {"velocity", model_.dim, s.v.head(n)}};
    if (reaction) fields.push_back({"reaction", model_.dim, reaction->head(n)});
    std::vector<CellField> cells = cell_fields_;
    for (CellField& f : element_fields(model_, s.x, parameters_)) cells.push_back(std::move(f));
    write_vtu((directory_ / file).string(), mesh_, s.x.head(n), fields, cells, encoding_);
    pvd_->add_frame(time, file, part++);
  }
  if (!model_.rigid_bodies.empty()) {
    // The rigid bodies' surfaces, a second part of the same time.
    const std::string file =
        (part > 0 ? name_ + "_rigid" : name_) + frame_file(step).substr(name_.size());
    Eigen::MatrixXd V;
    Eigen::MatrixXi F;
    std::vector<PointField> points;
    std::vector<CellField> cells;
    std::vector<RigidBodyPose> poses;
    for (const RigidBody& b : model_.rigid_bodies) poses.push_back(rigid_body_pose(b, s.x, s.v));
    rigid_surfaces(model_, s, poses, V, F, points, cells);
    write_surface_vtu((directory_ / file).string(), V, F, points, cells, encoding_);
    pvd_->add_frame(time, file, part);
    append_rigid_bodies_csv(poses, step, time);
  }
  ++frames_;
  last_step_ = step;
}

}  // namespace softgrad
