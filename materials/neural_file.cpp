// Neural material files and the load-time check of a material's stability
// (softgrad/materials/neural.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "softgrad/errors.hpp"
#include "softgrad/materials/neural.hpp"

namespace softgrad {
namespace {

using Json = nlohmann::json;
constexpr const char* kFormat = "softgrad neural material";

std::string number_text(double v) {
  std::ostringstream os;
  os.precision(3);
  os << v;
  return os.str();
}

/// A loading path F(t) with its first and second derivatives, 3D.
struct Path {
  const char* name;
  const char* variable;
  double first, last, rest;
  void (*at)(double t, double* F, double* dF, double* ddF);
};

void diag(double* M, double a, double b, double c) {
  for (int k = 0; k < 9; ++k) M[k] = 0.0;
  M[0] = a;
  M[4] = b;
  M[8] = c;
}

const Path kPaths[] = {
    {"uniaxial strain", "stretch", 0.5, 2.0, 1.0,
     [](double t, double* F, double* dF, double* ddF) {
       diag(F, t, 1, 1), diag(dF, 1, 0, 0), diag(ddF, 0, 0, 0);
     }},
    {"equibiaxial strain", "stretch", 0.5, 2.0, 1.0,
     [](double t, double* F, double* dF, double* ddF) {
       diag(F, t, t, 1), diag(dF, 1, 1, 0), diag(ddF, 0, 0, 0);
     }},
    {"volumetric strain", "stretch", 0.5, 2.0, 1.0,
     [](double t, double* F, double* dF, double* ddF) {
       diag(F, t, t, t), diag(dF, 1, 1, 1), diag(ddF, 0, 0, 0);
     }},
    {"isochoric uniaxial stretch", "stretch", 0.5, 2.0, 1.0,
     [](double t, double* F, double* dF, double* ddF) {
       const double r = 1.0 / std::sqrt(t);
       diag(F, t, r, r);
       diag(dF, 1, -0.5 * r / t, -0.5 * r / t);
       diag(ddF, 0, 0.75 * r / (t * t), 0.75 * r / (t * t));
     }},
    {"simple shear", "shear", 0.0, 1.0, 0.0,
     [](double t, double* F, double* dF, double* ddF) {
       diag(F, 1, 1, 1), diag(dF, 0, 0, 0), diag(ddF, 0, 0, 0);
       F[1] = t;
       dF[1] = 1.0;
     }},
};

/// d^2 psi(F(t)) / dt^2 = dF : A : dF + P : ddF, or NaN where psi is not finite.
double path_stiffness(const MaterialModel& model, const Path& path, double t,
                      std::span<const double> p) {
  double F[9], dF[9], ddF[9], P[9], A[81], psi = 0.0;
  path.at(t, F, dF, ddF);
  if (!model.density(3, F, p.data(), psi) || !std::isfinite(psi) ||
      !model.stress(3, F, p.data(), P) || !model.stress_differential(3, F, p.data(), A))
    return std::nan("");
  double k = 0.0;
  for (int i = 0; i < 9; ++i) {
    k += P[i] * ddF[i];
    for (int j = 0; j < 9; ++j) k += dF[i] * A[i * 9 + j] * dF[j];
  }
  return k;
}

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& key,
                       const std::string& what) {
  throw InputError(file.string() + (key.empty() ? "" : ": /" + key) + ": " + what);
}

double number(const std::filesystem::path& file, const Json& j, const std::string& key) {
  if (!j.contains(key)) fail(file, key, "missing required key '" + key + "'");
  if (!j[key].is_number()) fail(file, key, "expected a number, got " + j[key].dump());
  return j[key].get<double>();
}

}  // namespace

void check_neural_material(const MaterialModel& model, std::span<const double> params,
                           const std::string& where) {
  neural_hidden_layers(model);  // a neural material, or an InputError
  validate_params(model, params, where);
  constexpr int kPoints = 30;
  for (const Path& path : kPaths) {
    const double rest = path_stiffness(model, path, path.rest, params);
    for (int i = 0; i <= kPoints; ++i) {
      const double t = path.first + (path.last - path.first) * i / kPoints;
      const double k = path_stiffness(model, path, t, params);
      const std::string at =
          " under " + std::string(path.name) + " at " + path.variable + " " + number_text(t);
      if (!std::isfinite(k))
        throw InputError(where + ": the neural material's energy or stress is not finite" + at +
                         " (its weights overflow)");
      if (k <= 0.0)
        throw InputError(where + ": the neural material is unstable" + at +
                         ": it loses stiffness (d2psi/dt2 = " + number_text(k) + " Pa)");
      if (k > 1e6 * rest)
        throw InputError(where + ": the neural material stiffens " + number_text(k / rest) +
                         " times over its rest stiffness" + at +
                         " (more than a millionfold: no Newton step would converge)");
    }
  }
}

