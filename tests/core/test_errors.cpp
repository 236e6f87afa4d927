// Input errors quote the input; a bad file's bytes are escaped before they reach a terminal
// (or Python, where invalid UTF-8 would fail to decode).
#include <doctest/doctest.h>

#include <string>

#include "softgrad/errors.hpp"

using namespace softgrad;

TEST_CASE("core/errors: messages keep UTF-8 and escape raw bytes and control characters") {
  CHECK(InputError("mesh.msh:3: unknown token 'ab'").what() ==
        std::string("mesh.msh:3: unknown token 'ab'"));
  CHECK(InputError("E \xe2\x89\xa5 0 \xc2\xb5m\n\tnext line").what() ==
        std::string("E \xe2\x89\xa5 0 \xc2\xb5m\n\tnext line"));  // UTF-8, newline, tab kept
  CHECK(InputError(std::string("bytes '\x01\x7f\xff\xfe\x1b[31m'")).what() ==
        std::string("bytes '\\x01\\x7f\\xff\\xfe\\x1b[31m'"));
  CHECK(InputError(std::string("cut \xe2\x89")).what() == std::string("cut \\xe2\\x89"));
  CHECK(InputError(std::string("nul \0 byte", 10)).what() == std::string("nul \\x00 byte"));
}
