#include "rigidity_term.hpp"

#include <memory>

namespace softgrad {
namespace {

std::vector<int> axis_vertices(const Model& model, const std::vector<int>& bodies) {
  std::vector<int> verts;
  for (int b : bodies)
    for (int j = 1; j <= 3; ++j) verts.push_back(model.rigid_bodies[b].node + j);
  return verts;
}

}  // namespace

RigidityTerm::RigidityTerm(const Model& model, const std::vector<int>& bodies)
    : AdStencilTerm(3, model.n_verts, axis_vertices(model, bodies), 3) {
  for (int b : bodies) {
    const RigidBody& body = model.rigid_bodies[b];
    energies_.push_back({body.rigidity * body.volume});
  }
}

void add_rigidity_term(Model& model) {
  std::vector<int> bodies;
  for (size_t b = 0; b < model.rigid_bodies.size(); ++b)
    if (!model.rigid_bodies[b].kinematic) bodies.push_back(static_cast<int>(b));
  if (!bodies.empty()) model.terms.push_back(std::make_unique<RigidityTerm>(model, bodies));
}

}  // namespace softgrad
