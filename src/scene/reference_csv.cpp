// Reference trajectories for the scene's "trajectory" loss: a small CSV reader.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "../io/input_file.hpp"
#include "scene_loss.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::detail {

namespace {

std::string trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1);
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, ',')) out.push_back(trim(field));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// Reports "<shown>:<line>: <what>".
class CsvErrors {
 public:
  explicit CsvErrors(std::string shown) : shown_(std::move(shown)) {}
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw InputError(shown_ + ":" + std::to_string(line) + ": " + what);
  }
  double number(int line, const std::string& field, const char* what) const {
    char* end = nullptr;
    const double v = std::strtod(field.c_str(), &end);
    if (field.empty() || *end != '\0')
      fail(line, std::string("expected ") + what + ", got '" + field + "'");
    if (!std::isfinite(v)) fail(line, std::string(what) + " " + field + " is not finite");
    return v;
  }
  int integer(int line, const std::string& field, const char* what, int end) const {
    const double v = number(line, field, what);
    if (v != std::floor(v))
      fail(line, std::string("expected an integer ") + what + ", got " + field);
    if (v < 0 || v >= end) {
      fail(line,
           std::string(what) + " " + field + " is out of range [0, " + std::to_string(end) + ")");
    }
    return static_cast<int>(v);
  }

 private:
  std::string shown_;
};

// The expected header for a dimension and first column.
std::vector<std::string> header(int dim, const std::string& first) {
  std::vector<std::string> h{first, "vertex", "x", "y"};
  if (dim == 3) h.emplace_back("z");
  return h;
}

std::string joined(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t k = 0; k < fields.size(); ++k) out += (k ? "," : "") + fields[k];
  return out;
}

}  // namespace

std::vector<ReferenceRow> read_reference_csv(const std::filesystem::path& file,
                                             const std::string& shown, const Model& model,
                                             const StepGrid& grid) {
  const CsvErrors errors(shown);
  detail::refuse_special_file(file, "reference file");
  std::ifstream in(file);
  if (!in) throw InputError(shown + ": cannot open the reference file (" + file.string() + ")");
  std::vector<ReferenceRow> rows;
  std::set<std::pair<int, int>> seen;
  bool by_time = false;
  bool has_header = false;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const std::vector<std::string> fields = split_fields(line);
    if (!has_header) {
      by_time = !fields.empty() && fields[0] == "time";
      if (fields != header(model.dim, by_time ? "time" : "step")) {
        errors.fail(number, "expected the header '" + joined(header(model.dim, "step")) +
                                "' (or 'time' first), got '" + trim(line) + "'");
      }
      if (by_time && grid.static_solve)
        errors.fail(number, "a static scene has states 0 (start) and 1 (equilibrium): use 'step'");
      has_header = true;
      continue;
    }
    if (fields.size() != static_cast<size_t>(2 + model.dim)) {
      errors.fail(number, "expected " + std::to_string(2 + model.dim) + " values, got " +
                              std::to_string(fields.size()));
    }
    ReferenceRow row;
    if (by_time) {
      std::string error;
      row.step = step_of_time(errors.number(number, fields[0], "a time"), grid, error);
      if (!error.empty()) errors.fail(number, error);
    } else {
      row.step = errors.integer(number, fields[0], "step", grid.steps + 1);
    }
    row.vertex = errors.integer(number, fields[1], "vertex", model.n_verts);
    row.x.resize(model.dim);
    for (int k = 0; k < model.dim; ++k)
      row.x[k] = errors.number(number, fields[2 + k], "a coordinate");
    if (!seen.insert({row.step, row.vertex}).second) {
      errors.fail(number, "vertex " + std::to_string(row.vertex) + " at step " +
                              std::to_string(row.step) + " is listed twice");
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw InputError(shown + ": the reference file has no rows");
  return rows;
}

}  // namespace softgrad::detail
