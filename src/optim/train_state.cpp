#include "train_state.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

#include "../io/input_file.hpp"
#include "../io/text_output.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::detail {
namespace {

constexpr const char* kHeader = "softgrad-train-state 1";

void put(std::ostream& out, const char* key, const Eigen::VectorXd& v) {
  out << key << " " << v.size() << "\n";
  for (Eigen::Index i = 0; i < v.size(); ++i) out << v[i] << "\n";
}

class Reader {
 public:
  Reader(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {}

  // A whole integer token ("61.0", "7x" or one out of T's range is refused, not cut short).
  template <class T>
  T value(const char* key) {
    std::string k, text;
    if (!(in_ >> k) || k != key || !(in_ >> text))
      throw InputError(file_ + ": expected '" + key + " <value>' (not a training state, or cut)");
    T v{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (error != std::errc() || end != text.data() + text.size())
      throw InputError(file_ + ": '" + key + "' is not an integer in range: " + text);
    return v;
  }
  // A number, "inf" included (the best loss before any finite one).
  double number(const char* key) {
    std::string k, text;
    if (!(in_ >> k) || k != key || !(in_ >> text))
      throw InputError(file_ + ": expected '" + key + " <value>' (not a training state, or cut)");
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size())
      throw InputError(file_ + ": '" + key + "' is not a number: " + text);
    return v;
  }
  Eigen::VectorXd vector(const char* key, Eigen::Index expected = -1) {
    const long n = value<long>(key);
    if (n < 0 || (expected >= 0 && n != expected) || n > 100'000'000)
      throw InputError(file_ + ": '" + key + "' has " + std::to_string(n) + " values" +
                       (expected >= 0 ? ", expected " + std::to_string(expected) : ""));
    Eigen::VectorXd v(n);
    for (long i = 0; i < n; ++i) {
      std::string text;
      if (!(in_ >> text))
        throw InputError(file_ + ": '" + key + "' value " + std::to_string(i + 1) + " is missing");
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v[i]);
      if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(v[i]))
        throw InputError(file_ + ": '" + key + "' value " + std::to_string(i + 1) +
                         " is not a finite number: " + text);
    }
    return v;
  }
  // Nothing but blanks may follow the last vector (a longer file is not the one written).
  void end() {
    std::string extra;
    if (in_ >> extra)
      throw InputError(file_ +
                       ": unexpected text after the training state: " + extra.substr(0, 40));
  }

 private:
  std::istream& in_;
  std::string file_;
};

}  // namespace

void save_train_state(const std::string& file, const TrainState& s) {
  std::ostringstream out;
  out << kHeader << "\n" << std::setprecision(17);
  out << "iteration " << s.iteration << "\nsimulated_steps " << s.simulated_steps
      << "\ngradient_evaluations " << s.gradient_evaluations << "\nseconds " << s.seconds
      << "\nbest_loss " << s.best_loss << "\nlearning_rate " << s.learning_rate << "\nadam_steps "
      << s.adam_steps << "\n";
  put(out, "theta", s.theta);
  put(out, "best", s.best);
  put(out, "m", s.m);
  put(out, "v", s.v);
  write_file_atomically(file, out.str());
}

TrainState load_train_state(const std::string& file) {
  detail::refuse_special_file(file, "training state");
  std::ifstream in(file);
  if (!in) throw InputError(file + ": cannot read the training state");
  std::string header;
  std::getline(in, header);
  if (header != kHeader) throw InputError(file + ": not a softgrad training state");
  Reader r(in, file);
  TrainState s;
  s.iteration = r.value<int>("iteration");
  s.simulated_steps = r.value<long>("simulated_steps");
  s.gradient_evaluations = r.value<int>("gradient_evaluations");
  s.seconds = r.number("seconds");
  s.best_loss = r.number("best_loss");
  s.learning_rate = r.number("learning_rate");
  s.adam_steps = r.value<int>("adam_steps");
  s.theta = r.vector("theta");
  s.best = r.vector("best");
  s.m = r.vector("m", s.theta.size());
  s.v = r.vector("v", s.theta.size());
  r.end();
  // The best loss is a number, or +inf before any finite one; counts stay far from overflow.
  constexpr int kMaxIterations = 1'000'000'000;
  if (s.iteration < 0 || s.iteration > kMaxIterations || s.simulated_steps < 0 ||
      s.gradient_evaluations < 0 || s.adam_steps < 0 || s.adam_steps > kMaxIterations ||
      !(s.learning_rate > 0) || !std::isfinite(s.learning_rate) || std::isnan(s.best_loss) ||
      s.best_loss == -std::numeric_limits<double>::infinity() || !(s.seconds >= 0))
    throw InputError(file + ": the training state is not valid (a count out of range, or a " +
                     "learning rate, best loss or time that is not a number)");
  return s;
}

}  // namespace softgrad::detail
