// Vertex selection by region: box, plane or explicit indices, optionally within one body.
#include "regions.hpp"

#include <algorithm>
#include <sstream>

namespace softgrad::detail {

namespace {

using enum KeyType;

// The schema of a region, beside its reader.
constexpr KeySpec kRegionKeys[] = {
    {"box", Object, "", {}, "", "", "vertices inside an axis-aligned box, see region/box"},
    {"plane", Object, "", {}, "", "", "vertices on the normal's side of a plane, see region/plane"},
    {"indices", Integers, "", kNonNegative, "", "", "vertex indices (model numbering, or body's)"},
    {"body",
     BodyRef,
     "",
     {},
     "",
     "",
     "only this body (name or index); indices are then the body's own vertex numbers"},
};

constexpr KeySpec kBoxKeys[] = {
    {"min", Vector, "m", kAnyNumber, "", nullptr, "lowest corner"},
    {"max", Vector, "m", kAnyNumber, "", nullptr, "highest corner (>= min)"},
};

constexpr KeySpec kPlaneKeys[] = {
    {"point", Vector, "m", kAnyNumber, "", nullptr, "a point on the plane"},
    {"normal", Vector, "", kAnyNumber, "", nullptr,
     "non-zero; selects X with (X - point) . normal >= -1e-6 L"},
};

}  // namespace

namespace schema {
const Section region{"region", "a vertex selection on rest positions: one of box, plane, indices",
                     kRegionKeys};
const Section box{"region/box", "axis-aligned box, boundaries included (+-1e-6 L)", kBoxKeys};
const Section plane{"region/plane", "half space on the normal's side", kPlaneKeys};
}  // namespace schema

namespace {

// Rest positions of model vertex v as a dim-vector.
Eigen::VectorXd rest_position(const Model& model, int v) {
  return model.X.segment(static_cast<Eigen::Index>(v) * model.dim, model.dim);
}

std::string format_vector(const Eigen::VectorXd& v) {
  std::ostringstream os;
  os << "[";
  for (Eigen::Index k = 0; k < v.size(); ++k) os << (k ? ", " : "") << v[k];
  os << "]";
  return os.str();
}

// The bounding box of vertices [begin, end) as "[min] to [max]".
std::string bounds_text(const Model& model, int begin, int end) {
  Eigen::VectorXd lo = Eigen::VectorXd::Constant(model.dim, kInf);
  Eigen::VectorXd hi = Eigen::VectorXd::Constant(model.dim, -kInf);
  for (int v = begin; v < end; ++v) {
    lo = lo.cwiseMin(rest_position(model, v));
    hi = hi.cwiseMax(rest_position(model, v));
  }
  return format_vector(lo) + " to " + format_vector(hi);
}

// The diagonal of the rest bounding box, the length scale of the region tolerance.
double rest_diagonal(const Model& model) {
  if (model.n_mesh_verts() == 0) return 0.0;
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>> X(
      model.X.data(), model.dim, model.n_mesh_verts());
  return (X.rowwise().maxCoeff() - X.rowwise().minCoeff()).norm();
}

std::vector<int> select_box(const ObjectReader& box, const Model& model, int begin, int end,
                            double eps) {
  const Eigen::VectorXd lo = box.vector("min", model.dim, {});
  const Eigen::VectorXd hi = box.vector("max", model.dim, {});
  for (int k = 0; k < model.dim; ++k) {
    if (!(hi[k] >= lo[k])) {
      std::ostringstream os;
      os << "max[" << k << "] = " << hi[k] << " is below min[" << k << "] = " << lo[k];
      fail_at(box.source(), child_pointer(box.path("max"), std::to_string(k)), os.str());
    }
  }
  std::vector<int> out;
  for (int v = begin; v < end; ++v) {
    const Eigen::VectorXd X = rest_position(model, v);
    if (((X.array() >= lo.array() - eps) && (X.array() <= hi.array() + eps)).all())
      out.push_back(v);
  }
  return out;
}

std::vector<int> select_plane(const ObjectReader& plane, const Model& model, int begin, int end,
                              double eps) {
  const Eigen::VectorXd point = plane.vector("point", model.dim, {});
  const Eigen::VectorXd normal = plane.vector("normal", model.dim, {});
  const double length = normal.norm();
  if (!(length > 0)) plane.fail("normal", "the normal must be non-zero");
  std::vector<int> out;
  for (int v = begin; v < end; ++v) {
    if ((rest_position(model, v) - point).dot(normal) / length >= -eps) out.push_back(v);
  }
  return out;
}

}  // namespace

int find_body(const Source& src, const Json& ref, const std::string& pointer, const Model& model) {
  const int n_bodies = static_cast<int>(model.bodies.size());
  std::string names;
  for (int b = 0; b < n_bodies; ++b) names += (b ? ", " : "") + model.bodies[b].name;
  if (ref.is_string()) {
    const std::string name = ref.get<std::string>();
    for (int b = 0; b < n_bodies; ++b)
      if (model.bodies[b].name == name) return b;
    fail_at(src, pointer, "no body named '" + name + "'; bodies: " + names);
  }
  if (ref.is_number_integer()) {
    const auto b = ref.get<long long>();
    if (b >= 0 && b < n_bodies) return static_cast<int>(b);
    fail_at(src, pointer,
            "body index " + ref.dump() + " is out of range [0, " + std::to_string(n_bodies) + ")");
  }
  fail_at(src, pointer, "expected a body name or index, got " + describe_json(ref));
}

std::vector<int> select_region(const ObjectReader& parent, const char* key, const Model& model) {
  const ObjectReader region = parent.object(key, schema::region);
  int kinds = 0;
  for (const char* kind : {"box", "plane", "indices"}) kinds += region.has(kind) ? 1 : 0;
  if (kinds != 1) {
    region.fail_here("a region needs exactly one of 'box', 'plane' or 'indices', got " +
                     std::to_string(kinds));
  }

  // The candidate vertices: one body's or all deformable bodies'.
  int begin = 0;
  int end = model.n_mesh_verts();
  std::string whose;
  if (region.has("body")) {
    const Body& body =
        model.bodies[find_body(region.source(), region.at("body"), region.path("body"), model)];
    begin = body.vertex_offset;
    end = begin + body.mesh.n_verts();
    whose = " of body '" + body.name + "'";
  }

  std::vector<int> out;
  const double eps = kRegionTolerance * rest_diagonal(model);
  if (region.has("box")) {
    out = select_box(region.object("box", schema::box), model, begin, end, eps);
  } else if (region.has("plane")) {
    out = select_plane(region.object("plane", schema::plane), model, begin, end, eps);
  } else {
    const std::vector<int> indices = region.integers("indices");
    for (size_t k = 0; k < indices.size(); ++k) {
      if (indices[k] >= end - begin) {
        fail_at(region.source(), child_pointer(region.path("indices"), std::to_string(k)),
                "vertex index " + std::to_string(indices[k]) + " is out of range [0, " +
                    std::to_string(end - begin) + ")" + (whose.empty() ? "" : whose));
      }
      out.push_back(begin + indices[k]);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  if (out.empty()) {
    region.fail_here("the region selects no vertex; the rest positions" + whose + " span " +
                     bounds_text(model, begin, end));
  }
  return out;
}

}  // namespace softgrad::detail
