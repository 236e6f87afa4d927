#include "number_table.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "input_file.hpp"
#include "softgrad/detail/memory_limit.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::detail {
namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what,
                       const std::string& message) {
  throw InputError(file.string() + ": " + what + ": " + message);
}

/// The value of `key` in a .npy header's Python dict literal, e.g. 'descr': '<f8'.
std::string header_value(const std::string& header, const std::string& key) {
  const std::size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  std::size_t v = header.find(':', k);
  if (v == std::string::npos) return "";
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  if (v >= header.size()) return "";
  const char open = header[v];
  const char close = open == '(' ? ')' : open == '\'' ? '\'' : ',';
  const std::size_t end = header.find(close, v + 1);
  if (end == std::string::npos) return "";
  return header.substr(v, end - v + (close == ',' ? 0 : 1));
}

std::vector<std::size_t> npy_shape(const std::string& text, const std::filesystem::path& file,
                                   const std::string& what) {
  if (text.size() < 2 || text.front() != '(')
    fail(file, what, "the .npy header has no shape tuple");
  std::vector<std::size_t> shape;
  std::stringstream in(text.substr(1, text.size() - 2));
  for (std::string item; std::getline(in, item, ',');) {
    if (item.find_first_not_of(' ') == std::string::npos) continue;  // (n,): the trailing comma
    char* end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(item.c_str(), &end, 10);
    if (errno != 0 || end == item.c_str() || item.find('-') != std::string::npos)
      fail(file, what, "the .npy shape " + text + " is not a tuple of sizes");
    shape.push_back(static_cast<std::size_t>(n));
  }
  if (shape.empty() || shape.size() > 4)
    fail(file, what,
         "the .npy array has " + std::to_string(shape.size()) +
             " dimensions; expected 1 to 4 (shape " + text + ")");
  return shape;
}

NumberTable read_npy(const std::filesystem::path& file, const std::string& what) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file, what, "cannot open file");
  const std::uintmax_t file_size = std::filesystem::file_size(file);
  char magic[8] = {};
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    fail(file, what, "not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t header_length = 0;
  unsigned char bytes[4] = {};
  const int length_bytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3) fail(file, what, ".npy format " + std::to_string(major) + " unknown");
  in.read(reinterpret_cast<char*>(bytes), length_bytes);
  for (int i = length_bytes - 1; i >= 0; --i) header_length = header_length * 256 + bytes[i];
  if (!in || 8 + length_bytes + std::uintmax_t{header_length} > file_size)
    fail(file, what, "the .npy header is cut short");
  std::string header(header_length, '\0');
  in.read(header.data(), header_length);
  const std::string descr = header_value(header, "descr");
  const std::string order = header_value(header, "fortran_order");
  int item = 0;
  bool floating = true;
  if (descr == "'<f8'") {
    item = 8;
  } else if (descr == "'<f4'") {
    item = 4;
  } else if (descr == "'<i8'") {
    item = 8, floating = false;
  } else if (descr == "'<i4'") {
    item = 4, floating = false;
  } else {
    fail(file, what,
         "the .npy dtype " + (descr.empty() ? std::string("(none)") : descr) +
             " is not one of float64, float32, int64, int32 (little-endian)");
  }
  if (order != "False")
    fail(file, what, "the .npy array is in Fortran order; save it in C order (np.save does)");
  NumberTable t;
  t.shape = npy_shape(header_value(header, "shape"), file, what);
  double count = 1.0;
  for (std::size_t n : t.shape) count *= static_cast<double>(n);
  const double data_bytes = static_cast<double>(file_size) - 8.0 - length_bytes - header_length;
  if (count * item != data_bytes) {
    std::ostringstream os;
    os << "the .npy shape " << header_value(header, "shape") << " needs " << count * item
       << " bytes of data, the file holds " << data_bytes;
    fail(file, what, os.str());
  }
  if (count == 0.0) fail(file, what, "the array is empty");
  require_memory(8.0 * count, file.string() + ": " + what);
  const std::size_t n = static_cast<std::size_t>(count);
  std::vector<char> raw(n * item);
  in.read(raw.data(), static_cast<std::streamsize>(raw.size()));
  if (!in) fail(file, what, "cannot read the .npy data");
  t.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const char* p = raw.data() + i * item;
    if (floating && item == 8) {
      std::memcpy(&t.values[i], p, 8);
    } else if (floating) {
      float f;
      std::memcpy(&f, p, 4);
      t.values[i] = f;
    } else if (item == 8) {
      std::int64_t v;
      std::memcpy(&v, p, 8);
      t.values[i] = static_cast<double>(v);
    } else {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      t.values[i] = v;
    }
    if (!std::isfinite(t.values[i]))
      fail(file, what, "value " + std::to_string(i) + " is not a finite number");
  }
  return t;
}

NumberTable read_text(const std::filesystem::path& file, const std::string& what) {
  std::ifstream in(file);
  if (!in) fail(file, what, "cannot open file");
  NumberTable t;
  std::size_t rows = 0, columns = 0;
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    const std::string at = "line " + std::to_string(line_number);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::size_t count = 0, pos = 0;
    while (pos < line.size()) {
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r'))
        ++pos;
      if (pos >= line.size()) break;
      std::size_t end = line.find_first_of(", \t\r", pos);
      if (end == std::string::npos) end = line.size();
      const std::string token = line.substr(pos, end - pos);
      char* stop = nullptr;
      const double v = std::strtod(token.c_str(), &stop);
      if (token.empty() || *stop != '\0' || !std::isfinite(v))
        fail(file, what,
             at + ", column " + std::to_string(count + 1) + ": '" + token +
                 "' is not a finite number");
      t.values.push_back(v);
      ++count;
      pos = end;
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r'))
        ++pos;
      if (pos < line.size() && line[pos] == ',') ++pos;
    }
    if (rows == 0) columns = count;
    if (count != columns)
      fail(file, what,
           at + " has " + std::to_string(count) + " values, the first row " +
               std::to_string(columns));
    ++rows;
    if (t.values.size() > (std::size_t{1} << 31))
      fail(file, what, "more than 2^31 values, more than one table can index");
  }
  if (rows == 0) fail(file, what, "the file has no numbers");
  t.shape = {rows, columns};
  return t;
}

}  // namespace

NumberTable read_number_table(const std::filesystem::path& file, const std::string& what) {
  refuse_special_file(file, what);
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) fail(file, what, "no such file");
  if (file.extension() == ".npy") return read_npy(file, what);
  return read_text(file, what);
}

}  // namespace softgrad::detail
