/// @file muscles.hpp
/// Muscles: energy terms whose per-step, per-muscle activations a_m(n) are the controls that
/// locomotion optimises (ParameterGroup "activation", one value per step and muscle; zero after
/// the last given step). Their gradients come from the adjoint like any term parameter.
///
///   muscle edges (springs, 2D and 3D):  W = k/2 (|x_a - x_b| - (1 - a) L)^2      k [N/m]
///   fibre muscles (triangles, tets):    W = V k/2 (|F f| - (1 - a))^2             k [Pa]
///
/// L is the edge's rest length, f the unit fibre direction in the rest shape, F the element's
/// deformation gradient and V its rest volume. a > 0 contracts (the target length or stretch is
/// 1 - a), a < 0 extends; |a| < 1. With a = 0 a muscle is a passive spring along its fibre.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "softgrad/model.hpp"

namespace softgrad {

struct MuscleEdge {
  int a = 0, b = 0;  ///< model vertices
  int muscle = 0;    ///< which activation drives it
};

/// Adds a term of muscle edges named `name` with activations for `n_steps` steps of
/// `n_muscles` muscles (initially zero). @throws InputError for bad vertices or muscles.
void add_muscle_edges(Model& model, std::string name, std::vector<MuscleEdge> edges,
                      double stiffness, int n_muscles, int n_steps);

struct FibreMuscle {
  int body = 0;               ///< index into Model::bodies
  std::vector<int> elements;  ///< elements of that body the muscle runs through
  Eigen::Vector3d direction = Eigen::Vector3d::UnitX();  ///< fibre direction (normalised)
};

/// Adds a term of fibre muscles named `name` (muscle m = muscles[m]) with `n_steps` steps of
/// activations (initially zero).
void add_fibre_muscles(Model& model, std::string name, std::vector<FibreMuscle> muscles,
                       double stiffness, int n_steps);

}  // namespace softgrad
