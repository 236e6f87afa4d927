#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "io/io_test_support.hpp"
#include "softgrad/detail/plot.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/mesh_generators.hpp"

using namespace softgrad;

namespace {
int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("io/svg_plot: a plot has one path per series, a legend and labelled ticks") {
  test::TempDir dir;
  LinePlot plot{"loss", "step", "value", {}, false, false};
  plot.series.push_back({"adam", {0, 1, 2, 3}, {4, 3, 2.5, 1}});
  plot.series.push_back({"recorded", {0, 1, 2, 3}, {4, 2, NAN, 1}, false, true});
  write_svg_plot(dir.file("p.svg"), plot);
  const std::string svg = test::read_text(dir.file("p.svg"));
  CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(count(svg, "<path ") == 2);
  CHECK(count(svg, "<circle ") == 3);  // the NaN point is left out
  CHECK(svg.find(">adam</text>") != std::string::npos);
  CHECK(svg.find(">recorded</text>") != std::string::npos);
  CHECK(svg.find(">step</text>") != std::string::npos);
  // The NaN breaks the recorded curve into two pieces: two moves in its path.
  const auto second = svg.find("<path ", svg.find("<path ") + 1);
  CHECK(count(svg.substr(second, svg.find("/>", second) - second), " M") == 2);
}

TEST_CASE("io/svg_plot: log axes drop non-positive values, stacked plots, bad input named") {
  test::TempDir dir;
  LinePlot a{"residual", "iteration", "norm", {{"r", {1, 2, 3}, {1e-1, 0.0, 1e-6}}}, true, false};
  LinePlot b{"second", "x", "y", {{"", {0, 1}, {5, 5}}}, false, false};  // flat range is padded
  write_svg_plots(dir.file("two.svg"), {a, b});
  const std::string svg = test::read_text(dir.file("two.svg"));
  CHECK(svg.find("height=\"720\"") != std::string::npos);
  CHECK(svg.find(">1e-06</text>") != std::string::npos);  // a decade tick
  CHECK(svg.find("nan") == std::string::npos);

  LinePlot bad{"broken", "x", "y", {{"s", {0, 1}, {1}}}, false, false};
  CHECK(test::input_error_of([&] {
          write_svg_plot(dir.file("b.svg"), bad);
        }).find("plot 'broken': series 's' has 2 x values and 1 y values") != std::string::npos);
}

TEST_CASE("io/svg_plot: a mesh strip draws every triangle of every frame") {
  test::TempDir dir;
  const Mesh mesh = rectangle_tri_mesh(2, 1, Eigen::Vector2d(2.0, 1.0));
  std::vector<Eigen::VectorXd> frames;
  for (int f = 0; f < 3; ++f) {
    Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(mesh.X.data(), mesh.n_dofs());
    for (int v = 0; v < mesh.n_verts(); ++v) x[2 * v] += 1.5 * f;
    frames.push_back(x);
  }
  for (bool overlay : {true, false}) {
    write_svg_mesh_strip(dir.file("s.svg"), mesh, frames, {"gait", overlay, 0.0, 800.0});
    const std::string svg = test::read_text(dir.file("s.svg"));
    CHECK(count(svg, "<polygon ") == 3 * mesh.n_elems());
    CHECK(svg.find(">gait</text>") != std::string::npos);
  }
  frames[1].resize(3);
  CHECK(test::input_error_of([&] {
          write_svg_mesh_strip(dir.file("s.svg"), mesh, frames);
        }).find("frame 1 has 3 numbers") != std::string::npos);
}

TEST_CASE("io/svg_plot: many panels go in columns, with dots alone and chosen colours") {
  test::TempDir dir;
  LinePlot panel{"marker", "t", "x", {}, false, false};
  panel.series.push_back({"recorded", {0, 1, 2}, {1, 3, 2}, true, true, ""});  // dots alone
  panel.series.push_back({"fitted", {0, 1, 2}, {1, 2.5, 2}, false, false, "#123456"});
  write_svg_plots(dir.file("six.svg"), std::vector<LinePlot>(6, panel));
  const std::string six = test::read_text(dir.file("six.svg"));
  // Two columns of three rows (720 x 360 panels), not one column of six (720 x 2160).
  CHECK(six.find("width=\"1440\" height=\"1080\"") != std::string::npos);
  CHECK(count(six, "<circle ") == 18);
  CHECK(count(six, "<path ") == 6);               // the fitted curves only
  CHECK(count(six, "stroke=\"#123456\"") == 12);  // each curve and its legend line
  write_svg_plots(dir.file("ten.svg"), std::vector<LinePlot>(10, panel));
  CHECK(test::read_text(dir.file("ten.svg")).find("width=\"2160\" height=\"1440\"") !=
        std::string::npos);
}
