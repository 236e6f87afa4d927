// Scene bodies: mesh, material and density of each entry of /bodies, appended to the Model.
#include "bodies.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "../io/input_file.hpp"
#include "plausibility.hpp"
#include "scene_tables.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"
#include "softgrad/log.hpp"
#include "softgrad/materials/neural.hpp"
#include "softgrad/mesh_generators.hpp"

namespace softgrad::detail {

namespace {

namespace fs = std::filesystem;

// The mesh file as the scene names it, resolved against the scene's folder.
Mesh read_mesh_file(const ObjectReader& m, int dim) {
  for (const char* key : {"resolution", "size", "origin"})
    if (m.has(key)) m.fail(key, std::string("'") + key + "' goes with 'generator', not 'file'");
  fs::path path = m.string("file");
  if (path.is_relative()) path = m.source().dir / path;
  // read_mesh accepts "foo" for foo.node/foo.ele. A path the system cannot look up (a name
  // too long, a loop of links) is an input error with the system's reason, not an exception.
  std::error_code ec, ec_node;
  const bool found = fs::exists(path, ec) || fs::exists(path.string() + ".node", ec_node);
  if (!found && ec && ec != std::errc::no_such_file_or_directory)
    m.fail("file", "cannot look up the mesh file " + path.string().substr(0, 200) +
                       (path.string().size() > 200 ? "..." : "") + ": " + ec.message());
  if (!found) m.fail("file", "mesh file not found: " + path.string());
  // A surface is filled with tetrahedra; its volume bound is in scene units (after "scale").
  const std::string ext = path.extension().string();
  const bool surface = ext == ".obj" || ext == ".off" || ext == ".stl";
  TetrahedraliseOptions fill;
  for (const char* key : {"quality", "max_volume"})
    if (m.has(key) && !surface)
      m.fail(key, std::string("'") + key + "' goes with a surface mesh file (.obj, .off, .stl)");
  fill.max_radius_edge = m.number("quality");
  const double scale = m.number("scale");
  if (m.has("max_volume")) fill.max_volume = m.number("max_volume") / (scale * scale * scale);
  Mesh mesh;
  try {
    mesh = read_mesh(path.string(), fill);
  } catch (const InputError& e) {
    m.fail("file", e.what());
  }
  if (mesh.dim != dim) {
    m.fail("file", "the mesh is " + std::to_string(mesh.dim) +
                       "D but the scene has \"dim\": " + std::to_string(dim));
  }
  return mesh;
}

// A box of tetrahedra, or a rectangle or disk of triangles.
Mesh generate_mesh(const ObjectReader& m, int dim) {
  const std::string generator = m.string("generator");
  const int needs = generator == "box" || generator == "ball" ? 3 : 2;
  if (needs != dim) {
    m.fail("generator", "'" + generator + "' makes a " + std::to_string(needs) +
                            "D mesh but the scene has \"dim\": " + std::to_string(dim) +
                            (dim == 3 ? "; use 'box' or 'ball'" : "; use 'rectangle' or 'disk'"));
  }
  for (const char* key : {"resolution", "size"})
    if (!m.has(key))
      m.fail(key, std::string("missing key '") + key + "', required with 'generator'");
  const std::vector<int> n = m.integers("resolution", dim);
  // Checked before anything is allocated: [1000, 1000, 1000] asked for 6e9 tetrahedra and
  // ended in "out of memory". A box cell makes 6 tetrahedra (a rectangle cell 2 triangles).
  double elements = dim == 3 ? 6.0 : 2.0;
  for (const int k : n) elements *= k;
  constexpr double kMaxGeneratedElements = 2e7;
  if (elements > kMaxGeneratedElements) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "the resolution makes about %.3g elements (%.1f GB for the mesh alone), more "
                  "than the limit of 2e7",
                  elements, elements * (dim + 1) * 4 * 1e-9);
    m.fail("resolution", text);
  }
  const Eigen::VectorXd size = m.vector("size", dim, {});
  const Eigen::VectorXd origin = m.vector("origin", dim, Eigen::VectorXd::Zero(dim));
  try {
    if (generator == "ball") {
      if (n[0] != n[1] || n[0] != n[2])
        m.fail("resolution", "a ball's resolution is one number of cells per axis, as [n, n, n]");
      return ball_tet_mesh(n[0], size, origin);
    }
    if (dim == 3) return box_tet_mesh(n[0], n[1], n[2], size, origin);
    if (generator == "disk") return disk_tri_mesh(n[0], n[1], size, origin);
    return rectangle_tri_mesh(n[0], n[1], size, origin);
  } catch (const InputError& e) {
    m.fail("resolution", e.what());
  }
}

