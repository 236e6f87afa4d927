#include "softgrad/creatures.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

#include "softgrad/contact.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/muscles.hpp"

namespace softgrad {

namespace {

/// The creature a generator wrote into `builder`, with the builder's model finalized.
Creature finalized(ModelBuilder& builder, Creature c) {
  c.model = builder.finalize();
  return c;
}

/// The empty model of a builder a generator writes into.
/// @throws InputError if it is not empty or not of dimension `dim`.
Model& empty_model(ModelBuilder& builder, int dim, const std::string& name) {
  Model& m = builder.model();
  if (m.n_verts != 0 || !m.terms.empty() || m.dim != dim)
    throw InputError(name + ": the creature needs an empty " + std::to_string(dim) +
                     "D model builder");
  return m;
}

}  // namespace

Creature make_cell_creature(const std::vector<std::string>& layout, const CreatureOptions& o) {
  ModelBuilder builder(2);
  return finalized(builder, make_cell_creature(builder, layout, o));
}

Creature make_cell_creature(ModelBuilder& builder, const std::vector<std::string>& layout,
                            const CreatureOptions& o) {
  Model& m = empty_model(builder, 2, "creature");
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

Creature make_biped_2d(ModelBuilder& builder, const CreatureOptions& options) {
  return make_cell_creature(builder, {"######", "######", "L....L", "L....L"}, options);
}

Creature make_biped_2d(const CreatureOptions& options) {
  ModelBuilder builder(2);
  return finalized(builder, make_biped_2d(builder, options));
}

Creature make_quadruped_2d(ModelBuilder& builder, const CreatureOptions& options) {
  return make_cell_creature(
      builder, {"############", "############", "L..L....L..L", "L..L....L..L"}, options);
}

Creature make_quadruped_2d(const CreatureOptions& options) {
  ModelBuilder builder(2);
  return finalized(builder, make_quadruped_2d(builder, options));
}

// 3D creatures built from cubic cells: a quadruped, a worm and a tendon-driven column.
namespace {

using Cell = std::array<int, 3>;

/// A tetrahedral mesh of cells, with each element's centroid in cell units (cell (i, j, k)
/// spans [i, i + 1] x [j, j + 1] x [k, k + 1]).
struct CellMesh {
  Mesh mesh;
  std::vector<Eigen::Vector3d> centroid;
};

/// Splits every cell into resolution^3 cubes and every cube into six tetrahedra along one of
/// its diagonals; a cube is the mirror image of each neighbour across their shared face, so the
/// faces match and the mesh is symmetric about every plane of the lattice.
CellMesh cell_mesh(const std::vector<Cell>& cells, int resolution, double cell,
                   const Eigen::Vector3d& origin) {
  const int r = resolution;
  const double h = cell / r;
  std::map<Cell, int> index;
  std::vector<Eigen::Vector3d> points;
  const auto vertex = [&](const Cell& p) {
    const auto [it, inserted] = index.emplace(p, static_cast<int>(points.size()));
    if (inserted) points.push_back(origin + h * Eigen::Vector3d(p[0], p[1], p[2]));
    return it->second;
  };
  // Kuhn paths 000 -> 111 stepping along the axes in the order of each permutation.
  constexpr int kPerms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  std::vector<std::array<int, 4>> tets;
  CellMesh out;
  for (const Cell& c : cells)
    for (int a = 0; a < r; ++a)
      for (int b = 0; b < r; ++b)
        for (int d = 0; d < r; ++d) {
          const Cell cube = {c[0] * r + a, c[1] * r + b, c[2] * r + d};
          // A corner in local coordinates, mirrored along the axes where the cube index is odd.
          const auto corner = [&](const Cell& local) {
            Cell p;
            for (int k = 0; k < 3; ++k) p[k] = cube[k] + ((cube[k] & 1) ? 1 - local[k] : local[k]);
            return p;
          };
          for (const auto& perm : kPerms) {
            Cell local = {0, 0, 0};
            std::array<Cell, 4> path;
            path[0] = corner(local);
            for (int s = 0; s < 3; ++s) {
              local[perm[s]] = 1;
              path[s + 1] = corner(local);
            }
            std::array<int, 4> t;
            Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
            for (int v = 0; v < 4; ++v) {
              t[v] = vertex(path[v]);
              centroid += Eigen::Vector3d(path[v][0], path[v][1], path[v][2]) / (4.0 * r);
            }
            // Positive orientation: swap two vertices of a negatively oriented tetrahedron.
            const Eigen::Vector3d e1 = points[t[1]] - points[t[0]],
                                  e2 = points[t[2]] - points[t[0]],
                                  e3 = points[t[3]] - points[t[0]];
            if (e1.dot(e2.cross(e3)) < 0.0) std::swap(t[1], t[2]);
            tets.push_back(t);
            out.centroid.push_back(centroid);
          }
        }
  out.mesh.dim = 3;
  out.mesh.source = "creature cells";
  out.mesh.X.resize(static_cast<int>(points.size()), 3);
  for (size_t v = 0; v < points.size(); ++v) out.mesh.X.row(v) = points[v].transpose();
  out.mesh.elems.resize(static_cast<int>(tets.size()), 4);
  for (size_t e = 0; e < tets.size(); ++e)
    out.mesh.elems.row(e) << tets[e][0], tets[e][1], tets[e][2], tets[e][3];
  return out;
}

/// The model of a cell creature: a Neo-Hookean body under gravity (y down) whose elements join
/// muscle `muscle_of(centroid)` (-1: none) with fibres along `direction`, on the ground unless
/// the vertices at y = 0 are clamped.
Creature cell_creature(ModelBuilder& builder, const std::string& name, const CellMesh& cells,
                       int n_muscles, const std::function<int(const Eigen::Vector3d&)>& muscle_of,
                       const Eigen::Vector3d& direction, bool clamp_base,
                       const Creature3dOptions& o) {
  if (!(o.cell > 0.0) || !std::isfinite(o.cell))
    throw InputError(name + ": the cell size must be positive and finite");
  Model& m = empty_model(builder, 3, name);
  Creature c;
  const auto material = find_material("neo_hookean");
  add_body(m, name, cells.mesh, material,
           params_from_youngs_poisson(*material, o.youngs, o.poisson), o.density);
  add_elastic_terms(m);
  add_gravity(m, Eigen::Vector3d(0.0, -9.81, 0.0));
  if (clamp_base) {
    KinematicGroup base;
    base.name = "base";
    for (int v = 0; v < m.n_verts; ++v)
      if (std::abs(m.X[3 * v + 1]) < 1e-9 * o.cell) base.verts.push_back(v);
    m.kinematic.push_back(std::move(base));
  } else {
    ContactOptions contact;
    contact.model = o.contact;
    contact.stiffness = o.contact_stiffness;
    contact.friction = o.friction;
    contact.obstacles = {
        std::make_shared<HalfSpace>("ground", Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitY())};
    add_contact(m, contact);
  }
  std::vector<FibreMuscle> muscles(n_muscles);
  for (FibreMuscle& f : muscles) f.direction = direction;
  for (int e = 0; e < static_cast<int>(cells.centroid.size()); ++e) {
    const int k = muscle_of(cells.centroid[e]);
    if (k >= 0) muscles[k].elements.push_back(e);
  }
  add_fibre_muscles(m, c.muscle_term, std::move(muscles), o.muscle_stiffness, o.steps);
  c.n_muscles = n_muscles;
  return c;
}

void check_resolution(const std::string& name, const Creature3dOptions& o) {
  if (o.resolution < 1 || o.resolution > 8)
    throw InputError(name + ": the resolution must be in [1, 8], got " +
                     std::to_string(o.resolution));
}

}  // namespace

Creature make_quadruped_3d(const Creature3dOptions& o) {
  ModelBuilder builder(3);
  return finalized(builder, make_quadruped_3d(builder, o));
}

Creature make_quadruped_3d(ModelBuilder& builder, const Creature3dOptions& o) {
  check_resolution("quadruped_3d", o);
  // Body cells at y = 2 over 4 x 4; legs under the corners, y = 0 and 1.
  std::vector<Cell> cells;
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 4; ++k) cells.push_back({i, 2, k});
  const int leg_x[4] = {0, 3, 0, 3}, leg_z[4] = {0, 0, 3, 3};
  for (int l = 0; l < 4; ++l)
    for (int j = 0; j < 2; ++j) cells.push_back({leg_x[l], j, leg_z[l]});
  const CellMesh mesh = cell_mesh(cells, o.resolution, o.cell, Eigen::Vector3d(0.0, o.gap, 0.0));
  const auto muscle_of = [&](const Eigen::Vector3d& c) {
    if (c.y() >= 2.0) return -1;
    for (int l = 0; l < 4; ++l)
      if (std::floor(c.x()) == leg_x[l] && std::floor(c.z()) == leg_z[l]) {
        const double dx = c.x() - (leg_x[l] + 0.5);
        return dx > 1e-9 ? 2 * l : dx < -1e-9 ? 2 * l + 1 : -1;
      }
    return -1;
  };
  Creature c = cell_creature(builder, "quadruped_3d", mesh, 8, muscle_of, Eigen::Vector3d::UnitY(),
                             false, o);
  c.body_length = 4 * o.cell;
  return c;
}

Creature make_worm_3d(int segments, const Creature3dOptions& o) {
  ModelBuilder builder(3);
  return finalized(builder, make_worm_3d(builder, segments, o));
}

Creature make_worm_3d(ModelBuilder& builder, int segments, const Creature3dOptions& o) {
  check_resolution("worm_3d", o);
  if (segments < 1)
    throw InputError("worm_3d: at least one segment is needed, got " + std::to_string(segments));
  std::vector<Cell> cells;
  for (int i = 0; i < segments; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) cells.push_back({i, j, k});
  const CellMesh mesh = cell_mesh(cells, o.resolution, o.cell, Eigen::Vector3d(0.0, o.gap, 0.0));
  const auto muscle_of = [](const Eigen::Vector3d& c) {
    return 2 * static_cast<int>(std::floor(c.x())) + (c.y() > 1.0 ? 0 : 1);
  };
  Creature c = cell_creature(builder, "worm_3d", mesh, 2 * segments, muscle_of,
                             Eigen::Vector3d::UnitX(), false, o);
  c.body_length = segments * o.cell;
  return c;
}

TendonColumn make_tendon_column(int levels, const Creature3dOptions& o) {
  ModelBuilder builder(3);
  TendonColumn t = make_tendon_column(builder, levels, o);
  t.creature.model = builder.finalize();
  return t;
}

TendonColumn make_tendon_column(ModelBuilder& builder, int levels, const Creature3dOptions& o) {
  check_resolution("tendon_column", o);
  if (levels < 2)
    throw InputError("tendon_column: at least two levels are needed, got " +
                     std::to_string(levels));
  std::vector<Cell> cells;
  for (int j = 0; j < levels; ++j)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) cells.push_back({i, j, k});
  const CellMesh mesh =
      cell_mesh(cells, o.resolution, o.cell, Eigen::Vector3d(-o.cell, 0.0, -o.cell));
  const auto muscle_of = [&](const Eigen::Vector3d& c) {
    const int q = (c.x() > 1.0 ? 1 : 0) + 2 * (c.z() > 1.0 ? 1 : 0);
    return q + 4 * (2 * c.y() > levels ? 1 : 0);
  };
  TendonColumn t;
  t.creature = cell_creature(builder, "tendon_column", mesh, 8, muscle_of, Eigen::Vector3d::UnitY(),
                             true, o);
  t.creature.body_length = levels * o.cell;
  const Model& m = builder.model();
  const Eigen::Vector3d top(0.0, levels * o.cell, 0.0);
  for (int v = 0; v < m.n_verts; ++v)
    if ((m.X.segment<3>(3 * v) - top).norm() < 1e-9 * o.cell) t.tip = v;
  return t;
}

}  // namespace softgrad
