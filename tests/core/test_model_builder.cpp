// ModelBuilder: a model is written into the builder, then handed over as const by finalize();
// creatures build through it, as finished creatures or as drafts a caller adds to; a scene's
// control problem shares the scene's one const model.
#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <type_traits>

#include "softgrad/creatures.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/mesh_generators.hpp"
#include "softgrad/model.hpp"
#include "softgrad/scene.hpp"
#include "support/input_error.hpp"

namespace softgrad::test {
namespace {

static_assert(std::is_same_v<decltype(ModelBuilder().finalize()), std::shared_ptr<const Model>>);
static_assert(std::is_same_v<decltype(Creature::model), std::shared_ptr<const Model>>);

void add_square(Model& m) {
  const auto material = find_material("neo_hookean");
  add_body(m, "square", rectangle_tri_mesh(2, 2, Eigen::Vector2d(1.0, 1.0)), material,
           params_from_youngs_poisson(*material, 1e5, 0.3), 1000.0);
  add_elastic_terms(m);
}

TEST_CASE("model_builder: finalize hands over the model it built, once") {
  ModelBuilder builder(2);
  add_square(builder.model());
  const Model* built = &builder.model();
  const std::shared_ptr<const Model> model = builder.finalize();
  REQUIRE(model.get() == built);
  CHECK(model->dim == 2);
  CHECK(model->n_verts == 9);
  CHECK(model->terms.front()->name() == "inertia");
  CHECK(model->find_term("elastic:square") == 1);
  // The builder holds nothing more: writing through it again is refused by name.
  CHECK(input_error_of([&] { builder.model(); }).find("already finalized") != std::string::npos);
  CHECK(input_error_of([&] { builder.finalize(); }).find("already finalized") != std::string::npos);
}

TEST_CASE("model_builder: an empty model and a dimension other than 2 or 3 are refused") {
  ModelBuilder empty(3);
  CHECK(input_error_of([&] { empty.finalize(); }) == "the model has no body and no rigid body");
  CHECK(input_error_of([] { ModelBuilder four(4); }) == "a model is 2D or 3D, not 4D");
  CHECK(input_error_of([] { ModelBuilder one(1); }) == "a model is 2D or 3D, not 1D");
}

TEST_CASE("model_builder: a creature draft takes additions before it is finalized") {
  const Creature whole = make_biped_2d();
  ModelBuilder builder(2);
  Creature draft = make_biped_2d(builder);
  CHECK(draft.model == nullptr);
  CHECK(draft.n_muscles == whole.n_muscles);
  CHECK(draft.body_length == whole.body_length);
  add_damping(builder.model(), 0.5, 0.0);
  draft.model = builder.finalize();
  // The same creature, plus the damping the draft's caller added.
  CHECK(draft.model->n_verts == whole.model->n_verts);
  CHECK(draft.model->X == whole.model->X);
  CHECK(draft.model->mass == whole.model->mass);
  CHECK(draft.model->terms.size() == whole.model->terms.size() + 1);
  CHECK(draft.model->terms.back()->name() == "damping");
  for (size_t k = 0; k < whole.model->terms.size(); ++k)
    CHECK(draft.model->terms[k]->name() == whole.model->terms[k]->name());
}

TEST_CASE("model_builder: a creature needs an empty builder of its dimension") {
  ModelBuilder used(2);
  add_square(used.model());
  CHECK(input_error_of([&] { make_biped_2d(used); }) ==
        "creature: the creature needs an empty 2D model builder");
  ModelBuilder flat(2);
  CHECK(input_error_of([&] { make_worm_3d(flat, 3); }) ==
        "worm_3d: the creature needs an empty 3D model builder");
  // The builder a generator refused is untouched.
  CHECK(flat.model().n_verts == 0);
  CHECK(used.model().n_verts == 9);
}

TEST_CASE("model_builder: a tendon column's draft finds its tip in the builder's model") {
  const TendonColumn whole = make_tendon_column(4);
  ModelBuilder builder(3);
  TendonColumn draft = make_tendon_column(builder, 4);
  CHECK(draft.creature.model == nullptr);
  CHECK(draft.tip == whole.tip);
  draft.creature.model = builder.finalize();
  CHECK(draft.creature.model->X.segment<3>(3 * draft.tip)
            .isApprox(Eigen::Vector3d(0.0, 4 * Creature3dOptions{}.cell, 0.0)));
}

TEST_CASE("model_builder: a scene's creature and robot share the scene's one const model") {
  for (const char* name : {"biped_2d", "quadruped_3d", "quadruped_rigid", "arm_reach"}) {
    CAPTURE(name);
    const Scene s = load_scene(std::filesystem::path(SOFTGRAD_SOURCE_DIR) / "scenes" /
                               (std::string(name) + ".json"));
    REQUIRE(s.locomotion);
    CHECK(s.locomotion->creature.model == s.model);
  }
}

}  // namespace
}  // namespace softgrad::test
