#include "app/sysid_field.hpp"

#include <limits>

#include "softgrad/frame_writer.hpp"
#include "softgrad/io.hpp"

namespace softgrad::app {
namespace {

// Where the body's elements start in the model's element order (that of combined_mesh).
int first_element(const Model& model, const Body* body) {
  int e0 = 0;
  for (const Body& b : model.bodies) {
    if (&b == body) return e0;
    e0 += b.n_elems();
  }
  return -1;
}

}  // namespace

std::vector<ParameterSet::Block> fitted_fields(const MarkerScene& p,
                                               const std::vector<std::string>& names) {
  std::vector<ParameterSet::Block> fields;
  const ParameterSet params(*p.sim, p.rollout, names);
  for (const ParameterSet::Block& b : params.blocks())
    if (b.source == ParameterSet::Source::Term && !b.tied && b.group.body &&
        b.group.layout == ParameterGroup::Layout::PerElement && b.group.width == 1)
      fields.push_back(b);
  return fields;
}

void write_field_vtu(const std::filesystem::path& path, const MarkerScene& p,
                     const std::vector<ParameterSet::Block>& fields, const SysIdReport& r,
                     VtuEncoding encoding) {
  if (fields.empty()) return;
  const Model& model = *p.scene.model;
  const Mesh mesh = combined_mesh(model);
  std::vector<CellField> cells;
  for (const ParameterSet::Block& b : fields) {
    const int e0 = first_element(model, b.group.body);
    const struct {
      const char* what;
      const Eigen::VectorXd& values;
    } columns[] = {{"initial", r.initial}, {"estimate", r.estimate}, {"stddev", r.stddev}};
    for (const auto& c : columns) {
      CellField f{
          b.name + " " + c.what, 1,
          Eigen::VectorXd::Constant(mesh.n_elems(), std::numeric_limits<double>::quiet_NaN())};
      if (c.values.size() >= b.offset + b.size && e0 >= 0)
        f.values.segment(e0, b.size) = c.values.segment(b.offset, b.size);
      cells.push_back(std::move(f));
    }
  }
  write_vtu(path.string(), mesh, model.X, {}, cells, encoding);
}

std::vector<LinePlot> field_plots(const std::vector<ParameterSet::Block>& fields,
                                  const SysIdReport& r) {
  std::vector<LinePlot> plots;
  for (const ParameterSet::Block& b : fields) {
    PlotSeries estimate{"estimate", {}, {}, false, true, ""};
    // The band of one standard deviation, in one colour under one legend entry; left out where
    // the fit gave no standard deviations (so that no legend names curves that are not there).
    PlotSeries low{"estimate +- 1 stddev", {}, {}, true, false, "#7f7f7f"};
    PlotSeries high{"", {}, {}, true, false, "#7f7f7f"};
    PlotSeries initial{"initial guess", {}, {}, true, false, ""};
    bool any_stddev = false;
    for (int e = 0; e < b.size; ++e) {
      const int i = b.offset + e;
      for (PlotSeries* s : {&estimate, &low, &high, &initial}) s->x.push_back(e);
      estimate.y.push_back(r.estimate[i]);
      initial.y.push_back(r.initial[i]);
      const bool known = i < r.stddev.size() && std::isfinite(r.stddev[i]);
      any_stddev = any_stddev || (known && r.stddev[i] > 0.0);
      low.y.push_back(known ? r.estimate[i] - r.stddev[i] : std::nan(""));
      high.y.push_back(known ? r.estimate[i] + r.stddev[i] : std::nan(""));
    }
    LinePlot plot;
    plot.title = "field " + b.name + " per element";
    plot.x_label = "element";
    plot.y_label = b.name + (b.group.unit.empty() ? "" : " [" + b.group.unit + "]");
    plot.series = {initial, estimate};
    if (any_stddev) plot.series.insert(plot.series.end(), {low, high});
    plots.push_back(std::move(plot));
  }
  return plots;
}

}  // namespace softgrad::app
