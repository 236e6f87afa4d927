#include "element_adjacency.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

namespace softgrad {

std::vector<std::pair<int, int>> element_adjacency(const Body& body) {
  const int nv = body.mesh.dim + 1;         // vertices per element; a face has nv - 1 of them
  std::map<std::array<int, 3>, int> first;  // face -> first element seen
  std::vector<std::pair<int, int>> pairs;
  for (int e = 0; e < body.n_elems(); ++e)
    for (int skip = 0; skip < nv; ++skip) {
      std::array<int, 3> face{-1, -1, -1};
      int k = 0;
      for (int a = 0; a < nv; ++a)
        if (a != skip) face[k++] = body.elems[static_cast<size_t>(e) * nv + a];
      // Sort the k <= 3 entries (unused ones stay -1 at the end).
      if (face[0] > face[1]) std::swap(face[0], face[1]);
      if (k == 3 && face[1] > face[2]) std::swap(face[1], face[2]);
      if (face[0] > face[1]) std::swap(face[0], face[1]);
      const auto [it, inserted] = first.emplace(face, e);
      if (!inserted) pairs.emplace_back(std::min(it->second, e), std::max(it->second, e));
    }
  return pairs;
}

}  // namespace softgrad
