#include "json_checks.hpp"

#include <set>
#include <vector>

namespace softgrad::detail {
namespace {

// A SAX pass that keeps, per open list or object, the keys seen and the current position, so
// that a failure names its JSON pointer.
class StructureCheck final : public nlohmann::json_sax<Json> {
 public:
  explicit StructureCheck(const Source& src) : src_(src) {}

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    Level& level = stack_.back();
    level.at = k;
    if (!level.keys.insert(k).second)
      fail_at(src_, pointer(),
              "the key '" + k +
                  "' appears twice in this object (JSON keeps only the last one; "
                  "remove the other)");
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;  // the parser itself reports malformed JSON
  }

 private:
  struct Level {
    bool object = false;
    std::set<std::string> keys;
    std::string at;  ///< the current key, or the current index of a list
    int next = 0;    ///< a list's next index
  };

  // A value starts: in a list it takes the next index.
  bool value() {
    if (!stack_.empty() && !stack_.back().object)
      stack_.back().at = std::to_string(stack_.back().next++);
    return true;
  }
  bool open(bool object) {
    value();
    stack_.push_back({object, {}, "", 0});
    if (static_cast<int>(stack_.size()) > kMaxJsonDepth)
      fail_at(src_, pointer(),
              "lists and objects nested more than " + std::to_string(kMaxJsonDepth) +
                  " levels deep (no scene needs that many)");
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  std::string pointer() const {
    std::string p;
    for (size_t k = 0; k + 1 < stack_.size(); ++k) p = child_pointer(p, stack_[k].at);
    if (!stack_.empty() && stack_.back().object && !stack_.back().at.empty())
      p = child_pointer(p, stack_.back().at);
    return p;
  }

  const Source& src_;
  std::vector<Level> stack_;
};

}  // namespace

void check_json_structure(const Source& src, const std::string& text) {
  StructureCheck check(src);
  Json::sax_parse(text, &check);
}

}  // namespace softgrad::detail
