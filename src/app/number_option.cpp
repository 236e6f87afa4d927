#include "app/number_option.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

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

}  // namespace softgrad::app
