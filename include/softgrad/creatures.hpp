/// @file creatures.hpp
/// Soft creatures for locomotion, drawn as ASCII art of square cells (2D, plane strain):
///
///     "############"      '#' body cell, 'L' leg cell, '.' empty; the last row stands on the
///     "############"      ground. Each cell is two triangles.
///     "L..L....L..L"
///     "L..L....L..L"
///
/// Muscles are edges: both vertical edges of every leg cell, and the horizontal edges along
/// the top and the bottom of the body. The creature stands on a ground plane (y = 0) with
/// penalty contact and lagged Coulomb friction.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "softgrad/contact.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

struct CreatureOptions {
  double cell = 0.05;   ///< cell size [m]
  double youngs = 1e4;  ///< [Pa]
  double poisson = 0.3;
  double density = 200.0;          ///< [kg/m^2]
  double muscle_stiffness = 1e4;   ///< [N/m]
  double contact_stiffness = 2e4;  ///< penalty [N/m]
  double friction = 0.8;
  double gap = 1e-3;  ///< height of the feet above the ground at rest [m]
  int steps = 1000;   ///< activations are stored for this many steps
};

/// A creature: its model (body, gravity, ground contact and a muscle term) and what the
/// controllers need to know of it.
struct Creature {
  std::shared_ptr<const Model> model;  ///< fixed (ModelBuilder::finalize); null in a draft
  std::string muscle_term = "muscles";
  int n_muscles = 0;
  double body_length = 0.0;  ///< extent along x [m]
};

// Every generator comes in two forms: one returns the creature with its model finalized; the
// other writes the model into an empty ModelBuilder's and returns the creature as a draft (a
// null model), for a caller that adds to the model (a scene adds damping, boundary conditions
// and obstacles) before it calls finalize() and sets the creature's model.

/// Builds a creature from its layout. @throws InputError for an empty or ragged layout,
/// unknown characters, or a layout without muscles.
Creature make_cell_creature(const std::vector<std::string>& layout, const CreatureOptions& options);
Creature make_cell_creature(ModelBuilder& builder, const std::vector<std::string>& layout,
                            const CreatureOptions& options);

/// The seed lineage's 2D creatures: a biped (29 vertices, 20 muscles) and a quadruped
/// (55 vertices, 40 muscles).
Creature make_biped_2d(const CreatureOptions& options = {});
Creature make_biped_2d(ModelBuilder& builder, const CreatureOptions& options = {});
Creature make_quadruped_2d(const CreatureOptions& options = {});
Creature make_quadruped_2d(ModelBuilder& builder, const CreatureOptions& options = {});

/// Options of the 3D creatures: tetrahedral meshes of cubic cells (y up), standing on a ground
/// plane y = 0 (the column is clamped instead). Each cell is resolution^3 cubes, each split into
/// six tetrahedra (Kuhn subdivision, mirrored in every other cube so that the mesh is symmetric
/// about every cell plane). Muscles are fibre muscles (muscles.hpp) in a term "muscles".
struct Creature3dOptions {
  double cell = 0.05;   ///< cell edge [m]
  int resolution = 1;   ///< cubes per cell edge
  double youngs = 5e4;  ///< [Pa]
  double poisson = 0.3;
  double density = 1000.0;                       ///< [kg/m^3]
  double muscle_stiffness = 1e5;                 ///< fibre stiffness k [Pa]
  ContactModel contact = ContactModel::Barrier;  ///< never penetrates; or Penalty (contact.hpp)
  double contact_stiffness = 1e4;                ///< penalty k or barrier kappa [N/m]
  double friction = 0.8;
  double gap = 1e-3;  ///< height of the lowest vertices above the ground at rest [m]
  int steps = 1000;   ///< activations are stored for this many steps
};

/// DiffPD's quadruped: a body of 4 x 1 x 4 cells (x, y, z) on four corner legs 2 cells tall,
/// 82 vertices and 144 tetrahedra at resolution 1. Eight vertical fibre muscles: muscle 2l is
/// the front (+x) half of leg l, 2l + 1 its back half (at resolution 1 the tetrahedra whose
/// centroid is on the leg's mid-plane are passive); legs l = 0..3 at (x, z) cells (0, 0),
/// (3, 0), (0, 3), (3, 3). body_length is 4 cells.
/// @throws InputError for invalid options (the messages of add_body, add_contact).
Creature make_quadruped_3d(const Creature3dOptions& options = {});
Creature make_quadruped_3d(ModelBuilder& builder, const Creature3dOptions& options = {});

/// A caterpillar: a bar of `segments` x 2 x 2 cells (x, y, z) lying on the ground, with fibre
/// muscles along x in the top (muscle 2s) and bottom (2s + 1) half of every segment (one cell
/// long). body_length is `segments` cells. @throws InputError if segments < 1.
Creature make_worm_3d(int segments = 6, const Creature3dOptions& options = {});
Creature make_worm_3d(ModelBuilder& builder, int segments = 6,
                      const Creature3dOptions& options = {});

/// A column that reaches for a point.
struct TendonColumn {
  Creature creature;
  int tip = 0;  ///< the vertex on the axis at the top [model index]
};

/// A column of 2 x `levels` x 2 cells (x, y, z) with its base centre at the origin, clamped at
/// y = 0, under gravity, without contact. Eight vertical fibre "tendons": muscle q + 4 h runs
/// through quadrant q = (x > 0) + 2 (z > 0) of the cross-section in the lower (h = 0) or upper
/// (h = 1) half of the column. body_length is the height. @throws InputError if levels < 2.
TendonColumn make_tendon_column(int levels = 6, const Creature3dOptions& options = {});
TendonColumn make_tendon_column(ModelBuilder& builder, int levels = 6,
                                const Creature3dOptions& options = {});

}  // namespace softgrad
