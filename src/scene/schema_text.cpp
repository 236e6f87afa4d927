// The schema's text: number formats, ranges, error locations, JSON descriptions and typo hints.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "schema.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::detail {

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

}  // namespace

std::string format_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string Range::text() const {
  if (std::isinf(min) && min < 0 && std::isinf(max) && max > 0) return "any";
  return (min_inclusive ? "[" : "(") + format_number(min) + ", " + format_number(max) +
         (max_inclusive ? "]" : ")");
}

void fail_at(const Source& src, const std::string& pointer, const std::string& what) {
  throw InputError(src.name + ": " + (pointer.empty() ? std::string("top level") : pointer) + ": " +
                   what);
}

std::string child_pointer(const std::string& pointer, const std::string& key) {
  std::string escaped;
  for (const char c : key) {
    if (c == '~') {
      escaped += "~0";
    } else if (c == '/') {
      escaped += "~1";
    } else {
      escaped += c;
    }
  }
  return pointer + "/" + escaped;
}

std::string describe_json(const Json& j) {
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "the boolean " + text;
    case Json::value_t::string:
      return "the string " + text;
    case Json::value_t::array:
      return "a list " + text;
    case Json::value_t::object:
      return "an object " + text;
    default:
      return "the number " + text;
  }
}

std::string closest_key(const std::string& key, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::string::npos;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(key, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // A typo: at most 2 edits, or a third of the word.
  const bool plausible = best_distance <= 2 || best_distance * 3 <= key.size();
  return plausible && best_distance < key.size() ? best : "";
}

}  // namespace softgrad::detail
