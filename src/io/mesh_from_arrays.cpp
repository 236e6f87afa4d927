// A mesh from flat arrays, checked, oriented and validated as the file readers' meshes are.
#include <cmath>
#include <string>
#include <vector>

#include "orient_elements.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"

namespace softgrad {

Mesh mesh_from_arrays(int dim, const std::vector<double>& vertices,
                      const std::vector<int>& elements, const std::string& source) {
  if (dim != 2 && dim != 3) throw InputError(source + ": dim must be 2 or 3");
  const std::string at_vertices = source + "/vertices", at_elements = source + "/elements";
  const size_t arity = static_cast<size_t>(dim) + 1;
  if (vertices.empty() || vertices.size() % dim != 0)
    throw InputError(at_vertices + ": " + std::to_string(vertices.size()) +
                     " numbers, not a positive multiple of dim = " + std::to_string(dim) +
                     " (x, y" + (dim == 3 ? ", z" : "") + " of each vertex)");
  if (elements.empty() || elements.size() % arity != 0)
    throw InputError(at_elements + ": " + std::to_string(elements.size()) +
                     " indices, not a positive multiple of " + std::to_string(arity) + " (" +
                     (dim == 3 ? "4 per tetrahedron" : "3 per triangle") + ")");
  Mesh mesh;
  mesh.dim = dim;
  mesh.source = source;
  const auto n = static_cast<Eigen::Index>(vertices.size() / dim);
  mesh.X.resize(n, dim);
  for (size_t k = 0; k < vertices.size(); ++k) {
    if (!std::isfinite(vertices[k]))
      throw InputError(at_vertices + ": vertex " + std::to_string(k / dim) +
                       " has the coordinate " + std::to_string(vertices[k]) +
                       ", not a finite number");
    mesh.X(static_cast<Eigen::Index>(k / dim), static_cast<Eigen::Index>(k % dim)) = vertices[k];
  }
  const auto m = static_cast<Eigen::Index>(elements.size() / arity);
  mesh.elems.resize(m, static_cast<Eigen::Index>(arity));
  std::vector<detail::ElementOrigin> origins(m);
  for (size_t k = 0; k < elements.size(); ++k) {
    const long long e = static_cast<long long>(k / arity);
    if (elements[k] < 0 || elements[k] >= n)
      throw InputError(at_elements + ": element " + std::to_string(e) + " names vertex " +
                       std::to_string(elements[k]) + ", outside 0.." + std::to_string(n - 1));
    mesh.elems(static_cast<Eigen::Index>(e), static_cast<Eigen::Index>(k % arity)) = elements[k];
    origins[e] = {-1, e, false};  // no line: messages name the element alone
  }
  detail::orient_elements(mesh, origins, at_elements);
  validate_mesh(mesh);
  return mesh;
}

}  // namespace softgrad
