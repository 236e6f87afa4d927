// Gmsh .msh reader: MSH 2.x and 4.1 ASCII, and MSH 4.1 binary (gmsh_binary_reader.cpp). Reads
// $MeshFormat, $Nodes and $Elements and skips every other section.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "gmsh_data.hpp"
#include "line_reader.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"

namespace softgrad {
namespace {

using detail::GmshData;
using detail::LineReader;

// Reads the next line, which must be exactly `end` (e.g. "$EndNodes").
void expect_end_marker(LineReader& in, const char* end) {
  in.require_line(end);
  const std::string_view t = in.token(end);
  if (t != end) {
    in.fail(std::string("expected ") + end + ", got '" + std::string(t) +
            "' (does the count in the section header match its contents?)");
  }
  in.expect_end(end);
}

// $MeshFormat: "version file-type data-size". Only ASCII 2.x and 4.1.
void read_format(LineReader& in, GmshData& data) {
  in.require_line("the $MeshFormat line 'version file-type data-size'");
  const std::string_view version = in.token("the MSH version");
  if (version == "2" || version.starts_with("2.")) {
    data.version = 2;
  } else if (version == "4.1") {
    data.version = 4;
  } else {
    in.fail("unsupported MSH version '" + std::string(version) +
            "'; save the mesh as MSH 2.2 or 4.1 ASCII");
  }
  if (in.read_int("the file type (0 = ASCII, 1 = binary)") != 0) {
    in.fail("binary MSH " + std::string(version) +
            " files are not supported; save the mesh as MSH 4.1 (binary or ASCII)");
  }
  in.read_int("the data size");
  in.expect_end("the $MeshFormat line");
  expect_end_marker(in, "$EndMeshFormat");
}

// One node's "x y z" (plus `extra` parametric values, ignored).
void read_coords(LineReader& in, GmshData& data, int extra) {
  for (int k = 0; k < 3; ++k) {
    const double c = in.read_double("a node coordinate");
    if (!std::isfinite(c)) in.fail("non-finite node coordinate");
    data.coords.push_back(c);
  }
  for (int k = 0; k < extra; ++k) in.read_double("a parametric coordinate");
  in.expect_end("the node coordinates");
}

// Room for `n` nodes, up to a bound, so that a corrupt count fails as a parse error instead.
void reserve_nodes(GmshData& data, int n) {
  const size_t capped = static_cast<size_t>(std::min(n, 1 << 24));
  data.node_tags.reserve(capped);
  data.node_places.reserve(capped);
  data.coords.reserve(3 * capped);
}

// $Nodes, MSH 2: "n", then n lines "tag x y z".
void read_nodes_v2(LineReader& in, GmshData& data) {
  in.require_line("the node count");
  const int n = in.read_int_in("node count", 0, INT_MAX);
  in.expect_end("the node count");
  reserve_nodes(data, n);
  for (int i = 0; i < n; ++i) {
    in.require_line("a node line 'tag x y z'");
    data.node_tags.push_back(in.read_int_in("node tag", 0, INT_MAX));
    data.node_places.push_back(in.line_number());
    read_coords(in, data, 0);
  }
}

// $Nodes, MSH 4.1: "n_blocks n_nodes min_tag max_tag", then per block
// "entity_dim entity_tag parametric n", n tag lines, n coordinate lines.
void read_nodes_v4(LineReader& in, GmshData& data) {
  in.require_line("the $Nodes header 'n_blocks n_nodes min_tag max_tag'");
  const int n_blocks = in.read_int_in("block count", 0, INT_MAX);
  const int n_nodes = in.read_int_in("node count", 0, INT_MAX);
  reserve_nodes(data, n_nodes);
  for (int b = 0; b < n_blocks; ++b) {
    in.require_line("a node block header 'entity_dim entity_tag parametric n'");
    const int entity_dim = in.read_int_in("entity dimension", 0, 3);
    in.read_int("entity tag");
    const int parametric = in.read_int_in("parametric flag", 0, 1);
    const int n = in.read_int_in("nodes in block", 0,
                                 n_nodes - static_cast<long long>(data.node_tags.size()));
    in.expect_end("the node block header");
    for (int i = 0; i < n; ++i) {
      in.require_line("a node tag");
      data.node_tags.push_back(in.read_int_in("node tag", 0, INT_MAX));
      in.expect_end("the node tag");
    }
    for (int i = 0; i < n; ++i) {
      in.require_line("a node coordinate line 'x y z'");
      data.node_places.push_back(in.line_number());
      read_coords(in, data, parametric ? entity_dim : 0);
    }
  }
  if (static_cast<int>(data.node_tags.size()) != n_nodes) {
    in.fail("the $Nodes header announces " + std::to_string(n_nodes) + " nodes, the blocks hold " +
            std::to_string(data.node_tags.size()));
  }
}

// The node list of one element of `type`, after its id (and tags), into data.corners.
void read_element_nodes(LineReader& in, GmshData& data, long long id, long long type) {
  int n_nodes = 0;
  const int dim = detail::gmsh_simplex_dim(type, n_nodes);
  if (dim == 0) {  // not a simplex we use: noted, and the rest of the line ignored
    detail::note_unread_element(data, type, in.line_number());
    return;
  }
  const char* name = dim == 3 ? "a tetrahedron" : "a triangle";
  const int count = in.count_tokens();
  if (count != n_nodes) {
    in.fail("expected " + std::to_string(n_nodes) + " node indices for " + name +
            " (element type " + std::to_string(type) + "), got " + std::to_string(count));
  }
  for (int k = 0; k < n_nodes; ++k) {
    const int tag = in.read_int_in("node tag", 0, INT_MAX);
    if (k <= dim) data.corners[dim - 2].push_back(tag);
  }
  data.origins[dim - 2].push_back({in.line_number(), id});
}

// $Elements, MSH 2: "n", then n lines "id type n_tags tags... nodes...".
void read_elements_v2(LineReader& in, GmshData& data) {
  in.require_line("the element count");
  const int n = in.read_int_in("element count", 0, INT_MAX);
  in.expect_end("the element count");
  for (int i = 0; i < n; ++i) {
    in.require_line("an element line 'id type n_tags tags... nodes...'");
    const long long id = in.read_int("element id");
    const long long type = in.read_int("element type");
    const int n_tags = in.read_int_in("tag count", 0, INT_MAX);
    for (int k = 0; k < n_tags; ++k) in.read_int("element tag");
    read_element_nodes(in, data, id, type);
  }
}

// $Elements, MSH 4.1: "n_blocks n_elems min_tag max_tag", then per block
// "entity_dim entity_tag type n" and n lines "id nodes...".
void read_elements_v4(LineReader& in, GmshData& data) {
  in.require_line("the $Elements header 'n_blocks n_elems min_tag max_tag'");
  const int n_blocks = in.read_int_in("block count", 0, INT_MAX);
  const int n_elems = in.read_int_in("element count", 0, INT_MAX);
  long long seen = 0;
  for (int b = 0; b < n_blocks; ++b) {
    in.require_line("an element block header 'entity_dim entity_tag type n'");
    in.read_int("entity dimension");
    in.read_int("entity tag");
    const long long type = in.read_int("element type");
    const int n = in.read_int_in("elements in block", 0, n_elems - seen);
    in.expect_end("the element block header");
    for (int i = 0; i < n; ++i) {
      in.require_line("an element line 'id nodes...'");
      read_element_nodes(in, data, in.read_int("element id"), type);
    }
    seen += n;
  }
  if (seen != n_elems) {
    in.fail("the $Elements header announces " + std::to_string(n_elems) +
            " elements, the blocks hold " + std::to_string(seen));
  }
}

// Walks the sections of the file.
GmshData read_sections(const std::string& path) {
  LineReader in(path, '\0');
  GmshData data;
  while (in.next_line()) {
    const std::string section(in.token("a section"));
    in.expect_end(section);
    const bool is_data = section == "$Nodes" || section == "$Elements";
    if (section == "$MeshFormat") {
      read_format(in, data);
    } else if (is_data && data.version == 0) {
      in.fail(section + " before $MeshFormat: not a Gmsh MSH 2.x or 4.1 file");
    } else if (is_data && (section == "$Nodes" ? data.has_nodes : data.has_elements)) {
      in.fail("a second " + section + " section; only one is supported");
    } else if (section == "$Nodes") {
      data.version == 2 ? read_nodes_v2(in, data) : read_nodes_v4(in, data);
      expect_end_marker(in, "$EndNodes");
      data.has_nodes = true;
    } else if (section == "$Elements") {
      data.elements_place = in.line_number();
      data.version == 2 ? read_elements_v2(in, data) : read_elements_v4(in, data);
      expect_end_marker(in, "$EndElements");
      data.has_elements = true;
    } else if (section.size() > 1 && section[0] == '$') {
      // Any other section: skip to its end marker.
      const std::string end = "$End" + section.substr(1);
      do {
        in.require_line(end);
      } while (in.line() != end);
    } else {
      in.fail("expected a section such as $MeshFormat, $Nodes or $Elements, got '" + section + "'");
    }
  }
  if (data.version == 0) in.fail("not a Gmsh .msh file: no $MeshFormat section");
  if (!data.has_nodes || !data.has_elements) {
    in.fail(std::string("unexpected end of file: no ") + (data.has_nodes ? "$Elements" : "$Nodes") +
            " section");
  }
  return data;
}

}  // namespace

Mesh read_gmsh(const std::string& path) {
  Mesh mesh = detail::gmsh_mesh(
      detail::is_binary_msh41(path) ? detail::read_gmsh_binary(path) : read_sections(path), path);
  validate_mesh(mesh);
  return mesh;
}

}  // namespace softgrad
