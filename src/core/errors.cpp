// Error messages fit to print: the bytes of a bad input they quote, escaped.
#include "softgrad/errors.hpp"

#include <cstdio>

namespace softgrad {

std::string printable_message(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    // The length of the UTF-8 sequence this byte starts (0: it starts none).
    const size_t length = c < 0x80           ? 1
                          : (c >> 5) == 0x06 ? 2
                          : (c >> 4) == 0x0E ? 3
                          : (c >> 3) == 0x1E ? 4
                                             : 0;
    bool ok = length > 0 && i + length <= text.size();
    for (size_t k = 1; ok && k < length; ++k)
      ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (ok && length == 1 && ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)) ok = false;
    if (ok) {
      out.append(text, i, length);
      i += length;
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
      ++i;
    }
  }
  return out;
}

}  // namespace softgrad
