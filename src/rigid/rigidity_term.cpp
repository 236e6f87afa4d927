#include "rigidity_term.hpp"

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

}  // namespace softgrad
