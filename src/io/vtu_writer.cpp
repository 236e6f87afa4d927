// VTK XML UnstructuredGrid writer: ASCII, or appended binary (raw or zlib-compressed).
#include <zlib.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"
#include "text_output.hpp"

namespace softgrad {
namespace {

using detail::append_int;
using detail::append_number;

constexpr std::uint8_t kVtkTriangle = 5;
constexpr std::uint8_t kVtkTetra = 10;
// zlib blocks of 32 KiB, as VTK writes them; level 1: doubles compress little better at higher
// levels, and a frame should not cost more to write than to simulate.
constexpr std::size_t kZlibBlock = 1 << 15;
constexpr int kZlibLevel = 1;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("write_vtu('" + path + "'): " + what);
}

// Name, component count and size (`count` tuples) of one field.
template <class Field>
void check_field(const std::string& path, const Field& f, int count, const char* per) {
  if (!detail::is_xml_attribute_safe(f.name)) {
    fail(path, "field name '" + f.name + "' must be non-empty without < > & \" '");
  }
  if (f.components < 1) fail(path, "field '" + f.name + "' must have components >= 1");
  const long long expected = static_cast<long long>(count) * f.components;
  if (f.values.size() != expected) {
    std::ostringstream os;
    os << "field '" << f.name << "' has " << f.values.size() << " values, expected " << expected
       << " (" << f.components << " per " << per << ")";
    fail(path, os.str());
  }
}

template <class T>
void append_bytes(std::string& out, const T* data, std::size_t count) {
  out.append(reinterpret_cast<const char*>(data), count * sizeof(T));
}

// Builds the XML and, for the binary encodings, the appended data block that follows it. Each
// array's bytes are preceded by a UInt64 header: its size (raw), or the zlib block table.
class VtuBuilder {
 public:
  VtuBuilder(VtuEncoding encoding, const std::string& path) : encoding_(encoding), path_(path) {}

  // One <DataArray> of `values.size() / components` tuples; as ASCII, `per_line` values a line.
  template <class T>
  void array(const char* type, const std::string& name, int components,
             const std::vector<T>& values, int per_line) {
    xml_ += "        <DataArray type=\"";
    xml_ += type;
    xml_ += "\" Name=\"";
    xml_ += name;
    xml_ += "\"";
    if (components > 1) {
      xml_ += " NumberOfComponents=\"";
      append_int(xml_, components);
      xml_ += "\"";
    }
    if (encoding_ == VtuEncoding::ascii) {
      xml_ += " format=\"ascii\">\n";
      ascii(values, static_cast<std::size_t>(per_line));
      xml_ += "        </DataArray>\n";
      return;
    }
    xml_ += " format=\"appended\" offset=\"";
    append_int(xml_, static_cast<long long>(appended_.size()));
    xml_ += "\"/>\n";
    if (encoding_ == VtuEncoding::raw) {
      const std::uint64_t bytes = values.size() * sizeof(T);
      append_bytes(appended_, &bytes, 1);
      append_bytes(appended_, values.data(), values.size());
    } else {
      compress(reinterpret_cast<const unsigned char*>(values.data()), values.size() * sizeof(T));
    }
  }

  void text(const char* s) { xml_ += s; }
  void number(long long v) { append_int(xml_, v); }

  // The file: the XML, then (binary) the appended block.
  std::string finish() {
    if (encoding_ == VtuEncoding::ascii) {
      xml_ += "</VTKFile>\n";
      return std::move(xml_);
    }
    xml_ += "  <AppendedData encoding=\"raw\">\n   _";
    xml_ += appended_;
    xml_ += "\n  </AppendedData>\n</VTKFile>\n";
    return std::move(xml_);
  }