// A mesh given inline: "vertices" and "elements" (a Python user's arrays).
Mesh inline_mesh(const ObjectReader& m, int dim) {
  for (const char* key : {"resolution", "size", "origin", "quality", "max_volume"})
    if (m.has(key))
      m.fail(key, std::string("'") + key + "' does not go with an inline mesh ('vertices')");
  if (!m.has("elements")) m.fail("vertices", "an inline mesh needs 'elements' too");
  const Json& v = m.at("vertices");
  if (!v.is_array()) m.fail("vertices", "expected a list of numbers, got " + describe_json(v));
  const Eigen::VectorXd x = m.vector("vertices", static_cast<int>(v.size()), {});
  const std::vector<int> elements = m.integers("elements");
  // Its errors name the scene and the key ("scene.json: /bodies/0/mesh/elements: ...").
  return mesh_from_arrays(dim, std::vector<double>(x.data(), x.data() + x.size()), elements,
                          m.source().name + ": " + m.pointer());
}

Mesh read_body_mesh(const ObjectReader& m, int dim) {
  const int given = int(m.has("file")) + int(m.has("generator")) + int(m.has("vertices"));
  if (given != 1 || (m.has("elements") && !m.has("vertices")))
    m.fail_here(
        "give exactly one of 'file' (a mesh file), 'generator' (box, ball, rectangle or disk) "
        "or 'vertices' with 'elements' (an inline mesh)");
  Mesh mesh = m.has("file")        ? read_mesh_file(m, dim)
              : m.has("generator") ? generate_mesh(m, dim)
                                   : inline_mesh(m, dim);
  // Scale, then translate.
  const double scale = m.number("scale");
  const Eigen::VectorXd shift = m.vector("translate", dim, Eigen::VectorXd::Zero(dim));
  mesh.X *= scale;
  mesh.X.rowwise() += shift.transpose();
  return mesh;
}

// The key specs of one model's material section: model, its parameters, youngs/poisson.
std::vector<KeySpec> material_keys(const MaterialModel& model, bool mappable) {
  std::vector<KeySpec> keys{schema::material.keys[0]};
  for (const ParamInfo& p : model.params()) {
    keys.push_back({p.key, KeyType::Number, p.unit,
                    Range{p.min, p.max, p.min_inclusive, p.max_inclusive}, "", "", p.description});
  }
  for (const KeySpec& k : schema::material.keys.subspan(1)) {
    const auto same = [&](const KeySpec& s) { return std::string(s.key) == k.key; };
    if (std::string(k.key) == "fields") {
      keys.push_back(k);  // read after the body is added (read_material_fields)
    } else if (std::string(k.key) == "network" || std::string(k.key) == "hidden") {
      if (model.name() == "neural") keys.push_back(k);
    } else if (mappable && std::none_of(keys.begin(), keys.end(), same)) {
      keys.push_back(k);
    }
  }
  return keys;
}

std::shared_ptr<const MaterialModel> find_model(const Source& src, const Json& j,
                                                const std::string& pointer) {
  if (!j.is_string()) fail_at(src, pointer, "expected a material name, got " + describe_json(j));
  const std::string name = j.get<std::string>();
  std::vector<std::string> known;
  for (const auto& m : all_materials()) {
    if (m->name() == name) return m;
    known.push_back(m->name());
  }
  std::string what = "unknown material '" + name + "'; ";
  const std::string guess = closest_key(name, known);
  if (!guess.empty()) what += "did you mean '" + guess + "'? ";
  what += "known materials:";
  for (const auto& k : known) what += " " + k;
  fail_at(src, pointer, what);
}

bool has_youngs_poisson_mapping(const MaterialModel& model) {
  std::vector<double> p(model.n_params());
  return model.youngs_poisson_parameters(kYoungsParam.default_value, kPoissonParam.default_value,
                                         p.data());
}

}  // namespace

