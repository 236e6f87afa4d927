// SVG line plots and mesh strips (plot.hpp). Hand-written SVG: a few hundred bytes of markup
// per curve, no plotting dependency, and the files open in any browser.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "softgrad/detail/plot.hpp"
#include "softgrad/errors.hpp"
#include "text_output.hpp"

namespace softgrad {
namespace {

constexpr double kPanelWidth = 720.0, kPanelHeight = 360.0;
constexpr double kLeft = 80.0, kRight = 190.0, kTop = 36.0, kBottom = 50.0;
constexpr std::array<const char*, 8> kColours = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                 "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void num(std::string& out, double v) { detail::append_number(out, std::round(v * 100) / 100); }

// The range of the finite (and, on a log axis, positive) values, padded if empty or flat.
struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  void add(double v, bool log_axis) {
    if (!std::isfinite(v) || (log_axis && v <= 0)) return;
    const double t = log_axis ? std::log10(v) : v;
    lo = std::min(lo, t), hi = std::max(hi, t);
  }
  void finish() {
    if (!(lo <= hi)) lo = 0, hi = 1;
    if (hi - lo < 1e-12 * std::max(1.0, std::abs(hi))) lo -= 0.5, hi += 0.5;
  }
};

// "Nice" tick step (1, 2 or 5 times a power of ten) for about `target` ticks.
double tick_step(double span, int target) {
  const double raw = span / target, mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

std::string tick_label(double t, bool log_axis) {
  std::string s;
  detail::append_number(s, log_axis ? std::pow(10.0, t) : (std::abs(t) < 1e-14 ? 0.0 : t));
  return s;
}

// Draws `plot` in the panel whose top left corner is (x0, y0).
void draw_plot(std::string& svg, const LinePlot& plot, double x0, double y0) {
  const double left = x0 + kLeft;
  Range rx, ry;
  for (const PlotSeries& s : plot.series) {
    if (s.x.size() != s.y.size())
      throw InputError("plot '" + plot.title + "': series '" + s.label + "' has " +
                       std::to_string(s.x.size()) + " x values and " + std::to_string(s.y.size()) +
                       " y values");
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (plot.log_y && s.y[i] <= 0)) continue;
      rx.add(s.x[i], plot.log_x), ry.add(s.y[i], plot.log_y);
    }
  }
  rx.finish(), ry.finish();
  const double pad = 0.04 * (ry.hi - ry.lo);
  if (!plot.log_y) ry.lo -= pad, ry.hi += pad;
  const double w = kPanelWidth - kLeft - kRight, h = kPanelHeight - kTop - kBottom;
  auto px = [&](double t) { return left + (t - rx.lo) / (rx.hi - rx.lo) * w; };
  auto py = [&](double t) { return y0 + kTop + (ry.hi - t) / (ry.hi - ry.lo) * h; };

  // Frame, title and axis labels.
  svg += "<rect x=\"";
  num(svg, left), svg += "\" y=\"", num(svg, y0 + kTop), svg += "\" width=\"", num(svg, w);
  svg += "\" height=\"", num(svg, h), svg += "\" fill=\"none\" stroke=\"#444\"/>\n";
  svg += "<text x=\"", num(svg, left + w / 2), svg += "\" y=\"", num(svg, y0 + 22);
  svg += "\" text-anchor=\"middle\" font-size=\"15\">" + escape(plot.title) + "</text>\n";
  svg += "<text x=\"", num(svg, left + w / 2), svg += "\" y=\"", num(svg, y0 + kPanelHeight - 10);
  svg += "\" text-anchor=\"middle\">" + escape(plot.x_label) + "</text>\n";
  svg += "<text transform=\"translate(", num(svg, x0 + 18), svg += ",", num(svg, y0 + kTop + h / 2);
  svg += ") rotate(-90)\" text-anchor=\"middle\">" + escape(plot.y_label) + "</text>\n";