 private:
  template <class T>
  void ascii(const std::vector<T>& values, std::size_t per_line) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      xml_ += i % per_line == 0 ? "          " : " ";
      if constexpr (std::is_floating_point_v<T>) {
        append_number(xml_, values[i]);
      } else {
        append_int(xml_, static_cast<long long>(values[i]));
      }
      if (i % per_line == per_line - 1 || i + 1 == values.size()) xml_ += '\n';
    }
  }

  // VTK's zlib layout: [n_blocks, block size, size of the last block, compressed sizes...],
  // then the compressed blocks.
  void compress(const unsigned char* data, std::size_t bytes) {
    const std::size_t n_blocks = (bytes + kZlibBlock - 1) / kZlibBlock;
    const std::size_t header_at = appended_.size();
    std::vector<std::uint64_t> header(3 + n_blocks, 0);
    header[0] = n_blocks;
    header[1] = kZlibBlock;
    header[2] = bytes % kZlibBlock == 0 && bytes > 0 ? kZlibBlock : bytes % kZlibBlock;
    appended_.append(header.size() * sizeof(std::uint64_t), '\0');
    for (std::size_t b = 0; b < n_blocks; ++b) {
      const std::size_t size = std::min(kZlibBlock, bytes - b * kZlibBlock);
      uLongf packed = compressBound(static_cast<uLong>(size));
      block_.resize(packed);
      if (compress2(block_.data(), &packed, data + b * kZlibBlock, static_cast<uLong>(size),
                    kZlibLevel) != Z_OK) {
        fail(path_, "zlib could not compress the data");
      }
      header[3 + b] = packed;
      appended_.append(reinterpret_cast<const char*>(block_.data()), packed);
    }
    std::memcpy(appended_.data() + header_at, header.data(), header.size() * sizeof(std::uint64_t));
  }

  VtuEncoding encoding_;
  const std::string& path_;
  std::string xml_;
  std::string appended_;
  std::vector<unsigned char> block_;
};

// In 2D, 2-component tuples are written with a zero z, so that ParaView sees vectors.
int written_components(int components, bool pad_2d) {
  return (pad_2d && components == 2) ? 3 : components;
}

// One Float64 <DataArray> of `count` tuples of `components` values (one tuple per ASCII line).
void float_array(VtuBuilder& out, const std::string& name, const Eigen::VectorXd& values,
                 int components, int count, bool pad_2d) {
  const int written = written_components(components, pad_2d);
  std::vector<double> tuples(static_cast<std::size_t>(count) * written, 0.0);
  for (int i = 0; i < count; ++i)
    for (int c = 0; c < components; ++c)
      tuples[static_cast<std::size_t>(i) * written + c] =
          values[static_cast<Eigen::Index>(i) * components + c];
  out.array("Float64", name, written, tuples, written);
}

}  // namespace

VtuEncoding parse_vtu_encoding(std::string_view name) {
  if (name == "zlib") return VtuEncoding::zlib;
  if (name == "raw") return VtuEncoding::raw;
  if (name == "ascii") return VtuEncoding::ascii;
  throw InputError("unknown VTU encoding '" + std::string(name) + "'; use zlib, raw or ascii");
}

const char* to_string(VtuEncoding encoding) {
  switch (encoding) {
    case VtuEncoding::ascii:
      return "ascii";
    case VtuEncoding::raw:
      return "raw";
    case VtuEncoding::zlib:
      return "zlib";
  }
  return "zlib";
}