std::pair<std::shared_ptr<const MaterialModel>, std::vector<double>> read_material(
    const Source& src, const Json& j, const std::string& pointer,
    std::vector<std::string>* warnings) {
  if (!j.is_object()) fail_at(src, pointer, "expected an object {...}, got " + describe_json(j));
  if (!j.contains("model")) {
    fail_at(src, child_pointer(pointer, "model"),
            "missing required key 'model' (a registered material name)");
  }
  auto model = find_model(src, j["model"], child_pointer(pointer, "model"));
  if (j.contains("network")) {
    const std::string where = child_pointer(pointer, "network");
    if (!is_neural_material(*model))
      fail_at(src, where, "'network' goes with model \"neural\", not '" + model->name() + "'");
    if (!j["network"].is_string())
      fail_at(src, where, "expected a file name, got " + describe_json(j["network"]));
    fs::path file = j["network"].get<std::string>();
    if (file.is_relative()) file = src.dir / file;
    try {
      refuse_special_file(file, "neural material file");
      model = read_neural_material(file);
    } catch (const InputError& e) {
      fail_at(src, where, e.what());
    }
  }
  if (j.contains("hidden")) {
    const std::string where = child_pointer(pointer, "hidden");
    if (!is_neural_material(*model) || j.contains("network"))
      fail_at(src, where, "'hidden' goes with model \"neural\" without 'network'");
    std::vector<int> hidden;
    if (!j["hidden"].is_array()) fail_at(src, where, "expected layer widths, e.g. [8, 8]");
    for (const Json& w : j["hidden"]) {
      if (!w.is_number_integer() || w.get<std::int64_t>() < 1 || w.get<std::int64_t>() > 1 << 20)
        fail_at(src, where, "expected layer widths (positive integers), got " + describe_json(w));
      hidden.push_back(static_cast<int>(w.get<std::int64_t>()));
    }
    try {
      model = make_neural_material(hidden);
    } catch (const InputError& e) {
      fail_at(src, where, e.what());
    }
  }
  const auto table = model->params();
  const bool mappable = has_youngs_poisson_mapping(*model);
  const std::vector<KeySpec> keys = material_keys(*model, mappable);
  const Section section{schema::material.path, schema::material.title, keys};
  const ObjectReader r(src, j, pointer, section);

  // The model's own keys, with the table's defaults, when no other key is given.
  const auto native = [&](const std::string& key) {
    return std::any_of(table.begin(), table.end(),
                       [&](const ParamInfo& p) { return key == p.key; });
  };
  const bool all_native = std::all_of(j.items().begin(), j.items().end(), [&](const auto& item) {
    return item.key() == "model" || item.key() == "network" || item.key() == "hidden" ||
           item.key() == "fields" || native(item.key());
  });
  std::vector<double> params;
  if (all_native) {
    for (const ParamInfo& p : table) {
      const Range range{p.min, p.max, p.min_inclusive, p.max_inclusive};
      params.push_back(r.has(p.key) ? read_number(src, r.at(p.key), r.path(p.key), p.unit, range)
                                    : p.default_value);
    }
    if (warnings) check_material_parameters(src.name + ": " + pointer, *model, params, *warnings);
  } else {
    // youngs/poisson, mapped; then the model's own keys must not appear as well.
    for (const ParamInfo& p : table) {
      const std::string key = p.key;
      if (r.has(p.key) && key != "youngs" && key != "poisson") {
        std::string own;
        for (const ParamInfo& q : table) own += (own.empty() ? "" : ", ") + std::string(q.key);
        r.fail(p.key, "give either youngs and poisson or the parameters of '" + model->name() +
                          "' (" + own + "), not both");
      }
    }
    const auto read = [&](const ParamInfo& info) {
      const Range range{info.min, info.max, info.min_inclusive, info.max_inclusive};
      return r.has(info.key) ? read_number(src, r.at(info.key), r.path(info.key), info.unit, range)
                             : info.default_value;
    };
    const double youngs = read(kYoungsParam);
    const double poisson = read(kPoissonParam);
    if (warnings) check_youngs_poisson(src.name + ": " + pointer, youngs, poisson, *warnings);
    params = params_from_youngs_poisson(*model, youngs, poisson);
    if (r.has("poisson") && !model->uses_poisson()) {
      log(LogLevel::Warn, src.name + ": " + r.path("poisson") + ": material '" + model->name() +
                              "' does not use Poisson's ratio; it is ignored");
    }
  }
  validate_params(*model, params, src.name + ": " + pointer);
  // The scene's keys may change a network's file values: the result is checked as a file is.
  if (is_neural_material(*model)) check_neural_material(*model, params, src.name + ": " + pointer);
  return {std::move(model), std::move(params)};
}

void add_scene_body(const Source& src, const Json& j, int index, Model& model,
                    std::vector<std::string>& warnings) {
  const std::string pointer = "/bodies/" + std::to_string(index);
  const ObjectReader b(src, j, pointer, schema::body);
  const std::string name = b.has("name") ? b.string("name") : "body" + std::to_string(index);
  if (name.empty()) b.fail("name", "the body name must not be empty");
  for (const Body& other : model.bodies)
    if (other.name == name) b.fail("name", "a body named '" + name + "' already exists");
  Mesh mesh = read_body_mesh(b.object("mesh", schema::mesh), model.dim);
  auto [material, params] = read_material(src, b.at("material"), b.path("material"), &warnings);
  const double density = b.number("density");
  check_density_and_size(src.name + ": " + pointer, density, mesh, warnings);
  for (const Body& other : model.bodies)
    check_overlap(src.name + ": " + pointer, mesh, other.name, other.mesh, warnings);
  try {
    add_body(model, name, std::move(mesh), std::move(material), params, density);
  } catch (const InputError& e) {
    b.fail_here(e.what());
  }
  if (b.at("material").contains("fields"))
    read_material_fields(src, b.at("material"), b.path("material"), model);
  if (b.has("vertex_masses")) read_vertex_masses(b, model);
}

}  // namespace softgrad::detail
