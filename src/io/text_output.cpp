#include "text_output.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "softgrad/errors.hpp"

namespace softgrad::detail {

void append_number(std::string& out, double v, int digits) {
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits);
  out.append(buf, r.ptr);
}

void append_number_exact(std::string& out, double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_int(std::string& out, long long v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

bool is_xml_attribute_safe(std::string_view name) {
  return !name.empty() && name.find_first_of("<>&\"'") == std::string_view::npos;
}

void write_file_atomically(const std::string& path, std::string_view contents) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw InputError("cannot write '" + path + "': " + std::strerror(errno));
  const bool written = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
  const int saved_errno = errno;
  if (std::fclose(f) != 0 || !written) {
    std::remove(tmp.c_str());
    throw InputError("cannot write '" + path +
                     "': " + std::strerror(written ? errno : saved_errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(tmp.c_str());
    throw InputError("cannot write '" + path + "': " + std::strerror(rename_errno));
  }
}

}  // namespace softgrad::detail
