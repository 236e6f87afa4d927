/// @file output_lock.hpp
/// One writer per output folder: two commands writing into one --out would mix their files
/// (frames of one run, the summary of the other), so each command that writes a folder holds
/// its lock for as long as it runs.
#pragma once

#include <filesystem>

namespace softgrad::app {

class OutputLock {
 public:
  /// Creates `directory` (create_output_directory) and takes its lock: an exclusive flock on
  /// `<directory>/.softgrad-lock`, opened without following a link and holding the owner's
  /// process id. The system releases it when the process ends however it ends, so a killed
  /// run leaves no stale lock.
  /// @throws InputError naming the folder when another process holds the lock (with its
  /// process id), or when the lock file cannot be opened (a link planted there, no permission).
  explicit OutputLock(const std::filesystem::path& directory);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace softgrad::app
