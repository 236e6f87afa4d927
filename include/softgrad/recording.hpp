/// @file recording.hpp
/// Recorded marker trajectories, and how a simulation is sampled at the recorded times.
///
/// CSV format (one observation per line; '#' starts a comment; a header line is optional):
///
///     time,marker,x,y[,z]
///     0.00,tip,0.300,0.050,0.050
///     0.02,tip,0.300,0.048,0.050
///
/// time in seconds, non-decreasing (lines with equal times form one frame); marker a name from
/// the scene's markers, or "v<index>" for mesh vertices (full per-vertex trajectories);
/// coordinates in metres. Frames need not match the time step, and any frame may miss any
/// marker. Bad lines (unknown marker, decreasing time, NaN, wrong column count, a marker twice
/// in one frame) are InputErrors naming the file and line.
#pragma once

#include <Eigen/Core>
#include <filesystem>
#include <string>
#include <vector>

#include "softgrad/markers.hpp"

namespace softgrad {

struct Recording {
  struct Observation {
    int frame = 0;
    int marker = 0;            ///< index into the MarkerSet
    Eigen::VectorXd position;  ///< [m]
  };
  std::vector<double> times;  ///< frame times [s], strictly increasing
  std::vector<Observation> observations;

  double duration() const { return times.empty() ? 0.0 : times.back(); }
};

/// Reads a CSV recording; marker names resolve against `markers`.
Recording read_recording(const std::filesystem::path& file, const MarkerSet& markers);
/// Writes a recording in the format above (full precision).
void write_recording(const std::filesystem::path& file, const Recording& recording,
                     const MarkerSet& markers);

/// Where time t falls in a rollout from t0 with step dt: the simulated position at t is
/// x_state - back * v_state, exactly the backward-Euler path (linear between steps), using the
/// state at or after t (so a loss on it is a function of one state: x and v).
struct SampleAt {
  int state = 0;
  double back = 0.0;  ///< [s], in [0, dt)
};
/// @throws InputError if t lies before t0 or after the last of `steps` steps.
SampleAt sample_at(double t, double t0, double dt, int steps);

}  // namespace softgrad
