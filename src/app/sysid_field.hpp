/// @file sysid_field.hpp
/// A fitted field (a per-element parameter, "youngs[]") as users look at it: in ParaView over
/// the mesh, and drawn against the element index in fit.svg.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "app/sysid_scene.hpp"
#include "softgrad/detail/plot.hpp"
#include "softgrad/sysid.hpp"

namespace softgrad::app {

/// The per-element parameters among `names` (untied fields) of the scene's model.
std::vector<ParameterSet::Block> fitted_fields(const MarkerScene& p,
                                               const std::vector<std::string>& names);

/// Writes the rest mesh with, per fitted field, the cell fields "<name> initial", "<name>
/// estimate" and "<name> stddev" (NaN on the elements of other bodies). Nothing is written
/// when `fields` is empty.
void write_field_vtu(const std::filesystem::path& path, const MarkerScene& p,
                     const std::vector<ParameterSet::Block>& fields, const SysIdReport& r,
                     VtuEncoding encoding);

/// One plot per field: the estimate (with +- one standard deviation) and the initial guess
/// against the element index.
std::vector<LinePlot> field_plots(const std::vector<ParameterSet::Block>& fields,
                                  const SysIdReport& r);

}  // namespace softgrad::app
