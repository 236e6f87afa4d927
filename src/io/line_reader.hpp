/// @file line_reader.hpp
/// Internal: streams a text file line by line and splits lines into whitespace-separated
/// tokens, with errors of the form "<path>:<line>: <message>" (InputError).
#pragma once

#include <fstream>
#include <string>
#include <string_view>

namespace softgrad::detail {

/// Throws InputError "<path>:<line>: <message>".
[[noreturn]] void fail_at(const std::string& path, int line, std::string_view message);

/// Reads a text mesh file one line at a time into a reused buffer (no per-line allocation).
class LineReader {
 public:
  /// Opens `path`; `comment` starts a comment running to the end of the line ('\0': none).
  /// @throws InputError "<path>: cannot open file" if it cannot be read.
  LineReader(std::string path, char comment);

  /// Moves to the next line that has a token, skipping blank and comment-only lines.
  /// Returns false at the end of the file.
  bool next_line();
  /// Like next_line, but reaching the end of the file is an error "unexpected end of file,
  /// expected <what>".
  void require_line(std::string_view what);

  /// The current line, without its comment and line terminator.
  std::string_view line() const { return line_; }
  /// 1-based number of the current line.
  int line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

  /// True if the current line has another token.
  bool has_token();
  /// Number of tokens left on the current line.
  int count_tokens() const;
  /// The next token; "expected <what>, got end of line" if there is none.
  std::string_view token(std::string_view what);
  /// The next token as an integer; "expected <what>, got '<token>'" if malformed.
  long long read_int(std::string_view what);
  /// The next token as an int in [lo, hi]; "<what> <v> is out of range [lo, hi]" otherwise.
  int read_int_in(std::string_view what, long long lo, long long hi);
  /// The next token as a double (decimal or exponent form; inf/nan parse and are the caller's
  /// to reject).
  double read_double(std::string_view what);
  /// Fails with "unexpected extra value '<token>' after <what>" if tokens remain.
  void expect_end(std::string_view what);

  /// Throws InputError "<path>:<line>: <message>".
  [[noreturn]] void fail(std::string_view message) const;

 private:
  std::string path_;
  char comment_;
  std::ifstream in_;
  std::string buffer_;
  std::string_view line_;
  size_t pos_ = 0;
  int line_number_ = 0;
};

}  // namespace softgrad::detail
