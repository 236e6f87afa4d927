#include "softgrad/frame_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <utility>

#include "element_fields.hpp"
#include "softgrad/errors.hpp"

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

}  // namespace

Mesh combined_mesh(const Model& model) {
  Mesh mesh;
  mesh.dim = model.dim;
  mesh.source = "model";
  mesh.X = Eigen::Map<const VertexMatrix>(model.X.data(), model.n_verts, model.dim);
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
  if (ec || !std::filesystem::is_directory(directory)) {
    throw InputError("cannot create the output directory '" + directory.string() +
                     "': " + (ec ? ec.message() : "a file of that name exists") +
                     "; choose another one with --out");
  }
  // A probe file: a read-only file system or a folder without write permission shows here.
  const std::string probe = (directory / ".softgrad-write-check.tmp").string();
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (!f)
    throw InputError("cannot write into the output directory '" + directory.string() +
                     "': " + std::strerror(errno) + "; choose another one with --out");
  std::fclose(f);
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

std::string FrameWriter::frame_file(int step) const {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%06d", step);
  return name_ + "_" + digits + ".vtu";
}

void FrameWriter::write(const State& s, int step, const Eigen::VectorXd* reaction) {
  const std::string file = frame_file(step);
  std::vector<PointField> fields = {{"displacement", model_.dim, s.x - model_.X},
                                    {"velocity", model_.dim, s.v}};
  if (reaction) fields.push_back({"reaction", model_.dim, *reaction});
  std::vector<CellField> cells = cell_fields_;
  for (CellField& f : element_fields(model_, s.x, parameters_)) cells.push_back(std::move(f));
  write_vtu((directory_ / file).string(), mesh_, s.x, fields, cells, encoding_);
  pvd_->add_frame(dt_ > 0.0 ? step * dt_ : s.t, file);
  last_step_ = step;
}

}  // namespace softgrad