  // Ticks with grid lines; a log axis gets one tick per decade (or fewer when many).
  for (int axis = 0; axis < 2; ++axis) {
    const Range& r = axis == 0 ? rx : ry;
    const bool log_axis = axis == 0 ? plot.log_x : plot.log_y;
    const double step =
        log_axis ? std::max(1.0, std::ceil((r.hi - r.lo) / 6)) : tick_step(r.hi - r.lo, 6);
    for (double t = std::ceil(r.lo / step) * step; t <= r.hi + 1e-9 * step; t += step) {
      const std::string label = tick_label(t, log_axis);
      if (axis == 0) {
        svg += "<line x1=\"", num(svg, px(t)), svg += "\" x2=\"", num(svg, px(t));
        svg += "\" y1=\"", num(svg, y0 + kTop), svg += "\" y2=\"", num(svg, y0 + kTop + h);
        svg += "\" stroke=\"#ddd\"/><text x=\"", num(svg, px(t)), svg += "\" y=\"";
        num(svg, y0 + kTop + h + 16), svg += "\" text-anchor=\"middle\">" + label + "</text>\n";
      } else {
        svg += "<line x1=\"", num(svg, left), svg += "\" x2=\"", num(svg, left + w);
        svg += "\" y1=\"", num(svg, py(t)), svg += "\" y2=\"", num(svg, py(t));
        svg += "\" stroke=\"#ddd\"/><text x=\"", num(svg, left - 6), svg += "\" y=\"";
        num(svg, py(t) + 4), svg += "\" text-anchor=\"end\">" + label + "</text>\n";
      }
    }
  }

  // Curves (broken at non-finite points), optional dots, and the legend.
  for (std::size_t k = 0; k < plot.series.size(); ++k) {
    const PlotSeries& s = plot.series[k];
    const std::string colour = s.colour.empty() ? kColours[k % kColours.size()] : s.colour;
    std::string path;
    bool pen_down = false;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      const bool ok = std::isfinite(s.x[i]) && std::isfinite(s.y[i]) &&
                      !(plot.log_y && s.y[i] <= 0) && !(plot.log_x && s.x[i] <= 0);
      if (!ok) {
        pen_down = false;
        continue;
      }
      const double X = px(plot.log_x ? std::log10(s.x[i]) : s.x[i]);
      const double Y = py(plot.log_y ? std::log10(s.y[i]) : s.y[i]);
      path += pen_down ? " L" : " M", num(path, X), path += ',', num(path, Y);
      pen_down = true;
      if (s.markers) {
        svg += "<circle cx=\"", num(svg, X), svg += "\" cy=\"", num(svg, Y);
        svg += "\" r=\"2.2\" fill=\"" + colour + "\"/>\n";
      }
    }
    if (!path.empty() && !(s.markers && s.dashed)) {
      svg +=
          "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"1.6\"";
      svg += s.dashed ? " stroke-dasharray=\"6,4\"/>\n" : "/>\n";
    }
    if (s.label.empty()) continue;
    const double ly = y0 + kTop + 14 + 18 * static_cast<double>(k);
    svg += "<line x1=\"", num(svg, left + w + 12), svg += "\" x2=\"", num(svg, left + w + 36);
    svg += "\" y1=\"", num(svg, ly - 4), svg += "\" y2=\"", num(svg, ly - 4);
    svg += "\" stroke=\"" + colour + "\" stroke-width=\"2\"/><text x=\"";
    num(svg, left + w + 42), svg += "\" y=\"", num(svg, ly), svg += "\">" + escape(s.label);
    svg += "</text>\n";
  }
}

std::string svg_header(double width, double height) {
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"";
  num(svg, width), svg += "\" height=\"", num(svg, height);
  svg += "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  return svg;
}

}  // namespace

void write_svg_plots(const std::string& path, const std::vector<LinePlot>& plots) {
  // One column for up to three panels, then two, then three: a picture of many panels (one per
  // marker coordinate) stays about as wide as it is high.
  const std::size_t n = plots.size();
  const std::size_t columns = n <= 3 ? 1 : n <= 8 ? 2 : 3;
  const std::size_t rows = (n + columns - 1) / columns;
  std::string svg = svg_header(kPanelWidth * static_cast<double>(std::max<std::size_t>(columns, 1)),
                               kPanelHeight * static_cast<double>(rows));
  for (std::size_t i = 0; i < n; ++i)
    draw_plot(svg, plots[i], kPanelWidth * static_cast<double>(i % columns),
              kPanelHeight * static_cast<double>(i / columns));
  svg += "</svg>\n";
  detail::write_file_atomically(path, svg);
}

