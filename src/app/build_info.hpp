/// @file build_info.hpp
/// What `softgrad --version` prints: the version and the optional parts of this build (CUDA,
/// MPI, the Python module), the BLAS that CHOLMOD's dgemm actually resolves to, and threads.
#pragma once

#include <string>

namespace softgrad::app {

/// Several lines, the first "softgrad <version>".
std::string build_info();

}  // namespace softgrad::app
