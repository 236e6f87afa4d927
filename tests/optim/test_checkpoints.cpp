// Parameter files and training states are read token by token and refused whole when anything
// is off: a count written "61.0" once shifted every value by one, trailing text was ignored, a
// count of 1e12 was allocated, an iteration near 2^31 overflowed, a NaN best loss was taken.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <limits>
#include <string>

#include "../../src/optim/train_state.hpp"
#include "io/io_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/training.hpp"

using namespace softgrad;
using namespace softgrad::test;

TEST_CASE("optim/checkpoints: a parameter file reads back exactly, and nothing else is taken") {
  TempDir dir;
  const std::string path = dir.file("best_parameters.txt");
  const Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(4, -1.0 / 3.0, 2.0e-7);
  save_parameters(path, theta);
  CHECK(load_parameters(path) == theta);  // bit for bit
  const auto error = [&](const std::string& text) {
    write_text(path, text);
    return input_error_of([&] { load_parameters(path); });
  };
  CHECK(error("2.0\n1\n2\n").find("expected the number of values first, an integer") !=
        std::string::npos);
  CHECK(error("2\n1\n2\n3\n").find("declares 2 values but holds 3") != std::string::npos);
  CHECK(error("1000000000000\n1\n").find("declares 1000000000000 values but holds 1") !=
        std::string::npos);
  CHECK(error("2\n1\n2x\n").find("value 2 is not a finite number: 2x") != std::string::npos);
  CHECK(error("2\n1\nnan\n").find("value 2 is not a finite number: nan") != std::string::npos);
  CHECK(error("").find("expected the number of values first") != std::string::npos);
}

TEST_CASE("optim/checkpoints: a training state reads back, and a damaged one is refused") {
  TempDir dir;
  const std::string path = dir.file("train_state.txt");
  detail::TrainState s;
  s.iteration = 7;
  s.simulated_steps = 700;
  s.gradient_evaluations = 7;
  s.seconds = 1.5;
  s.best_loss = std::numeric_limits<double>::infinity();
  s.learning_rate = 0.01;
  s.adam_steps = 7;
  s.theta = Eigen::VectorXd::LinSpaced(3, 0.1, 0.3);
  s.best = s.theta;
  s.m = Eigen::VectorXd::Constant(3, 1e-3);
  s.v = Eigen::VectorXd::Constant(3, 1e-6);
  detail::save_train_state(path, s);
  const detail::TrainState back = detail::load_train_state(path);
  CHECK(back.iteration == 7);
  CHECK(back.best_loss == s.best_loss);
  CHECK(back.theta == s.theta);
  CHECK(back.v == s.v);
  const std::string good = read_text(path);
  const auto error = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    REQUIRE(text.find(from) != std::string::npos);
    write_text(path, text.replace(text.find(from), from.size(), to));
    return input_error_of([&] { detail::load_train_state(path); });
  };
  CHECK(error("iteration 7", "iteration 2147483647").find("the training state is not valid") !=
        std::string::npos);
  CHECK(error("iteration 7", "iteration 99999999999")
            .find("'iteration' is not an integer in "
                  "range") != std::string::npos);
  CHECK(error("iteration 7", "iteration 7.0").find("'iteration' is not an integer") !=
        std::string::npos);
  CHECK(error("best_loss inf", "best_loss nan").find("the training state is not valid") !=
        std::string::npos);
  write_text(path, good + "garbage\n");
  CHECK(input_error_of([&] {
          detail::load_train_state(path);
        }).find("unexpected text after the training state: garbage") != std::string::npos);
}
