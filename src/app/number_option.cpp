#include "app/number_option.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>

#include "softgrad/errors.hpp"

namespace softgrad::app {

CLI::Validator finite_number(double min, bool inclusive) {
  char bound[32];
  std::snprintf(bound, sizeof bound, "%g", min);
  const std::string wanted = std::string("a finite number ") + (inclusive ? ">= " : "> ") + bound;
  return CLI::Validator(
      [min, inclusive, wanted](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool number = !text.empty() && end == text.c_str() + text.size();
        if (number && std::isfinite(v) && (inclusive ? v >= min : v > min)) return "";
        return "expected " + wanted + ", got '" + text + "'";
      },
      wanted);
}

double parse_memory_size(const std::string& text, const std::string& option) {
  size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  for (char& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  double scale = 0.0;
  if (used > 0) {
    static const std::pair<const char*, double> units[] = {
        {"", 1.0}, {"B", 1.0}, {"K", 0x1p10}, {"M", 0x1p20}, {"G", 0x1p30}, {"T", 0x1p40}};
    for (const auto& [name, factor] : units) {
      const std::string n = name;
      if (unit == n || (!n.empty() && n != "B" && (unit == n + "B" || unit == n + "IB")))
        scale = factor;
    }
  }
  if (!(scale > 0.0) || !(value > 0.0) || !std::isfinite(value * scale))
    throw InputError(option + ": '" + text +
                     "' is not a memory size (a positive number of bytes, or with K, M, G or "
                     "T: e.g. 8G, 512M)");
  return value * scale;
}

}  // namespace softgrad::app
