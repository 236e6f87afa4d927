#include "line_reader.hpp"

#include <cctype>
#include <charconv>
#include <string>

#include "input_file.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::detail {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

void fail_at(const std::string& path, int line, std::string_view message) {
  throw InputError(path + ":" + std::to_string(line) + ": " + std::string(message));
}

namespace {

std::string checked_mesh_path(std::string path) {
  refuse_special_file(path, "mesh file");  // before the stream opens it (a FIFO would block)
  return path;
}

}  // namespace

LineReader::LineReader(std::string path, char comment)
    : path_(checked_mesh_path(std::move(path))), comment_(comment), in_(path_) {
  if (!in_) throw InputError(path_ + ": cannot open file (does it exist and is it readable?)");
  buffer_.reserve(256);
}

bool LineReader::next_line() {
  while (std::getline(in_, buffer_)) {
    ++line_number_;
    std::string_view s = buffer_;
    // Drop the comment, then trailing blanks (including '\r' of CRLF files).
    if (comment_ != '\0') {
      const size_t c = s.find(comment_);
      if (c != std::string_view::npos) s = s.substr(0, c);
    }
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    line_ = s;
    pos_ = 0;
    if (has_token()) return true;
  }
  if (in_.bad()) fail("read error");
  line_ = {};
  pos_ = 0;
  return false;
}

void LineReader::require_line(std::string_view what) {
  if (!next_line()) fail("unexpected end of file, expected " + std::string(what));
}

bool LineReader::has_token() {
  while (pos_ < line_.size() && is_space(line_[pos_])) ++pos_;
  return pos_ < line_.size();
}

int LineReader::count_tokens() const {
  int n = 0;
  size_t i = pos_;
  while (i < line_.size()) {
    while (i < line_.size() && is_space(line_[i])) ++i;
    if (i == line_.size()) break;
    ++n;
    while (i < line_.size() && !is_space(line_[i])) ++i;
  }
  return n;
}

std::string_view LineReader::token(std::string_view what) {
  if (!has_token()) fail("expected " + std::string(what) + ", got end of line");
  const size_t start = pos_;
  while (pos_ < line_.size() && !is_space(line_[pos_])) ++pos_;
  return line_.substr(start, pos_ - start);
}

long long LineReader::read_int(std::string_view what) {
  const std::string_view t = token(what);
  // from_chars rejects a leading '+', which some writers emit.
  const std::string_view digits = (t.size() > 1 && t[0] == '+') ? t.substr(1) : t;
  long long value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    fail("expected " + std::string(what) + " (an integer), got '" + std::string(t) + "'");
  }
  return value;
}

int LineReader::read_int_in(std::string_view what, long long lo, long long hi) {
  const long long v = read_int(what);
  if (v < lo || v > hi) {
    fail(std::string(what) + " " + std::to_string(v) + " is out of range [" + std::to_string(lo) +
         ", " + std::to_string(hi) + "]");
  }
  return static_cast<int>(v);
}

double LineReader::read_double(std::string_view what) {
  const std::string_view t = token(what);
  const std::string_view digits = (t.size() > 1 && t[0] == '+') ? t.substr(1) : t;
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    fail("expected " + std::string(what) + " (a number), got '" + std::string(t) + "'");
  }
  return value;
}

void LineReader::expect_end(std::string_view what) {
  if (has_token()) {
    const std::string_view t = token("");
    fail("unexpected extra value '" + std::string(t) + "' after " + std::string(what));
  }
}

void LineReader::fail(std::string_view message) const { fail_at(path_, line_number_, message); }

}  // namespace softgrad::detail
