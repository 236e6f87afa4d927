#include "text_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "softgrad/errors.hpp"

namespace softgrad::detail {

void append_number(std::string& out, double v, int digits) {
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits);
  out.append(buf, r.ptr);
}

std::string number_text(double v, int digits) {
  std::string out;
  append_number(out, v, digits);
  return out;
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

namespace {

/// The process's file-creation mask, read without changing it (umask() sets it, for every
/// thread at once).
mode_t creation_mask() {
  static const mode_t mask = [] {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("Umask:", 0) == 0)
        return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
    return static_cast<mode_t>(022);
  }();
  return mask;
}

}  // namespace

bool write_all(int fd, const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = EIO;  // (a regular file or pipe never takes nothing without an error)
      return false;
    }
    p += n;
    bytes -= static_cast<size_t>(n);
  }
  return true;
}

int create_unique_file(const std::filesystem::path& folder, const std::string& stem,
                       std::string& name) {
  name = (folder.empty() ? std::string() : folder.string() + "/") + "." + stem + ".XXXXXX";
  const int fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) fchmod(fd, 0666 & ~creation_mask());  // what open(2) would have given
  return fd;
}

void write_file_atomically(const std::string& path, std::string_view contents) {
  // A new file under a name no one can predict, created exclusively (O_EXCL): a link planted at
  // any name in the folder is never followed, and two writers never share a temporary file.
  // The rename then replaces whatever `path` is, a planted link included, without following it.
  const std::filesystem::path target(path);
  std::string tmp;
  const int fd = create_unique_file(target.parent_path(), target.filename().string(), tmp);
  if (fd < 0) throw InputError("cannot write '" + path + "': " + std::strerror(errno));
  int error = write_all(fd, contents.data(), contents.size()) ? 0 : errno;
  if (::close(fd) != 0 && !error) error = errno;
  if (!error && std::rename(tmp.c_str(), path.c_str()) != 0) error = errno;
  if (error) {
    std::remove(tmp.c_str());
    throw InputError("cannot write '" + path + "': " + std::strerror(error));
  }
}

}  // namespace softgrad::detail
