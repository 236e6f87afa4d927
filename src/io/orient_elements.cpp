#include "orient_elements.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>
#include <utility>

#include "../mesh/measure_tolerance.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::detail {

std::string place_text(const std::string& path, long long where, bool binary) {
  if (where < 0) return path;  // arrays: no line
  return binary ? path + ": byte " + std::to_string(where) : path + ":" + std::to_string(where);
}

void orient_elements(Mesh& mesh, const std::vector<ElementOrigin>& origins,
                     const std::string& path) {
  SOFTGRAD_CHECK(static_cast<int>(origins.size()) == mesh.n_elems(), "one origin per element");
  const double tol = degenerate_measure_tolerance(mesh);
  for (int e = 0; e < mesh.n_elems(); ++e) {
    const double m = signed_measure(mesh, e);
    // NaN-safe: anything not clearly above the tolerance in magnitude is degenerate.
    if (!(std::abs(m) > tol)) {
      std::ostringstream os;
      os << place_text(path, origins[e].line, origins[e].binary) << ": element " << origins[e].id
         << " is degenerate (signed " << (mesh.dim == 2 ? "area " : "volume ") << m
         << ", its magnitude must exceed " << tol << "); remove the element or repair the mesh";
      throw InputError(os.str());
    }
    if (m < 0) std::swap(mesh.elems(e, 0), mesh.elems(e, 1));
  }
  reject_repeated_elements(mesh, origins, path);
}

void reject_repeated_elements(const Mesh& mesh, const std::vector<ElementOrigin>& origins,
                              const std::string& path) {
  std::map<std::array<int, 4>, int> seen;
  for (int e = 0; e < mesh.n_elems(); ++e) {
    std::array<int, 4> key{-1, -1, -1, -1};
    for (int k = 0; k <= mesh.dim; ++k) key[k] = mesh.elems(e, k);
    std::sort(key.begin(), key.end());  // a triangle's unused -1 sorts first
    const auto [it, inserted] = seen.emplace(key, e);
    if (inserted) continue;
    const ElementOrigin& first = origins[it->second];
    std::ostringstream os;
    os << place_text(path, origins[e].line, origins[e].binary) << ": element " << origins[e].id
       << " has the same vertices as element " << first.id;
    if (first.line >= 0) os << " (" << (first.binary ? "byte " : "line ") << first.line << ")";
    os << ": a repeated element would double its mass and stiffness; remove one";
    throw InputError(os.str());
  }
}

}  // namespace softgrad::detail
