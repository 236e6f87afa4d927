// Gmsh MSH 4.1 binary. The section markers and the $MeshFormat header are text lines; the data
// of $Nodes and $Elements are the writer's native ints (4 bytes), size_t (8 bytes, the header's
// data size) and doubles, checked against a 1 written after the header (byte order).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>

#include "gmsh_data.hpp"
#include "input_file.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::detail {
namespace {

// Node counts of the element types Gmsh writes, so that blocks of types not read can be skipped
// (a binary element has no line end to skip to). 0: a type this table does not know.
int nodes_per_element(int type) {
  static constexpr int counts[] = {0, 2,  3,  4,  4, 8,  6,  5,  3,  6,  9, 10, 27, 18, 14, 1,
                                   8, 20, 15, 13, 9, 10, 12, 15, 15, 21, 4, 5,  6,  20, 35, 56};
  if (type >= 0 && type < static_cast<int>(std::size(counts))) return counts[type];
  if (type == 92) return 64;   // 64-node hexahedron
  if (type == 93) return 125;  // 125-node hexahedron
  return 0;
}

// The whole file and a cursor; every read is checked against the bytes left.
class ByteReader {
 public:
  explicit ByteReader(std::string path) : path_(std::move(path)) {
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw InputError(path_ + ": cannot open file (does it exist and is it readable?)");
    bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) throw InputError(path_ + ": cannot read the file");
  }
  long long pos() const { return static_cast<long long>(pos_); }
  size_t left() const { return bytes_.size() - pos_; }

  [[noreturn]] void fail(std::string_view message, long long at = -1) const {
    throw InputError(place_text(path_, at < 0 ? pos() : at, true) + ": " + std::string(message));
  }
  // The next non-blank text line (a trailing '\r' dropped); "" at the end of the file.
  std::string_view text_line() {
    while (pos_ < bytes_.size()) {
      const size_t end = std::min(bytes_.find('\n', pos_), bytes_.size());
      std::string_view line(bytes_.data() + pos_, end - pos_);
      pos_ = std::min(end + 1, bytes_.size());
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
      if (!line.empty()) return line;
    }
    return {};
  }
  template <class T>
  T read(std::string_view what) {
    if (left() < sizeof(T)) fail("unexpected end of file in " + std::string(what));
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  int read_int_in(std::string_view what, int lo, int hi) {
    const long long at = pos();
    const int v = read<std::int32_t>(what);
    if (v < lo || v > hi) {
      fail(std::string(what) + " " + std::to_string(v) + " is out of range [" + std::to_string(lo) +
               ", " + std::to_string(hi) + "]",
           at);
    }
    return v;
  }
  // A size_t count of items of at least `bytes_each` bytes that must fit in what is left of the
  // file (so a corrupt count fails here, before anything is allocated for it) and in `max`.
  long long read_count(std::string_view what, size_t bytes_each, long long max) {
    const long long at = pos();
    const std::uint64_t n = read<std::uint64_t>(what);
    if (n > static_cast<std::uint64_t>(max) || (bytes_each && n > left() / bytes_each)) {
      std::ostringstream os;
      os << what << " " << n << " is impossible: "
         << (n > static_cast<std::uint64_t>(max) ? "more than " + std::to_string(max)
                                                 : "the file ends before")
         << " (a corrupt or truncated file?)";
      fail(os.str(), at);
    }
    return static_cast<long long>(n);
  }
  // A node tag (size_t) that fits softgrad's int indices.
  int read_tag(std::string_view what) {
    const long long at = pos();
    const std::uint64_t t = read<std::uint64_t>(what);
    if (t > INT32_MAX) fail(std::string(what) + " " + std::to_string(t) + " is too large", at);
    return static_cast<int>(t);
  }
  // After a binary block: the newline Gmsh writes, then the line `end`.
  void expect_end_marker(const char* end) {
    const long long at = pos();
    if (text_line() != end) {
      fail(std::string("expected ") + end +
               " (do the counts in the section header match its contents?)",
           at);
    }
  }
  // Skips to the line "$End<name>" of a section not read.
  void skip_section(std::string_view name) {
    const std::string end = "\n$End" + std::string(name.substr(1));
    for (size_t at = bytes_.find(end, pos_ - 1); at != std::string::npos;
         at = bytes_.find(end, at + 1)) {
      const size_t after = at + end.size();
      if (after == bytes_.size() || bytes_[after] == '\n' || bytes_[after] == '\r') {
        pos_ = at + 1;
        text_line();
        return;
      }
    }
    fail("unexpected end of file: no " + end.substr(1) + " for " + std::string(name));
  }

 private:
  std::string path_;
  std::string bytes_;
  size_t pos_ = 0;
};

void read_format(ByteReader& in) {
  const long long header_at = in.pos();
  std::istringstream header{std::string(in.text_line())};
  std::string version;
  int file_type = -1, data_size = -1;
  header >> version >> file_type >> data_size;
  if (version != "4.1" || file_type != 1)
    in.fail("expected the binary MSH 4.1 header '4.1 1 8'", header_at);
  if (data_size != 8) {
    in.fail("data size " + std::to_string(data_size) +
                ": only files written with 8-byte size_t (64-bit Gmsh) are supported",
            header_at);
  }
  const long long at = in.pos();
  const std::int32_t one = in.read<std::int32_t>("the byte-order check");
  if (one != 1) {
    in.fail(one == 0x01000000 ? "written on a machine of the other byte order; save it as ASCII"
                              : "the byte-order check after the header is not 1",
            at);
  }
  in.expect_end_marker("$EndMeshFormat");
}

void read_nodes(ByteReader& in, GmshData& data) {
  const long long n_blocks = in.read_count("block count", 20, INT32_MAX);
  const long long n_nodes = in.read_count("node count", 32, INT32_MAX);
  in.read<std::uint64_t>("the smallest node tag");
  in.read<std::uint64_t>("the largest node tag");
  data.node_tags.reserve(n_nodes);
  data.node_places.reserve(n_nodes);
  data.coords.reserve(3 * n_nodes);
  for (long long b = 0; b < n_blocks; ++b) {
    const int entity_dim = in.read_int_in("entity dimension", 0, 3);
    in.read<std::int32_t>("entity tag");
    const int parametric = in.read_int_in("parametric flag", 0, 1);
    const int extra = parametric ? entity_dim : 0;
    const long long n = in.read_count("nodes in block", 8 * (4 + extra),
                                      n_nodes - static_cast<long long>(data.node_tags.size()));
    for (long long i = 0; i < n; ++i) data.node_tags.push_back(in.read_tag("node tag"));
    for (long long i = 0; i < n; ++i) {
      data.node_places.push_back(in.pos());
      for (int k = 0; k < 3 + extra; ++k) {
        const long long at = in.pos();
        const double c = in.read<double>("a node coordinate");
        if (!std::isfinite(c)) in.fail("non-finite node coordinate", at);
        if (k < 3) data.coords.push_back(c);
      }
    }
  }
  if (static_cast<long long>(data.node_tags.size()) != n_nodes) {
    in.fail("the $Nodes header announces " + std::to_string(n_nodes) + " nodes, the blocks hold " +
            std::to_string(data.node_tags.size()));
  }
}

void read_elements(ByteReader& in, GmshData& data) {
  const long long n_blocks = in.read_count("block count", 20, INT32_MAX);
  const long long n_elems = in.read_count("element count", 16, INT32_MAX);
  in.read<std::uint64_t>("the smallest element tag");
  in.read<std::uint64_t>("the largest element tag");
  long long seen = 0;
  for (long long b = 0; b < n_blocks; ++b) {
    in.read<std::int32_t>("entity dimension");
    in.read<std::int32_t>("entity tag");
    const long long type_at = in.pos();
    const int type = in.read<std::int32_t>("element type");
    const int n_nodes = nodes_per_element(type);
    if (n_nodes == 0) {
      in.fail("element type " + std::to_string(type) +
                  " is not known, so its block cannot be skipped; save the mesh as ASCII",
              type_at);
    }
    const long long n = in.read_count("elements in block", 8 * (1 + n_nodes), n_elems - seen);
    int simplex_nodes = 0;
    const int dim = gmsh_simplex_dim(type, simplex_nodes);
    if (dim == 0 && n > 0) note_unread_element(data, type, type_at);
    for (long long i = 0; i < n; ++i) {
      const long long at = in.pos();
      const auto id = in.read<std::uint64_t>("element id");
      for (int k = 0; k < n_nodes; ++k) {
        const int tag = in.read_tag("node tag");
        if (dim && k <= dim) data.corners[dim - 2].push_back(tag);
      }
      if (dim)
        data.origins[dim - 2].push_back(
            {at, static_cast<long long>(std::min<std::uint64_t>(id, INT64_MAX)), true});
    }
    seen += n;
  }
  if (seen != n_elems) {
    in.fail("the $Elements header announces " + std::to_string(n_elems) +
            " elements, the blocks hold " + std::to_string(seen));
  }
}

}  // namespace

