// Triangle surfaces: OBJ, OFF and STL (ASCII or binary), the input of tetrahedralise().
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "input_file.hpp"
#include "line_reader.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"

namespace softgrad {
namespace {

using detail::LineReader;

// Vertices and triangles as they are read, with the line of each triangle for messages.
struct Soup {
  std::vector<std::array<double, 3>> X;
  std::vector<std::array<int, 3>> triangles;
  std::vector<int> lines;
};

std::array<double, 3> read_point(LineReader& in) {
  std::array<double, 3> p{};
  for (int k = 0; k < 3; ++k) {
    p[k] = in.read_double("a coordinate");
    if (!std::isfinite(p[k])) in.fail("a coordinate is not a finite number");
  }
  return p;
}

// A polygon of vertex indices, fanned into triangles.
void add_polygon(Soup& s, const std::vector<int>& polygon, LineReader& in) {
  if (polygon.size() < 3) in.fail("a face needs at least 3 vertices");
  for (size_t k = 1; k + 1 < polygon.size(); ++k) {
    s.triangles.push_back({polygon[0], polygon[k], polygon[k + 1]});
    s.lines.push_back(in.line_number());
  }
}

// OBJ: "v x y z", "f a b c ..." with 1-based (or negative, relative) indices, each possibly
// "a/t/n"; other records (vt, vn, o, g, s, usemtl, mtllib, l) are ignored.
Soup read_obj(const std::string& path) {
  LineReader in(path, '#');
  Soup s;
  std::vector<int> polygon;
  while (in.next_line()) {
    const std::string_view kind = in.token("a record");
    if (kind == "v") {
      s.X.push_back(read_point(in));
    } else if (kind == "f") {
      polygon.clear();
      while (in.has_token()) {
        const std::string_view t = in.token("a vertex index");
        const std::string_view index = t.substr(0, t.find('/'));
        long long i = 0;
        const std::string text(index);
        char* end = nullptr;
        i = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0')
          in.fail("expected a vertex index, got '" + std::string(t) + "'");
        const long long n = static_cast<long long>(s.X.size());
        const long long v = i < 0 ? n + i : i - 1;  // OBJ counts from 1; -1 is the last vertex
        if (i == 0 || v < 0 || v >= n)
          in.fail("vertex index " + std::to_string(i) + " is out of range (" + std::to_string(n) +
                  " vertices so far)");
        polygon.push_back(static_cast<int>(v));
      }
      add_polygon(s, polygon, in);
    }
  }
  return s;
}

// OFF: "OFF", then "n_verts n_faces n_edges", the vertices, then "k i1 ... ik [colour]".
Soup read_off(const std::string& path) {
  LineReader in(path, '#');
  Soup s;
  in.require_line("the OFF header");
  if (in.token("the OFF header") != "OFF") in.fail("expected 'OFF' on the first line");
  if (!in.has_token()) in.require_line("the counts 'n_vertices n_faces n_edges'");
  std::error_code ec;
  const auto bytes = static_cast<long long>(std::filesystem::file_size(path, ec));
  const long long most = ec ? 0 : bytes / 2 + 1;  // each record takes at least two bytes
  const int n_verts = in.read_int_in("the vertex count", 0, std::min<long long>(most, 1 << 30));
  const int n_faces = in.read_int_in("the face count", 0, std::min<long long>(most, 1 << 30));
  s.X.reserve(n_verts);
  for (int i = 0; i < n_verts; ++i) {
    in.require_line("vertex " + std::to_string(i));
    s.X.push_back(read_point(in));
  }
  std::vector<int> polygon;
  for (int f = 0; f < n_faces; ++f) {
    in.require_line("face " + std::to_string(f));
    const int k = in.read_int_in("the face's vertex count", 3, 1 << 20);
    polygon.clear();
    for (int j = 0; j < k; ++j) polygon.push_back(in.read_int_in("a vertex index", 0, n_verts - 1));
    add_polygon(s, polygon, in);  // a colour may follow: ignored
  }
  return s;
}

// STL facets share no vertices: equal coordinates become one vertex.
struct Welder {
  Soup& s;
  std::map<std::array<double, 3>, int> index;
  int add(const std::array<double, 3>& p) {
    const auto [it, fresh] = index.emplace(p, static_cast<int>(s.X.size()));
    if (fresh) s.X.push_back(p);
    return it->second;
  }
};

Soup read_stl_binary(const std::string& path, std::uint32_t n) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(84);
  Soup s;
  Welder weld{s, {}};
  char record[50];
  for (std::uint32_t t = 0; t < n; ++t) {
    if (!in.read(record, sizeof record)) throw InputError(path + ": truncated binary STL");
    std::array<int, 3> tri{};
    for (int v = 0; v < 3; ++v) {
      float c[3];
      std::memcpy(c, record + 12 + 12 * v, sizeof c);
      std::array<double, 3> p{c[0], c[1], c[2]};
      for (const double x : p)
        if (!std::isfinite(x))
          throw InputError(path + ": triangle " + std::to_string(t) +
                           " has a non-finite coordinate");
      tri[v] = weld.add(p);
    }
    s.triangles.push_back(tri);
    s.lines.push_back(static_cast<int>(t) + 1);
  }
  return s;
}

Soup read_stl_ascii(const std::string& path) {
  LineReader in(path, '\0');
  Soup s;
  Welder weld{s, {}};
  in.require_line("'solid'");
  if (in.token("'solid'") != "solid") in.fail("expected 'solid' (an ASCII STL file)");
  std::array<int, 3> tri{};
  int corners = 0;
  while (in.next_line()) {
    const std::string_view kind = in.token("a keyword");
    if (kind == "vertex") {
      if (corners == 3) in.fail("a facet has more than 3 vertices");
      tri[corners++] = weld.add(read_point(in));
    } else if (kind == "endloop") {
      if (corners != 3)
        in.fail("a facet needs 3 vertices, this one has " + std::to_string(corners));
      s.triangles.push_back(tri);
      s.lines.push_back(in.line_number());
      corners = 0;
    } else if (kind == "endsolid") {
      return s;
    } else if (kind != "facet" && kind != "outer" && kind != "endfacet") {
      in.fail("unexpected '" + std::string(kind) + "' in an ASCII STL file");
    }
  }
  throw InputError(path + ": unexpected end of file, expected 'endsolid'");
}

// Binary when the size is 84 + 50 n for the count n in the header (ASCII files may start with
// "solid" too, binary ones sometimes do).
Soup read_stl(const std::string& path) {
  detail::refuse_special_file(path, "mesh file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file (does it exist and is it readable?)");
  char header[84] = {};
  in.read(header, sizeof header);
  std::uint32_t n = 0;
  std::memcpy(&n, header + 80, sizeof n);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && in.gcount() == 84 && size == 84 + 50ull * n) return read_stl_binary(path, n);
  return read_stl_ascii(path);
}

}  // namespace

