/// @file errors.hpp
/// softgrad's three tiers of checks (STYLE.md §6):
///  - SOFTGRAD_ASSERT(cond): a developer assumption in hot code; armed in Debug, free in Release.
///  - SOFTGRAD_CHECK(cond, msg): always on; a failure is a bug and throws InternalError.
///  - InputError: bad user input (scene, mesh, parameters, API arguments), with what, where and
///    how to fix it.
/// Numerical outcomes (Newton or CG not converging) are reports, not exceptions.
#pragma once

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

/// Marks functions that must also compile as CUDA device code (element kernels, AD).
#if defined(__CUDACC__)
#define SOFTGRAD_HD __host__ __device__
#else
#define SOFTGRAD_HD
#endif

namespace softgrad {

/// `text` with every byte that is not printable UTF-8 (invalid sequences, control characters
/// other than newline and tab, DEL) written as \xNN.
std::string printable_message(const std::string& text);

/// Bad input from a user: the message says what is wrong, where, and how to fix it.
/// Its message is made printable (printable_message): it often quotes the input, and a bad
/// file's raw bytes must not reach a terminal or fail to decode in Python.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(printable_message(what)) {}
  explicit InputError(const char* what) : InputError(std::string(what)) {}
};

/// A simulation that could not be carried out as asked: Newton did not converge in a step and
/// the failure policy says stop. The message names the step and the reason.
class ConvergenceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  /// A failed step: its index and the Newton residual ||g_free||_inf it ended at.
  ConvergenceError(const std::string& what, int failed_step, double last_residual)
      : std::runtime_error(what), step(failed_step), residual(last_residual) {}
  int step = -1;          ///< the failed step (-1: not one step's failure)
  double residual = NAN;  ///< the last Newton residual of that step (NaN: not known)
};

/// A broken internal invariant: a bug in softgrad, never the user's fault.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {
[[noreturn]] inline void throw_internal(const char* cond, const std::string& msg, const char* file,
                                        int line) {
  std::ostringstream os;
  os << "softgrad internal error at " << file << ":" << line << ": check '" << cond << "' failed";
  if (!msg.empty()) os << ": " << msg;
  throw InternalError(os.str());
}
}  // namespace detail

}  // namespace softgrad

#define SOFTGRAD_CHECK(cond, msg)                                                              \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      std::ostringstream softgrad_check_os_;                                                   \
      softgrad_check_os_ << msg;                                                               \
      ::softgrad::detail::throw_internal(#cond, softgrad_check_os_.str(), __FILE__, __LINE__); \
    }                                                                                          \
  } while (false)

#ifdef NDEBUG
#define SOFTGRAD_ASSERT(cond) ((void)0)
#else
#define SOFTGRAD_ASSERT(cond) SOFTGRAD_CHECK(cond, "assertion")
#endif
