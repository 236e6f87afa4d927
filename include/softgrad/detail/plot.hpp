/// @file plot.hpp
/// Pictures that need no ParaView: line plots (loss curves, recorded against fitted markers,
/// reward against simulated steps) and strips of 2D mesh frames (a gait), written as SVG files
/// that any web browser shows.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "softgrad/mesh.hpp"

namespace softgrad {

/// One curve of a line plot. `x` and `y` have the same length; non-finite points break the line.
struct PlotSeries {
  std::string label;  ///< legend entry; empty for none
  std::vector<double> x, y;
  bool dashed = false;
  bool markers = false;  ///< draw a dot at each point (recorded data) as well as the line;
                         ///< with `dashed` as well, the dots alone (noisy samples)
  std::string colour{};  ///< an SVG colour ("#1f77b4"); empty: the plot's next colour
};

/// A line plot with axes, ticks, labels and a legend.
struct LinePlot {
  std::string title, x_label, y_label;
  std::vector<PlotSeries> series;
  bool log_y = false;  ///< logarithmic y axis (non-positive values are left out)
  bool log_x = false;
};

/// Several plots in one picture (e.g. one panel per marker coordinate): stacked in one column
/// for up to three, in two columns for up to eight, in three beyond.
/// @throws InputError "cannot write '<path>': ..." if the file cannot be written, or
/// "plot '<title>': ..." if a series' x and y differ in length.
void write_svg_plots(const std::string& path, const std::vector<LinePlot>& plots);
/// One plot.
void write_svg_plot(const std::string& path, const LinePlot& plot);

/// Options of a mesh strip.
struct MeshStripOptions {
  std::string title;
  /// true: frames drawn in one panel, older ones fainter (a chronophotograph); false: side by
  /// side, one panel per frame.
  bool overlay = true;
  double ground_height = 0.0;  ///< a ground line at y = ground_height; NaN for none
  double width_px = 1200.0;
};

/// Draws frames of a 2D mesh (triangles; each frame a flat position vector of n_dofs numbers),
/// so that a gait can be seen without ParaView.
/// @throws InputError if the mesh is not 2D, a frame has the wrong size, or the file cannot be
/// written.
void write_svg_mesh_strip(const std::string& path, const Mesh& mesh,
                          const std::vector<Eigen::VectorXd>& frames,
                          const MeshStripOptions& options = {});

}  // namespace softgrad
