/// @file parallel.hpp
/// When loops go parallel. Below these sizes an OpenMP team costs more than it saves, and on a
/// busy machine its spin-waiting threads can make small scenes many times slower.
#pragma once

namespace softgrad {

/// Element loops (energy, gradient, Hessian, products) with fewer elements run serially.
inline constexpr int kParallelMinElements = 1024;
/// Loops over matrix entries or vector entries with fewer entries run serially.
inline constexpr int kParallelMinEntries = 65536;

}  // namespace softgrad
