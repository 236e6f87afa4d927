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

struct Creature {
  std::shared_ptr<Model> model;
  std::string muscle_term = "muscles";
  int n_muscles = 0;
  double body_length = 0.0;  ///< extent along x [m]
};

/// Builds a creature from its layout. @throws InputError for an empty or ragged layout,
/// unknown characters, or a layout without muscles.
Creature make_cell_creature(const std::vector<std::string>& layout, const CreatureOptions& options);

/// The seed lineage's 2D creatures: a biped (29 vertices, 20 muscles) and a quadruped
/// (55 vertices, 40 muscles).
Creature make_biped_2d(const CreatureOptions& options = {});
Creature make_quadruped_2d(const CreatureOptions& options = {});

}  // namespace softgrad
