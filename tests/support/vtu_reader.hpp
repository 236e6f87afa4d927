/// @file vtu_reader.hpp
/// Test helper: reads one <DataArray> of a .vtu file back as doubles, whether it is ASCII or
/// appended binary (raw or zlib, UInt64 headers), by its own decoding of the format.
#pragma once

#include <doctest/doctest.h>
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace softgrad::test {

namespace detail {
// The attribute `key="..."` of the tag that starts at `tag`.
inline std::string attribute(const std::string& xml, size_t tag, const std::string& key) {
  const size_t end = xml.find('>', tag);
  const size_t at = xml.find(" " + key + "=\"", tag);
  if (at == std::string::npos || at > end) return "";
  const size_t begin = at + key.size() + 3;
  return xml.substr(begin, xml.find('"', begin) - begin);
}

template <class T>
std::vector<double> as_doubles(const std::string& bytes) {
  std::vector<double> out(bytes.size() / sizeof(T));
  for (size_t i = 0; i < out.size(); ++i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    out[i] = static_cast<double>(v);
  }
  return out;
}
}  // namespace detail

/// The values of the array called `name` (REQUIREs that it exists and decodes).
inline std::vector<double> vtu_array(const std::string& xml, const std::string& name) {
  const size_t name_at = xml.find("Name=\"" + name + "\"");
  REQUIRE(name_at != std::string::npos);
  const size_t tag = xml.rfind("<DataArray", name_at);
  const std::string type = detail::attribute(xml, tag, "type");
  if (detail::attribute(xml, tag, "format") == "ascii") {
    const size_t begin = xml.find('>', tag) + 1;
    std::istringstream in(xml.substr(begin, xml.find("</DataArray>", begin) - begin));
    std::vector<double> values;
    for (double v; in >> v;) values.push_back(v);
    return values;
  }
  REQUIRE(detail::attribute(xml, tag, "format") == "appended");
  REQUIRE(detail::attribute(xml, xml.find("<VTKFile"), "header_type") == "UInt64");
  const size_t data = xml.find('_', xml.find("<AppendedData")) + 1;
  const size_t at = data + std::stoull(detail::attribute(xml, tag, "offset"));
  auto u64 = [&](size_t pos) {
    std::uint64_t v;
    std::memcpy(&v, xml.data() + pos, sizeof v);
    return v;
  };
  std::string bytes;
  if (detail::attribute(xml, xml.find("<VTKFile"), "compressor").empty()) {
    bytes = xml.substr(at + 8, u64(at));
  } else {
    REQUIRE(detail::attribute(xml, xml.find("<VTKFile"), "compressor") == "vtkZLibDataCompressor");
    const std::uint64_t n_blocks = u64(at), block = u64(at + 8), last = u64(at + 16);
    size_t pos = at + 8 * (3 + n_blocks);
    for (std::uint64_t b = 0; b < n_blocks; ++b) {
      const std::uint64_t packed = u64(at + 8 * (3 + b));
      uLongf size = (b + 1 == n_blocks && last != 0) ? last : block;
      std::string out(size, '\0');
      REQUIRE(uncompress(reinterpret_cast<Bytef*>(out.data()), &size,
                         reinterpret_cast<const Bytef*>(xml.data() + pos), packed) == Z_OK);
      bytes += out.substr(0, size);
      pos += packed;
    }
  }
  if (type == "Float64") return detail::as_doubles<double>(bytes);
  if (type == "Int32") return detail::as_doubles<std::int32_t>(bytes);
  REQUIRE(type == "UInt8");
  return detail::as_doubles<std::uint8_t>(bytes);
}

}  // namespace softgrad::test
