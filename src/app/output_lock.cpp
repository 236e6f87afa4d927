#include "app/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "softgrad/errors.hpp"
#include "softgrad/frame_writer.hpp"

namespace softgrad::app {
namespace {

// The process id written in a held lock file, or "" when it cannot be read.
std::string holder_of(int fd) {
  char text[32] = {};
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  std::string pid(text, n > 0 ? static_cast<size_t>(n) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.find_first_not_of("0123456789") == std::string::npos ? pid : "";
}

}  // namespace

OutputLock::OutputLock(const std::filesystem::path& directory) {
  create_output_directory(directory);
  const std::string file = (directory / ".softgrad-lock").string();
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw InputError("cannot lock the output directory '" + directory.string() + "': " + file +
                     ": " + (errno == ELOOP ? "it is a symbolic link" : std::strerror(errno)) +
                     "; remove it, or choose another folder with --out");
  // A hard link or a special file planted at the name: its target is not written.
  struct stat st {};
  if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != geteuid()) {
    ::close(fd_);
    fd_ = -1;
    throw InputError("cannot lock the output directory '" + directory.string() + "': " + file +
                     " is not a plain file of yours (a special file, another user's, or a hard "
                     "link to another file); remove it, or choose another folder with --out");
  }
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string pid = holder_of(fd_);
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK)
      throw InputError("the output directory '" + directory.string() +
                       "' is in use by another softgrad process" +
                       (pid.empty() ? std::string() : " (process " + pid + ")") +
                       ": two commands writing into one folder would mix their files; wait for "
                       "it to end, or choose another folder with --out");
    throw InputError("cannot lock the output directory '" + directory.string() +
                     "': " + std::strerror(error));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  // Without the process id the lock still holds; only a second writer's message is poorer.
  const bool noted = ftruncate(fd_, 0) == 0 && pwrite(fd_, pid.data(), pid.size(), 0) >= 0;
  static_cast<void>(noted);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace softgrad::app
