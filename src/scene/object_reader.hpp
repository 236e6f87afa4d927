/// @file object_reader.hpp
/// Internal: a validated view of one JSON object of a scene against its schema section.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "schema.hpp"

namespace softgrad::detail {

/// A validated view of one JSON object against its section table. The constructor checks the
/// type, rejects unknown keys (suggesting the closest valid key) and requires required keys;
/// the getters check types and ranges and return the table's default for an absent key.
/// Every failure is an InputError naming the source and the key's JSON pointer. The reader keeps
/// references to `src`, `j` and `section`: they must outlive it.
class ObjectReader {
 public:
  /// @throws InputError if j is not an object, has a key not in `section` or lacks a required one,
  /// and, for a section with variants, if it lacks a key its "type" requires or has one that
  /// does not apply to its type.
  ObjectReader(const Source& src, const Json& j, std::string pointer, const Section& section);

  bool has(const char* key) const { return j_->contains(key); }
  /// The whole object.
  const Json& json() const { return *j_; }
  /// The raw value. @pre has(key).
  const Json& at(const char* key) const { return (*j_)[key]; }
  const std::string& pointer() const { return pointer_; }
  std::string path(const char* key) const { return child_pointer(pointer_, key); }
  const Source& source() const { return *src_; }
  [[noreturn]] void fail(const char* key, const std::string& what) const;
  [[noreturn]] void fail_here(const std::string& what) const;

  /// Typed getters for keys of the section (a key missing from the table is an InternalError).
  double number(const char* key) const;
  int integer(const char* key) const;
  bool boolean(const char* key) const;
  /// A String, or a Choice checked against its values (suggesting the closest).
  std::string string(const char* key) const;
  /// `n` numbers (n = dim for Vector keys); `fallback` when absent (required keys throw).
  Eigen::VectorXd vector(const char* key, int n, const Eigen::VectorXd& fallback) const;
  /// Integers of any length (n < 0) or exactly n.
  std::vector<int> integers(const char* key, int n = -1) const;
  /// A list of strings; an absent optional list is empty.
  std::vector<std::string> strings(const char* key) const;
  /// The nested section; an absent optional one reads as {}.
  ObjectReader object(const char* key, const Section& section) const;
  /// The list's entries; an absent optional list is empty.
  std::vector<const Json*> list(const char* key) const;

 private:
  const KeySpec& spec(const char* key) const;
  void check_variant() const;

  const Source* src_;
  const Json* j_;
  std::string pointer_;
  const Section* section_;
};

/// Reads a finite number in `range` at `pointer` (for values without a key spec of their own).
/// @throws InputError "<source>: <pointer>: ..." for a non-number or a value out of range.
double read_number(const Source& src, const Json& j, const std::string& pointer, const char* unit,
                   const Range& range);

/// Reads an integer (an integral number, 2.0 included) in `range` at `pointer`.
int read_integer(const Source& src, const Json& j, const std::string& pointer, const char* unit,
                 const Range& range);

}  // namespace softgrad::detail
