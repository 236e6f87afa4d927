#include "softgrad/creatures.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <sstream>

#include "softgrad/contact.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/muscles.hpp"

namespace softgrad {

Creature make_cell_creature(const std::vector<std::string>& layout, const CreatureOptions& o) {
  if (layout.empty() || layout[0].empty()) throw InputError("creature: the layout is empty");
  const int rows = static_cast<int>(layout.size());
  const int cols = static_cast<int>(layout[0].size());
  for (int r = 0; r < rows; ++r) {
    if (static_cast<int>(layout[r].size()) != cols)
      throw InputError("creature: layout row " + std::to_string(r) + " has " +
                       std::to_string(layout[r].size()) + " cells, the first has " +
                       std::to_string(cols));
    for (char c : layout[r])
      if (c != '#' && c != 'L' && c != '.')
        throw InputError(std::string("creature: unknown cell '") + c +
                         "' (use '#' body, 'L' leg, '.' empty)");
  }
  // Grid vertex (i, j), j = 0 at the bottom row's bottom edge, numbered as first used.
  std::map<std::pair<int, int>, int> index;
  std::vector<Eigen::Vector2d> points;
  const auto vertex = [&](int i, int j) {
    const auto [it, inserted] =
        index.emplace(std::make_pair(i, j), static_cast<int>(points.size()));
    if (inserted) points.emplace_back(i * o.cell, o.gap + j * o.cell);
    return it->second;
  };
  const auto cell = [&](int i, int j) {  // j counted from the bottom
    if (i < 0 || i >= cols || j < 0 || j >= rows) return '.';
    return layout[rows - 1 - j][i];
  };
  std::vector<std::array<int, 3>> tris;
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < cols; ++i) {
      if (cell(i, j) == '.') continue;
      const int a = vertex(i, j), b = vertex(i + 1, j), c = vertex(i + 1, j + 1),
                d = vertex(i, j + 1);
      if ((i + j) % 2 == 0) {
        tris.push_back({a, b, c});
        tris.push_back({a, c, d});
      } else {
        tris.push_back({a, b, d});
        tris.push_back({b, c, d});
      }
    }
  if (tris.empty()) throw InputError("creature: the layout has no cells");
  // Muscles: vertical edges of leg cells; horizontal edges on the body's top and bottom.
  std::vector<MuscleEdge> muscles;
  std::map<std::pair<int, int>, bool> seen;
  const auto add = [&](int a, int b) {
    if (seen.emplace(std::minmax(a, b), true).second)
      muscles.push_back({a, b, static_cast<int>(muscles.size())});
  };
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < cols; ++i) {
      if (cell(i, j) == 'L') {
        add(vertex(i, j), vertex(i, j + 1));
        add(vertex(i + 1, j), vertex(i + 1, j + 1));
      } else if (cell(i, j) == '#') {
        if (cell(i, j + 1) != '#') add(vertex(i, j + 1), vertex(i + 1, j + 1));
        if (cell(i, j - 1) != '#') add(vertex(i, j), vertex(i + 1, j));
      }
    }
  if (muscles.empty()) throw InputError("creature: the layout has no muscles (no 'L' or '#')");

  Mesh mesh;
  mesh.dim = 2;
  mesh.source = "creature layout";
  mesh.X.resize(static_cast<int>(points.size()), 2);
  for (size_t v = 0; v < points.size(); ++v) mesh.X.row(v) = points[v].transpose();
  mesh.elems.resize(static_cast<int>(tris.size()), 3);
  for (size_t e = 0; e < tris.size(); ++e) mesh.elems.row(e) << tris[e][0], tris[e][1], tris[e][2];

  Creature c;
  c.model = std::make_shared<Model>();
  Model& m = *c.model;
  const auto material = find_material("neo_hookean");
  add_body(m, "creature", std::move(mesh), material,
           params_from_youngs_poisson(*material, o.youngs, o.poisson), o.density);
  add_elastic_terms(m);
  Eigen::VectorXd g(2);
  g << 0.0, -9.81;
  add_gravity(m, g);
  ContactOptions contact;
  contact.model = ContactModel::Penalty;
  contact.stiffness = o.contact_stiffness;
  contact.friction = o.friction;
  contact.obstacles = {
      std::make_shared<HalfSpace>("ground", Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitY())};
  add_contact(m, contact);
  c.n_muscles = static_cast<int>(muscles.size());
  add_muscle_edges(m, c.muscle_term, muscles, o.muscle_stiffness, c.n_muscles, o.steps);
  c.body_length = cols * o.cell;
  return c;
}

Creature make_biped_2d(const CreatureOptions& options) {
  return make_cell_creature({"######", "######", "L....L", "L....L"}, options);
}

Creature make_quadruped_2d(const CreatureOptions& options) {
  return make_cell_creature({"############", "############", "L..L....L..L", "L..L....L..L"},
                            options);
}

}  // namespace softgrad
