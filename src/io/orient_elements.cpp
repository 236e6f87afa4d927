#include "orient_elements.hpp"

#include <cmath>
#include <sstream>
#include <utility>

#include "../mesh/measure_tolerance.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::detail {

void orient_elements(Mesh& mesh, const std::vector<ElementOrigin>& origins,
                     const std::string& path) {
  SOFTGRAD_CHECK(static_cast<int>(origins.size()) == mesh.n_elems(), "one origin per element");
  const double tol = degenerate_measure_tolerance(mesh);
  for (int e = 0; e < mesh.n_elems(); ++e) {
    const double m = signed_measure(mesh, e);
    // NaN-safe: anything not clearly above the tolerance in magnitude is degenerate.
    if (!(std::abs(m) > tol)) {
      std::ostringstream os;
      os << path << ":" << origins[e].line << ": element " << origins[e].id
         << " is degenerate (signed " << (mesh.dim == 2 ? "area " : "volume ") << m
         << ", its magnitude must exceed " << tol << "); remove the element or repair the mesh";
      throw InputError(os.str());
    }
    if (m < 0) std::swap(mesh.elems(e, 0), mesh.elems(e, 1));
  }
}

}  // namespace softgrad::detail
