// What tetrahedralise() asks of a surface before TetGen sees it (surface_check.hpp): TetGen
// trusts its input and may crash or refine without end on a surface that is not a closed,
// oriented manifold, so those surfaces are refused here with a message that says where.
#include "surface_check.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "softgrad/errors.hpp"
#include "text_output.hpp"

namespace softgrad::detail {
namespace {

using Point = Eigen::Vector3d;

Point vertex(const SurfaceMesh& s, int v) { return s.X.row(v).transpose(); }

std::string point_text(const SurfaceMesh& s, int v) {
  const Point p = vertex(s, v);
  return "(" + number_text(p.x(), 6) + ", " + number_text(p.y(), 6) + ", " + number_text(p.z(), 6) +
         ")";
}

std::string triangle_text(const SurfaceMesh& s, Eigen::Index t) {
  return "the triangle " + point_text(s, s.triangles(t, 0)) + " " +
         point_text(s, s.triangles(t, 1)) + " " + point_text(s, s.triangles(t, 2));
}

void check_vertices_used(const SurfaceMesh& s, const std::string& where) {
  std::vector<char> used(static_cast<size_t>(s.X.rows()), 0);
  for (Eigen::Index t = 0; t < s.triangles.rows(); ++t)
    for (int k = 0; k < 3; ++k) {
      const int v = s.triangles(t, k);
      if (v < 0 || v >= s.X.rows() || v == s.triangles(t, (k + 1) % 3))
        throw InputError(where + ": triangle " + std::to_string(t) + " has the vertex indices " +
                         std::to_string(s.triangles(t, 0)) + ", " +
                         std::to_string(s.triangles(t, 1)) + ", " +
                         std::to_string(s.triangles(t, 2)) + " (three distinct ones below " +
                         std::to_string(s.X.rows()) + " needed)");
      used[static_cast<size_t>(v)] = 1;
    }
  for (size_t v = 0; v < used.size(); ++v)
    if (!used[v])
      throw InputError(where + ": the vertex " + point_text(s, static_cast<int>(v)) +
                       " is on no triangle (TetGen would put it inside the solid)");
}

// Vertices closer than the weld tolerance, found through a grid of cells that size.
void check_distinct_vertices(const SurfaceMesh& s, const std::string& where) {
  const Point lo = s.X.colwise().minCoeff().transpose();
  const Point hi = s.X.colwise().maxCoeff().transpose();
  const double diagonal = (hi - lo).norm();
  if (!(diagonal > 0.0)) throw InputError(where + ": all vertices are at one point");
  const double cell = kSurfaceWeldTolerance * diagonal;
  using Key = std::array<std::int64_t, 3>;
  const auto key_of = [&](const Point& p) {
    Key key;
    for (int k = 0; k < 3; ++k)
      key[k] = static_cast<std::int64_t>(std::floor((p[k] - lo[k]) / cell));
    return key;
  };
  std::vector<std::pair<Key, int>> cells(static_cast<size_t>(s.X.rows()));
  for (int v = 0; v < static_cast<int>(cells.size()); ++v) cells[v] = {key_of(vertex(s, v)), v};
  std::sort(cells.begin(), cells.end());
  for (const auto& [key, v] : cells)
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          const Key near{key[0] + dx, key[1] + dy, key[2] + dz};
          auto it = std::lower_bound(cells.begin(), cells.end(), std::pair<Key, int>{near, -1});
          for (; it != cells.end() && it->first == near; ++it)
            if (it->second > v && (vertex(s, it->second) - vertex(s, v)).norm() <= cell)
              throw InputError(where + ": the vertices " + point_text(s, v) + " and " +
                               point_text(s, it->second) +
                               " coincide (closer than 1e-10 of the surface's size); merge "
                               "them so that their triangles share one vertex");
        }
}

void check_triangles(const SurfaceMesh& s, const std::string& where) {
  std::vector<std::pair<std::array<int, 3>, Eigen::Index>> sorted;
  sorted.reserve(static_cast<size_t>(s.triangles.rows()));
  for (Eigen::Index t = 0; t < s.triangles.rows(); ++t) {
    const Point a = vertex(s, s.triangles(t, 0)), b = vertex(s, s.triangles(t, 1)),
                c = vertex(s, s.triangles(t, 2));
    const double longest = std::max({(b - a).norm(), (c - b).norm(), (a - c).norm()});
    const double height = (b - a).cross(c - a).norm() / longest;
    if (!(height > kSurfaceFlatTolerance * longest))
      throw InputError(where + ": " + triangle_text(s, t) +
                       " has no area (its corners are on one line)");
    std::array<int, 3> v{s.triangles(t, 0), s.triangles(t, 1), s.triangles(t, 2)};
    std::sort(v.begin(), v.end());
    sorted.push_back({v, t});
  }
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].first == sorted[i - 1].first)
      throw InputError(where + ": " + triangle_text(s, sorted[i].second) +
                       " is given twice (a duplicated face)");
}

