#include "input_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "softgrad/errors.hpp"

namespace softgrad::detail {

void refuse_special_file(const std::filesystem::path& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return;
    throw InputError(path.string() + ": cannot open the " + what + ": " + std::strerror(errno));
  }
  if (S_ISREG(st.st_mode)) return;
  const char* kind = S_ISDIR(st.st_mode)                          ? "a folder"
                     : S_ISFIFO(st.st_mode)                       ? "a FIFO (named pipe)"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                     : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                  : "not a regular file";
  throw InputError(path.string() + ": is " + kind + ", not a " + what +
                   (S_ISDIR(st.st_mode) ? "" : " (softgrad reads regular files only)"));
}

}  // namespace softgrad::detail