SurfaceMesh read_surface_mesh(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  Soup s;
  if (ext == ".obj") {
    s = read_obj(path);
  } else if (ext == ".off") {
    s = read_off(path);
  } else if (ext == ".stl") {
    s = read_stl(path);
  } else {
    throw InputError(path + ": not a surface mesh (.obj, .off or .stl)");
  }
  if (s.X.size() < 4 || s.triangles.size() < 4)
    throw InputError(path + ": a closed surface needs at least 4 vertices and 4 triangles, got " +
                     std::to_string(s.X.size()) + " and " + std::to_string(s.triangles.size()));
  SurfaceMesh m;
  m.source = path;
  m.X.resize(static_cast<Eigen::Index>(s.X.size()), 3);
  for (size_t i = 0; i < s.X.size(); ++i)
    for (int k = 0; k < 3; ++k) m.X(static_cast<Eigen::Index>(i), k) = s.X[i][k];
  m.triangles.resize(static_cast<Eigen::Index>(s.triangles.size()), 3);
  for (size_t t = 0; t < s.triangles.size(); ++t) {
    const auto& v = s.triangles[t];
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
      detail::fail_at(path, s.lines[t], "a triangle repeats a vertex (it has no area)");
    for (int k = 0; k < 3; ++k) m.triangles(static_cast<Eigen::Index>(t), k) = v[k];
  }
  return m;
}

}  // namespace softgrad
