/// @file input_file.hpp
/// Internal: what every reader checks before it opens a file the user named.
#pragma once

#include <filesystem>
#include <string>

namespace softgrad::detail {

/// Refuses, before anything opens it, a path that names something other than a regular file: a
/// folder, a FIFO (a reader would wait forever for a writer), a device (/dev/zero or
/// /dev/urandom would be read without end), a socket; or that the system cannot look up (a
/// name too long, a loop of links, no permission), with the system's reason. A path that does
/// not exist passes: each reader says so in its own words.
/// @throws InputError "<path>: is a FIFO (named pipe), not a <what> ..." and the like.
void refuse_special_file(const std::filesystem::path& path, const std::string& what);

}  // namespace softgrad::detail
