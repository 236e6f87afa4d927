// ObjectReader: a JSON object checked against its schema section, with typed getters.
#include "object_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "softgrad/errors.hpp"

namespace softgrad::detail {

namespace {

using enum KeyType;

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (size_t k = 0; k < items.size(); ++k) out += (k ? sep : "") + items[k];
  return out;
}

std::vector<std::string> split_choices(const char* choices) {
  std::vector<std::string> out;
  std::string s = choices;
  size_t start = 0;
  for (size_t bar = s.find('|'); bar != std::string::npos; bar = s.find('|', start)) {
    out.push_back(s.substr(start, bar - start));
    start = bar + 1;
  }
  out.push_back(s.substr(start));
  return out;
}

const Json& empty_object() {
  static const Json kEmpty = Json::object();
  return kEmpty;
}

}  // namespace

double read_number(const Source& src, const Json& j, const std::string& pointer, const char* unit,
                   const Range& range) {
  if (!j.is_number()) fail_at(src, pointer, "expected a number, got " + describe_json(j));
  const double v = j.get<double>();
  if (!std::isfinite(v)) fail_at(src, pointer, j.dump() + " is not a finite number");
  if (!range.contains(v)) {
    const std::string u = unit[0] && std::string(unit) != "1" ? std::string(" ") + unit : "";
    fail_at(src, pointer, format_number(v) + u + " is outside " + range.text());
  }
  return v;
}

int read_integer(const Source& src, const Json& j, const std::string& pointer, const char* unit,
                 const Range& range) {
  // An integral float such as 2.0 counts as an integer.
  if (!j.is_number() || (j.is_number_float() && j.get<double>() != std::floor(j.get<double>())))
    fail_at(src, pointer, "expected an integer, got " + describe_json(j));
  const double v = read_number(src, j, pointer, unit, range);
  if (!(std::abs(v) < 2e9))
    fail_at(src, pointer, format_number(v) + " is too large for an integer");
  return static_cast<int>(v);
}

ObjectReader::ObjectReader(const Source& src, const Json& j, std::string pointer,
                           const Section& section)
    : src_(&src), j_(&j), pointer_(std::move(pointer)), section_(&section) {
  if (!j.is_object()) fail_here("expected an object {...}, got " + describe_json(j));
  std::vector<std::string> valid;
  for (const auto& s : section.keys) valid.emplace_back(s.key);
  // Unknown keys, with the closest valid key as a suggestion.
  for (const auto& item : j.items()) {
    if (std::find(valid.begin(), valid.end(), item.key()) != valid.end()) continue;
    std::string what = "unknown key '" + item.key() + "'; ";
    const std::string guess = closest_key(item.key(), valid);
    if (!guess.empty()) what += "did you mean '" + guess + "'? ";
    what += "valid keys: " + join(valid, ", ");
    fail_at(src, child_pointer(pointer_, item.key()), what);
  }
  // Required keys.
  for (const auto& s : section.keys) {
    if (s.required() && !j.contains(s.key)) {
      fail_at(src, child_pointer(pointer_, s.key),
              std::string("missing required key '") + s.key + "' (" + s.description + ")");
    }
  }
  if (!section.variants.empty()) check_variant();
}

namespace {

// True if `key` is one of the "|"-separated names in `list`.
bool listed(const char* list, const std::string& key) {
  const std::string padded = std::string("|") + list + "|";
  return padded.find("|" + key + "|") != std::string::npos;
}

}  // namespace

void ObjectReader::check_variant() const {
  const std::string type = string("type");
  const Variant none{"", "", ""};
  const Variant* variant = &none;
  for (const Variant& v : section_->variants)
    if (type == v.type) variant = &v;
  for (const KeySpec& k : section_->keys)
    if (listed(variant->required, k.key) && !has(k.key))
      fail(k.key, "missing key '" + std::string(k.key) + "', required for type '" + type + "'");
  for (const KeySpec& k : section_->keys) {
    if (!has(k.key) || listed(variant->required, k.key) || listed(variant->optional, k.key))
      continue;
    for (const Variant& v : section_->variants)
      if (listed(v.required, k.key) || listed(v.optional, k.key))
        fail(k.key, "'" + std::string(k.key) + "' does not apply to type '" + type + "'");
  }
}

void ObjectReader::fail(const char* key, const std::string& what) const {
  fail_at(*src_, path(key), what);
}

void ObjectReader::fail_here(const std::string& what) const { fail_at(*src_, pointer_, what); }

