// VTK XML UnstructuredGrid writer (ASCII).
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

constexpr int kVtkTriangle = 5;
constexpr int kVtkTetra = 10;

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

// One <DataArray> of `count` tuples; in 2D, 2-component tuples are padded with a zero z.
void append_array(std::string& out, const std::string& name, int components,
                  const Eigen::VectorXd& values, int count, bool pad_2d) {
  const int written = (pad_2d && components == 2) ? 3 : components;
  out += "        <DataArray type=\"Float64\" Name=\"";
  out += name;
  out += "\" NumberOfComponents=\"";
  append_int(out, written);
  out += "\" format=\"ascii\">\n";
  for (int i = 0; i < count; ++i) {
    out += "         ";
    for (int c = 0; c < written; ++c) {
      out += ' ';
      append_number(out,
                    c < components ? values[static_cast<Eigen::Index>(i) * components + c] : 0.0);
    }
    out += '\n';
  }
  out += "        </DataArray>\n";
}

// <Cells>: connectivity, offsets and types.
void append_cells(std::string& out, const Mesh& mesh) {
  const int d1 = mesh.dim + 1;
  out +=
      "      <Cells>\n        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n";
  for (int e = 0; e < mesh.n_elems(); ++e) {
    out += "         ";
    for (int k = 0; k < d1; ++k) {
      out += ' ';
      append_int(out, mesh.elems(e, k));
    }
    out += '\n';
  }
  out +=
      "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"offsets\" "
      "format=\"ascii\">\n";
  for (int e = 0; e < mesh.n_elems(); ++e) {
    out += (e % 16 == 0) ? "          " : " ";
    append_int(out, static_cast<long long>(e + 1) * d1);
    if (e % 16 == 15 || e + 1 == mesh.n_elems()) out += '\n';
  }
  out +=
      "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n";
  const char* type = mesh.dim == 2 ? " 5" : " 10";
  static_assert(kVtkTriangle == 5 && kVtkTetra == 10);
  for (int e = 0; e < mesh.n_elems(); ++e) {
    if (e % 16 == 0) out += "         ";
    out += type;
    if (e % 16 == 15 || e + 1 == mesh.n_elems()) out += '\n';
  }
  out += "        </DataArray>\n      </Cells>\n";
}

}  // namespace

void write_vtu(const std::string& path, const Mesh& mesh, const Eigen::VectorXd& x,
               const std::vector<PointField>& fields, const std::vector<CellField>& cell_fields) {
  // Arguments.
  if ((mesh.dim != 2 && mesh.dim != 3) || mesh.elems.cols() != mesh.dim + 1) {
    fail(path, "the mesh must have dim 2 or 3 and dim + 1 vertices per element");
  }
  if (x.size() != mesh.n_dofs()) {
    std::ostringstream os;
    os << "x has " << x.size() << " entries, the mesh has n_dofs = " << mesh.n_dofs();
    fail(path, os.str());
  }
  for (const PointField& f : fields) check_field(path, f, mesh.n_verts(), "vertex");
  for (const CellField& f : cell_fields) check_field(path, f, mesh.n_elems(), "element");

  // Header, point data, cell data, points, cells.
  std::string out;
  out.reserve(static_cast<size_t>(mesh.n_verts()) * 48 + static_cast<size_t>(mesh.n_elems()) * 40);
  out +=
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      "  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"";
  append_int(out, mesh.n_verts());
  out += "\" NumberOfCells=\"";
  append_int(out, mesh.n_elems());
  out += "\">\n      <PointData>\n";
  const bool pad = mesh.dim == 2;
  for (const PointField& f : fields)
    append_array(out, f.name, f.components, f.values, mesh.n_verts(), pad);
  out += "      </PointData>\n      <CellData>\n";
  for (const CellField& f : cell_fields)
    append_array(out, f.name, f.components, f.values, mesh.n_elems(), pad);
  out += "      </CellData>\n      <Points>\n";
  append_array(out, "Points", mesh.dim, x, mesh.n_verts(), pad);
  out += "      </Points>\n";
  append_cells(out, mesh);
  out += "    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n";
  detail::write_file_atomically(path, out);
}

}  // namespace softgrad