std::shared_ptr<const MaterialModel> read_neural_material(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) fail(file, "", "cannot open the neural material file");
  Json j;
  try {
    j = Json::parse(in);
  } catch (const Json::exception& e) {  // a syntax error, or a number beyond a double's range
    fail(file, "", std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) fail(file, "", "expected a JSON object, got " + std::string(j.type_name()));
  for (const auto& item : j.items()) {
    static const char* kKeys[] = {"format",  "version", "hidden", "youngs",
                                  "poisson", "split",   "weights"};
    if (std::find_if(std::begin(kKeys), std::end(kKeys),
                     [&](const char* k) { return item.key() == k; }) == std::end(kKeys))
      fail(file, item.key(),
           "unknown key '" + item.key() +
               "'; a neural material file has format, version, hidden, youngs, poisson, split, "
               "weights");
  }
  if (!j.contains("format") || j["format"] != kFormat)
    fail(file, "format", std::string("expected \"") + kFormat + "\"");
  if (number(file, j, "version") != 1.0)
    fail(file, "version", "this softgrad reads version 1, got " + j["version"].dump());
  if (!j.contains("hidden") || !j["hidden"].is_array())
    fail(file, "hidden", "expected the hidden layer widths, e.g. [8, 8]");
  std::vector<int> hidden;
  for (const Json& w : j["hidden"]) {
    if (!w.is_number_integer() || w.get<std::int64_t>() < 1 || w.get<std::int64_t>() > 1 << 20)
      fail(file, "hidden", "expected layer widths (positive integers), got " + w.dump());
    hidden.push_back(static_cast<int>(w.get<std::int64_t>()));
  }
  try {
    make_neural_material(hidden);  // the architecture alone, so that its errors name "hidden"
  } catch (const InputError& e) {
    fail(file, "hidden", e.what());
  }
  std::vector<double> params = {number(file, j, "youngs"), number(file, j, "poisson"),
                                number(file, j, "split")};
  if (!j.contains("weights") || !j["weights"].is_array())
    fail(file, "weights", "expected an array of numbers");
  for (size_t i = 0; i < j["weights"].size(); ++i) {
    const Json& w = j["weights"][i];
    if (!w.is_number())
      fail(file, "weights/" + std::to_string(i), "expected a number, got " + w.dump());
    params.push_back(w.get<double>());
  }
  std::shared_ptr<const MaterialModel> model;
  try {
    model = make_neural_material(hidden, params);
  } catch (const InputError& e) {
    fail(file, "weights", e.what());
  }
  check_neural_material(*model, params, file.string());
  return model;
}

void write_neural_material(const std::filesystem::path& file, const MaterialModel& model,
                           std::span<const double> params) {
  const std::vector<int> hidden = neural_hidden_layers(model);
  if (static_cast<int>(params.size()) != model.n_params())
    throw InputError("a neural material with these layers has " + std::to_string(model.n_params()) +
                     " parameters, got " + std::to_string(params.size()));
  Json j = {{"format", kFormat},
            {"version", 1},
            {"hidden", hidden},
            {"youngs", params[0]},
            {"poisson", params[1]},
            {"split", params[2]},
            {"weights", std::vector<double>(params.begin() + 3, params.end())}};
  // Written beside the file and renamed over it: an interrupted write leaves the old file whole.
  std::filesystem::path partial = file;
  partial += ".partial";
  {
    std::ofstream out(partial);
    out << j.dump(1) << "\n";
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(partial, ignored);
      throw InputError(file.string() + ": cannot write the neural material file");
    }
  }
  std::error_code ec;
  std::filesystem::rename(partial, file, ec);
  if (ec)
    throw InputError(file.string() + ": cannot write the neural material file: " + ec.message());
}

}  // namespace softgrad