const KeySpec& ObjectReader::spec(const char* key) const {
  for (const auto& s : section_->keys)
    if (std::string(s.key) == key) return s;
  SOFTGRAD_CHECK(false, "key '" << key << "' is not in the schema of " << section_->path);
}

double ObjectReader::number(const char* key) const {
  const KeySpec& s = spec(key);
  if (!has(key)) return std::strtod(s.default_text, nullptr);
  return read_number(*src_, at(key), path(key), s.unit, s.range);
}

int ObjectReader::integer(const char* key) const {
  const KeySpec& s = spec(key);
  if (!has(key)) return std::atoi(s.default_text);
  return read_integer(*src_, at(key), path(key), s.unit, s.range);
}

bool ObjectReader::boolean(const char* key) const {
  const KeySpec& s = spec(key);
  if (!has(key)) return std::string(s.default_text) == "true";
  if (!at(key).is_boolean()) fail(key, "expected true or false, got " + describe_json(at(key)));
  return at(key).get<bool>();
}

std::string ObjectReader::string(const char* key) const {
  const KeySpec& s = spec(key);
  if (!has(key)) return s.default_text;
  if (!at(key).is_string()) fail(key, "expected a string, got " + describe_json(at(key)));
  const std::string value = at(key).get<std::string>();
  if (s.type == Choice) {
    const std::vector<std::string> choices = split_choices(s.choices);
    if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
      std::string what = "unknown value '" + value + "'; ";
      const std::string guess = closest_key(value, choices);
      if (!guess.empty()) what += "did you mean '" + guess + "'? ";
      fail(key, what + "valid values: " + join(choices, ", "));
    }
  }
  return value;
}

Eigen::VectorXd ObjectReader::vector(const char* key, int n,
                                     const Eigen::VectorXd& fallback) const {
  const KeySpec& s = spec(key);
  if (!has(key)) return fallback;
  const Json& j = at(key);
  const std::string dims =
      s.type == Vector ? " (one per dimension; dim is " + std::to_string(n) + ")" : "";
  if (!j.is_array()) {
    fail(key, "expected a list of " + std::to_string(n) + " numbers" + dims + ", got " +
                  describe_json(j));
  }
  if (static_cast<int>(j.size()) != n) {
    fail(key,
         "expected " + std::to_string(n) + " numbers" + dims + ", got " + std::to_string(j.size()));
  }
  Eigen::VectorXd v(n);
  for (int k = 0; k < n; ++k)
    v[k] = read_number(*src_, j[k], child_pointer(path(key), std::to_string(k)), s.unit, s.range);
  return v;
}

std::vector<int> ObjectReader::integers(const char* key, int n) const {
  const KeySpec& s = spec(key);
  if (!has(key)) return {};
  const Json& j = at(key);
  if (!j.is_array()) fail(key, "expected a list of integers, got " + describe_json(j));
  if (n >= 0 && static_cast<int>(j.size()) != n) {
    fail(key, "expected " + std::to_string(n) + " integers, got " + std::to_string(j.size()));
  }
  std::vector<int> out;
  out.reserve(j.size());
  for (size_t k = 0; k < j.size(); ++k) {
    const std::string where = child_pointer(path(key), std::to_string(k));
    out.push_back(read_integer(*src_, j[k], where, s.unit, s.range));
  }
  return out;
}

std::vector<std::string> ObjectReader::strings(const char* key) const {
  spec(key);
  if (!has(key)) return {};
  const Json& j = at(key);
  if (!j.is_array()) fail(key, "expected a list of strings, got " + describe_json(j));
  std::vector<std::string> out;
  for (size_t k = 0; k < j.size(); ++k) {
    if (!j[k].is_string()) {
      fail_at(*src_, child_pointer(path(key), std::to_string(k)),
              "expected a string, got " + describe_json(j[k]));
    }
    out.push_back(j[k].get<std::string>());
  }
  return out;
}

ObjectReader ObjectReader::object(const char* key, const Section& section) const {
  spec(key);
  if (!has(key)) return ObjectReader(*src_, empty_object(), path(key), section);
  return ObjectReader(*src_, at(key), path(key), section);
}

std::vector<const Json*> ObjectReader::list(const char* key) const {
  spec(key);
  if (!has(key)) return {};
  const Json& j = at(key);
  if (!j.is_array()) fail(key, "expected a list [...], got " + describe_json(j));
  std::vector<const Json*> out;
  for (const auto& e : j) out.push_back(&e);
  return out;
}

}  // namespace softgrad::detail