void write_svg_plot(const std::string& path, const LinePlot& plot) {
  write_svg_plots(path, {plot});
}

void write_svg_mesh_strip(const std::string& path, const Mesh& mesh,
                          const std::vector<Eigen::VectorXd>& frames,
                          const MeshStripOptions& options) {
  if (mesh.dim != 2)
    throw InputError("write_svg_mesh_strip: the mesh is " + std::to_string(mesh.dim) +
                     "D; a strip of frames is drawn for 2D meshes only");
  if (frames.empty()) throw InputError("write_svg_mesh_strip: no frames to draw");
  const int n = static_cast<int>(frames.size());
  // Bounding box of one frame (side by side) or of all frames (overlay).
  Range bx, by;
  double frame_w = 0, frame_h = 0;
  for (int f = 0; f < n; ++f) {
    if (frames[f].size() != mesh.n_dofs())
      throw InputError("write_svg_mesh_strip: frame " + std::to_string(f) + " has " +
                       std::to_string(frames[f].size()) + " numbers, the mesh has " +
                       std::to_string(mesh.n_dofs()) + " degrees of freedom");
    Range fx, fy;
    for (int v = 0; v < mesh.n_verts(); ++v) {
      bx.add(frames[f][2 * v], false), by.add(frames[f][2 * v + 1], false);
      fx.add(frames[f][2 * v], false), fy.add(frames[f][2 * v + 1], false);
    }
    frame_w = std::max(frame_w, fx.hi - fx.lo), frame_h = std::max(frame_h, fy.hi - fy.lo);
  }
  if (std::isfinite(options.ground_height)) by.add(options.ground_height, false);
  bx.finish(), by.finish();
  const double margin = 0.1 * std::max(frame_w, frame_h) + 1e-9;
  const double world_w = options.overlay ? bx.hi - bx.lo + 2 * margin : n * (frame_w + 2 * margin);
  const double world_h = by.hi - by.lo + 2 * margin;
  const double scale = (options.width_px - 20) / world_w, top = 40;
  const double height = top + world_h * scale + 20;
  std::string svg = svg_header(options.width_px, height);
  svg += "<text x=\"10\" y=\"24\" font-size=\"15\">" + escape(options.title) + "</text>\n";
  auto sy = [&](double y) { return top + (by.hi + margin - y) * scale; };
  if (std::isfinite(options.ground_height)) {
    svg += "<line x1=\"0\" x2=\"", num(svg, options.width_px), svg += "\" y1=\"";
    num(svg, sy(options.ground_height)), svg += "\" y2=\"", num(svg, sy(options.ground_height));
    svg += "\" stroke=\"#555\" stroke-width=\"2\"/>\n";
  }
  for (int f = 0; f < n; ++f) {
    Range fx;
    for (int v = 0; v < mesh.n_verts(); ++v) fx.add(frames[f][2 * v], false);
    const double shift =
        options.overlay ? margin - bx.lo : f * (frame_w + 2 * margin) + margin - fx.lo;
    auto sx = [&](double x) { return 10 + (x + shift) * scale; };
    const double opacity = options.overlay && n > 1 ? 0.15 + 0.85 * f / (n - 1) : 1.0;
    svg += "<g fill=\"#9ecae1\" stroke=\"#08519c\" stroke-width=\"0.6\" fill-opacity=\"";
    num(svg, opacity), svg += "\" stroke-opacity=\"", num(svg, opacity), svg += "\">\n";
    for (int e = 0; e < mesh.n_elems(); ++e) {
      svg += "<polygon points=\"";
      for (int a = 0; a < 3; ++a) {
        const int v = mesh.elems(e, a);
        num(svg, sx(frames[f][2 * v])), svg += ',', num(svg, sy(frames[f][2 * v + 1])), svg += ' ';
      }
      svg += "\"/>\n";
    }
    svg += "</g>\n";
  }
  svg += "</svg>\n";
  detail::write_file_atomically(path, svg);
}

}  // namespace softgrad