// Every edge on exactly two triangles, traversed once each way.
void check_edges(const SurfaceMesh& s, const std::string& where) {
  struct Use {
    int lo, hi;
    bool forward;  // the triangle goes lo -> hi
    Eigen::Index triangle;
    bool operator<(const Use& o) const { return std::tie(lo, hi) < std::tie(o.lo, o.hi); }
  };
  std::vector<Use> uses;
  uses.reserve(3 * static_cast<size_t>(s.triangles.rows()));
  for (Eigen::Index t = 0; t < s.triangles.rows(); ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = s.triangles(t, k), b = s.triangles(t, (k + 1) % 3);
      uses.push_back({std::min(a, b), std::max(a, b), a < b, t});
    }
  std::stable_sort(uses.begin(), uses.end());
  for (size_t i = 0; i < uses.size();) {
    size_t j = i + 1;
    while (j < uses.size() && uses[j].lo == uses[i].lo && uses[j].hi == uses[i].hi) ++j;
    const std::string edge =
        "the edge " + point_text(s, uses[i].lo) + " - " + point_text(s, uses[i].hi);
    if (j - i == 1)
      throw InputError(where + ": the surface is not closed: " + edge + " is on one triangle " +
                       "only (a hole, or a dangling triangle)");
    if (j - i > 2)
      throw InputError(where + ": the surface is not a manifold: " + edge + " is on " +
                       std::to_string(j - i) + " triangles");
    if (uses[i].forward == uses[i + 1].forward)
      throw InputError(where + ": the triangles are not consistently oriented: " +
                       triangle_text(s, uses[i].triangle) + " and " +
                       triangle_text(s, uses[i + 1].triangle) +
                       " traverse their shared edge the same way (flip one of them)");
    i = j;
  }
}

// Around each vertex its triangles make one fan: the edges opposite the vertex form one cycle.
// (Two cones touching at their tips pass the edge check but not this one.)
void check_vertex_fans(const SurfaceMesh& s, const std::string& where) {
  const size_t n = static_cast<size_t>(s.X.rows());
  std::vector<size_t> start(n + 1, 0);
  for (Eigen::Index t = 0; t < s.triangles.rows(); ++t)
    for (int k = 0; k < 3; ++k) ++start[static_cast<size_t>(s.triangles(t, k)) + 1];
  for (size_t v = 0; v < n; ++v) start[v + 1] += start[v];
  // The edge opposite v in each of its triangles, in the triangle's direction.
  std::vector<std::pair<int, int>> opposite(start[n]);
  std::vector<size_t> fill(start.begin(), start.end() - 1);
  for (Eigen::Index t = 0; t < s.triangles.rows(); ++t)
    for (int k = 0; k < 3; ++k)
      opposite[fill[static_cast<size_t>(s.triangles(t, k))]++] = {s.triangles(t, (k + 1) % 3),
                                                                  s.triangles(t, (k + 2) % 3)};
  for (size_t v = 0; v < n; ++v) {
    const auto first = opposite.begin() + static_cast<std::ptrdiff_t>(start[v]);
    const auto last = opposite.begin() + static_cast<std::ptrdiff_t>(start[v + 1]);
    std::sort(first, last);
    // The edge checks passed, so each neighbour starts exactly one opposite edge.
    size_t walked = 0;
    int at = first->first;
    do {
      const auto next = std::lower_bound(first, last, std::pair<int, int>{at, -1});
      at = next->second;
      ++walked;
    } while (at != first->first && walked <= start[v + 1] - start[v]);
    if (walked != start[v + 1] - start[v])
      throw InputError(where + ": the surface is not a manifold at the vertex " +
                       point_text(s, static_cast<int>(v)) +
                       ": separate sheets of the surface touch there");
  }
}

}  // namespace

void check_closed_surface(const SurfaceMesh& surface, const std::string& where) {
  if (surface.X.rows() < 4 || surface.triangles.rows() < 4)
    throw InputError(where + ": a closed surface needs at least 4 vertices and 4 triangles, got " +
                     std::to_string(surface.X.rows()) + " and " +
                     std::to_string(surface.triangles.rows()));
  check_vertices_used(surface, where);
  check_distinct_vertices(surface, where);
  check_triangles(surface, where);
  check_edges(surface, where);
  check_vertex_fans(surface, where);
}

}  // namespace softgrad::detail