namespace {

// The cells of a .vtu: `arity` vertices each, of one VTK type.
struct Cells {
  const int* vertices;  ///< n_cells x arity, row-major
  int n_cells;
  int arity;
  std::uint8_t type;
};

// Points (n_points tuples of dim values, written as 3D points), point and cell fields, cells.
void write_unstructured(const std::string& path, const Eigen::VectorXd& x, int n_points, int dim,
                        const Cells& cells, const std::vector<PointField>& fields,
                        const std::vector<CellField>& cell_fields, VtuEncoding encoding) {
  for (const PointField& f : fields) check_field(path, f, n_points, "vertex");
  for (const CellField& f : cell_fields) check_field(path, f, cells.n_cells, "element");

  // Header, point data, cell data, points, cells.
  VtuBuilder out(encoding, path);
  out.text("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" ");
  if (encoding == VtuEncoding::ascii) {
    out.text("version=\"0.1\" byte_order=\"LittleEndian\">\n");
  } else {
    out.text(std::endian::native == std::endian::little
                 ? "version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\""
                 : "version=\"1.0\" byte_order=\"BigEndian\" header_type=\"UInt64\"");
    out.text(encoding == VtuEncoding::zlib ? " compressor=\"vtkZLibDataCompressor\">\n" : ">\n");
  }
  out.text("  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"");
  out.number(n_points);
  out.text("\" NumberOfCells=\"");
  out.number(cells.n_cells);
  out.text("\">\n      <PointData>\n");
  const bool pad = dim == 2;
  for (const PointField& f : fields)
    float_array(out, f.name, f.values, f.components, n_points, pad);
  out.text("      </PointData>\n      <CellData>\n");
  for (const CellField& f : cell_fields)
    float_array(out, f.name, f.values, f.components, cells.n_cells, pad);
  out.text("      </CellData>\n      <Points>\n");
  float_array(out, "Points", x, dim, n_points, /*pad_2d=*/true);  // always 3D points
  out.text("      </Points>\n      <Cells>\n");

  const int a = cells.arity;
  std::vector<std::int32_t> connectivity(
      cells.vertices, cells.vertices + static_cast<std::size_t>(cells.n_cells) * a);
  std::vector<std::int32_t> offsets(cells.n_cells);
  for (int e = 0; e < cells.n_cells; ++e) offsets[e] = (e + 1) * a;
  out.array("Int32", "connectivity", 1, connectivity, a);
  out.array("Int32", "offsets", 1, offsets, 16);
  out.array("UInt8", "types", 1, std::vector<std::uint8_t>(cells.n_cells, cells.type), 16);
  out.text("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n");
  detail::write_file_atomically(path, out.finish());
}

}  // namespace

void write_vtu(const std::string& path, const Mesh& mesh, const Eigen::VectorXd& x,
               const std::vector<PointField>& fields, const std::vector<CellField>& cell_fields,
               VtuEncoding encoding) {
  if ((mesh.dim != 2 && mesh.dim != 3) || mesh.elems.cols() != mesh.dim + 1) {
    fail(path, "the mesh must have dim 2 or 3 and dim + 1 vertices per element");
  }
  if (x.size() != mesh.n_dofs()) {
    std::ostringstream os;
    os << "x has " << x.size() << " entries, the mesh has n_dofs = " << mesh.n_dofs();
    fail(path, os.str());
  }
  const Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> elems = mesh.elems;
  const Cells cells{elems.data(), mesh.n_elems(), mesh.dim + 1,
                    mesh.dim == 2 ? kVtkTriangle : kVtkTetra};
  write_unstructured(path, x, mesh.n_verts(), mesh.dim, cells, fields, cell_fields, encoding);
}

void write_surface_vtu(const std::string& path, const Eigen::MatrixXd& V, const Eigen::MatrixXi& F,
                       const std::vector<PointField>& fields,
                       const std::vector<CellField>& cell_fields, VtuEncoding encoding) {
  if (V.cols() != 3 || F.cols() != 3)
    fail(path, "a surface needs 3 coordinates per vertex and 3 vertices per triangle");
  if (F.size() > 0 && (F.minCoeff() < 0 || F.maxCoeff() >= V.rows()))
    fail(path, "a triangle refers to a vertex that is not in the surface");
  const Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> points = V;
  const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(points.data(), points.size());
  const Eigen::Matrix<int, Eigen::Dynamic, 3, Eigen::RowMajor> triangles = F;
  const Cells cells{triangles.data(), static_cast<int>(F.rows()), 3, kVtkTriangle};
  write_unstructured(path, x, static_cast<int>(V.rows()), 3, cells, fields, cell_fields, encoding);
}

}  // namespace softgrad