bool is_binary_msh41(const std::string& path) {
  refuse_special_file(path, "mesh file");
  std::ifstream in(path, std::ios::binary);
  std::string first, version, type;
  in >> first >> version >> type;
  return first == "$MeshFormat" && version == "4.1" && type == "1";
}

GmshData read_gmsh_binary(const std::string& path) {
  ByteReader in(path);
  GmshData data;
  data.version = 4;
  data.binary = true;
  if (in.text_line() != "$MeshFormat") in.fail("expected $MeshFormat", 0);
  read_format(in);
  for (std::string_view section = in.text_line(); !section.empty(); section = in.text_line()) {
    const long long at = in.pos() - static_cast<long long>(section.size()) - 1;
    if (section == "$Nodes" || section == "$Elements") {
      const bool nodes = section == "$Nodes";
      if (nodes ? data.has_nodes : data.has_elements)
        in.fail("a second " + std::string(section) + " section; only one is supported", at);
      if (nodes) {
        read_nodes(in, data);
        in.expect_end_marker("$EndNodes");
        data.has_nodes = true;
      } else {
        data.elements_place = at;
        read_elements(in, data);
        in.expect_end_marker("$EndElements");
        data.has_elements = true;
      }
    } else if (section.size() > 1 && section[0] == '$') {
      in.skip_section(section);
    } else {
      in.fail("expected a section such as $Nodes or $Elements, got '" +
                  std::string(section.substr(0, 40)) + "'",
              at);
    }
  }
  if (!data.has_nodes || !data.has_elements) {
    in.fail(std::string("unexpected end of file: no ") + (data.has_nodes ? "$Elements" : "$Nodes") +
            " section");
  }
  return data;
}

}  // namespace softgrad::detail
