/// @file command_line.hpp
/// The command lines of the benchmarks: a walk over the arguments (Arguments), and option-value
/// parsing of lists, numbers, beam sizes and linear-solver names. A bad value throws
/// std::invalid_argument with the message the program prints after "<program>: " before it exits
/// with status 1.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cantilever_beam.hpp"
#include "softgrad/solvers/linear_solver.hpp"

namespace softgrad::bench {

/// The non-empty items of `s` between the separators `sep`.
inline std::vector<std::string> split_list(const std::string& s, char sep = ',') {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

/// The value `v` of option `opt` as a finite number.
/// @throws std::invalid_argument if `v` is not one.
inline double parse_number(const std::string& opt, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x))
    throw std::invalid_argument("option " + opt + " needs a number, got '" + v + "'");
  return x;
}

/// The value `v` of option `opt` as an integer of magnitude at most 1e9.
/// @throws std::invalid_argument if `v` is not one.
inline int parse_int(const std::string& opt, const std::string& v) {
  const double x = parse_number(opt, v);
  if (x != std::floor(x) || std::abs(x) > 1e9)
    throw std::invalid_argument("option " + opt + " needs an integer, got '" + v + "'");
  return static_cast<int>(x);
}

/// The arguments of a command line in order: `for (Arguments args(argc, argv); args.next();)`
/// visits each; option() is the current one, value() takes the argument after it as its value,
/// integer(), number() and list() parse that value.
class Arguments {
 public:
  Arguments(int argc, char** argv) : argc_(argc), argv_(argv) {}
  /// Moves to the next argument; false past the last.
  bool next() {
    if (i_ + 1 >= argc_) return false;
    option_ = argv_[++i_];
    return true;
  }
  const std::string& option() const { return option_; }
  /// @throws std::invalid_argument if the option is the last argument.
  std::string value() {
    if (i_ + 1 >= argc_) throw std::invalid_argument("option " + option_ + " needs a value");
    return argv_[++i_];
  }
  /// @throws std::invalid_argument if the value is missing or not an integer (|x| <= 1e9).
  int integer() { return parse_int(option_, value()); }
  /// @throws std::invalid_argument if the value is missing or not a finite number.
  double number() { return parse_number(option_, value()); }
  /// The value's comma-separated items. @throws std::invalid_argument if it is missing.
  std::vector<std::string> list() { return split_list(value()); }

 private:
  int argc_;
  char** argv_;
  int i_ = 0;
  std::string option_;
};

/// Walks the command line, calling each option's handler in `options`; then `check` (may be
/// empty), which throws std::invalid_argument for values that do not go together. An unknown
/// option or a bad value prints "program: the problem" and `usage` on stderr.
/// @return false then (the caller exits with status 1).
inline bool parse_command_line(
    int argc, char** argv, const char* program, const char* usage,
    const std::map<std::string, std::function<void(Arguments&)>>& options,
    const std::function<void()>& check = {}) {
  try {
    for (Arguments args(argc, argv); args.next();) {
      const auto handler = options.find(args.option());
      if (handler == options.end()) throw std::invalid_argument("unknown option " + args.option());
      handler->second(args);
    }
    if (check) check();
    return true;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n%s\n", program, e.what(), usage);
    return false;
  }
}

/// Cells (nx, ny, nz) of a size name: 1k / 10k / 50k or NXxNYxNZ (parse_cells).
/// @throws std::invalid_argument for any other name.
inline Cells parse_size(const std::string& s) {
  if (const auto c = parse_cells(s)) return *c;
  throw std::invalid_argument("unknown size '" + s +
                              "': use 1k, 10k, 50k or cells NXxNYxNZ (e.g. 40x4x4)");
}

/// "a, b or c": the names of `names` for an error message.
inline std::string one_of(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ")) + names[i];
  return s;
}

/// Linear solver options of a solver name with CG tolerance cg_tol: cholmod, matfree
/// (Jacobi-preconditioned CG on element Hessian-vector products), pcg-jacobi, pcg-ichol, or pcg
/// (= pcg-jacobi). Only the names in `accepted` (what the program documents) are taken; `what`
/// is the program's word for them in the error ("backend", "solver").
/// @throws std::invalid_argument for a name outside `accepted`.
inline LinearSolverOptions linear_options(const std::string& name, double cg_tol,
                                          const std::string& what,
                                          const std::vector<std::string>& accepted) {
  bool known = false;
  for (const std::string& a : accepted) known = known || a == name;
  LinearSolverOptions o;
  o.rel_tol = cg_tol;
  if (known && (name == "cholmod" || name == "matfree")) {
    o.kind = name;
  } else if (known && (name == "pcg" || name == "pcg-jacobi" || name == "pcg-ichol")) {
    o.kind = "pcg";
    o.preconditioner = name == "pcg-ichol" ? "ichol" : "jacobi";
  } else {
    throw std::invalid_argument("unknown " + what + " '" + name + "': use " + one_of(accepted));
  }
  return o;
}

}  // namespace softgrad::bench
