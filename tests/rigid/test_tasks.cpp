// The seed's robot tasks as scenes: each loads, runs a short episode, and its training gradient
// (the mean loss over its episodes, with respect to what `softgrad train` optimises) equals
// central differences along a random direction.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>

#include "softgrad/adjoint.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/scene.hpp"
#include "softgrad/training.hpp"

using namespace softgrad;

namespace {

/// The mean loss over the task's episodes of `steps` steps at theta, and its gradient.
struct TaskObjective {
  Scene scene;
  std::unique_ptr<Simulator> sim;
  std::vector<Rollout> rollouts;
  std::vector<std::shared_ptr<const Loss>> losses;
  std::unique_ptr<ParameterSet> params;

  TaskObjective(const std::string& name, int steps, int episodes) {
    scene = load_scene(std::filesystem::path(SOFTGRAD_SOURCE_DIR) / "scenes" / (name + ".json"));
    scene.options.newton.tolerance = 1e-11;
    sim = std::make_unique<Simulator>(scene.model, scene.options);
    Rollout base = scene.rollout(*sim);
    base.steps = steps;
    const Locomotion& loc = *scene.locomotion;
    for (const TaskEpisode& e : loc.episodes(episodes)) {
      rollouts.push_back(loc.episode_rollout(base, e));
      losses.push_back(loc.make_loss(e));
    }
    params = std::make_unique<ParameterSet>(*sim, rollouts.front(), loc.trained_parameters());
  }
  double loss(const Eigen::VectorXd& theta, Eigen::VectorXd* grad) {
    double l = 0.0;
    if (grad) grad->setZero(theta.size());
    for (size_t k = 0; k < rollouts.size(); ++k) {
      Rollout r = rollouts[k];
      params->set(*sim, r, theta);
      const Trajectory t = simulate(*sim, r);
      if (grad) {
        const GradientResult g = gradient(*sim, t, *losses[k], *params);
        CHECK(g.report.trustworthy());
        *grad += g.gradient / static_cast<double>(rollouts.size());
      }
      l += evaluate_loss(*sim, t, *losses[k]) / static_cast<double>(rollouts.size());
    }
    return l;
  }
};

void check_task_gradient(const std::string& name, int steps, int episodes, double h) {
  INFO(name);
  TaskObjective f(name, steps, episodes);
  const Eigen::VectorXd theta = f.params->get(*f.sim, f.rollouts.front());
  Eigen::VectorXd g;
  const double l = f.loss(theta, &g);
  CHECK(std::isfinite(l));
  std::mt19937_64 gen(5);
  std::normal_distribution<double> n01;
  Eigen::VectorXd d(theta.size());
  for (int i = 0; i < d.size(); ++i) d[i] = n01(gen);
  d /= d.norm();
  const double fd = (f.loss(theta + h * d, nullptr) - f.loss(theta - h * d, nullptr)) / (2 * h);
  MESSAGE(name << ": " << theta.size() << " parameters, loss " << l << ", adjoint " << g.dot(d)
               << ", central difference " << fd);
  CHECK(std::abs(fd) > 1e-9);
  CHECK(g.dot(d) == doctest::Approx(fd).epsilon(1e-5));
}

}  // namespace

TEST_CASE("rigid/tasks: the ball throw's gradient in its launch velocity and spin") {
  check_task_gradient("ball_throw", 120, 1, 1e-6);  // flies, lands and rolls
}

TEST_CASE("rigid/tasks: the arm's gradient in its MLP policy over sampled goals") {
  check_task_gradient("arm_reach", 40, 2, 1e-6);
}

TEST_CASE("rigid/tasks: the cart-pole's gradient in its MLP policy after kicks") {
  check_task_gradient("cart_pole", 60, 2, 1e-6);
}

TEST_CASE("rigid/tasks: the quadruped's gradient in its gait, its feet on the ground") {
  check_task_gradient("quadruped_rigid", 40, 1, 1e-6);
}

// "large": 30 s under the sanitizers, which cover the same code in the rigid-body units.
TEST_CASE("rigid/tasks: the ball throw and the arm train" * doctest::test_suite("large")) {
  // A few Adam iterations on the scenes' own settings: the mean loss falls by a large factor.
  struct Case {
    const char* name;
    int steps, goals, iterations;
    double factor;
  };
  for (const Case& c : {Case{"ball_throw", 500, 1, 15, 20.0}, Case{"arm_reach", 100, 2, 6, 2.0}}) {
    const std::string name = c.name;
    const int iterations = c.iterations;
    INFO(name);
    TaskObjective f(name, c.steps, c.goals);
    std::vector<Episode> episodes;
    for (size_t k = 0; k < f.rollouts.size(); ++k) episodes.push_back({f.rollouts[k], f.losses[k]});
    const Locomotion& loc = *f.scene.locomotion;
    TrainOptions o;
    o.iterations = iterations;
    o.learning_rate = loc.train.learning_rate;
    o.clip = loc.train.clip;
    const TrainReport r = train(*f.sim, episodes, *f.params, o);
    const double first = r.history.front().loss;
    MESSAGE(name << ": loss " << first << " -> " << r.best_loss << " in " << iterations
                 << " iterations");
    CHECK(r.best_loss < first / c.factor);
  }
}
