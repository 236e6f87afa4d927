#include <filesystem>
#include <string>

#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"

namespace softgrad {

Mesh read_mesh(const std::string& path, const TetrahedraliseOptions& surface) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".msh") return read_gmsh(path);
  if (ext == ".obj" || ext == ".off" || ext == ".stl")
    return tetrahedralise(read_surface_mesh(path), surface);
  if (ext == ".node" || ext == ".ele") return read_tetgen(path);
  // A TetGen base path ("foo" for foo.node and foo.ele), possibly with a dot ("foo.1").
  std::error_code ec;
  if (std::filesystem::is_regular_file(path + ".node", ec)) return read_tetgen(path);
  const std::string what = ext.empty() ? "has no extension and '" + path + ".node' does not exist"
                                       : "has the unknown extension '" + ext + "'";
  throw InputError(
      path + ": " + what +
      "; supported are .msh (Gmsh 2.2 or 4.1 ASCII), .node/.ele (TetGen) and the surfaces .obj, "
      ".off, .stl (filled with tetrahedra)");
}

}  // namespace softgrad
