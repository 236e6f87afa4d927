// ParaView collection (.pvd) writer.
#include <string>
#include <utility>

#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"
#include "text_output.hpp"

namespace softgrad {

PvdWriter::PvdWriter(std::string pvd_path) : path_(std::move(pvd_path)) { write(); }

void PvdWriter::add_frame(double time, const std::string& vtu_file, int part) {
  if (!detail::is_xml_attribute_safe(vtu_file)) {
    throw InputError("PvdWriter('" + path_ + "'): frame file name '" + vtu_file +
                     "' must be non-empty without < > & \" '");
  }
  frames_.emplace_back(time, vtu_file);
  parts_.push_back(part);
  try {
    write();
  } catch (...) {
    frames_.pop_back();
    parts_.pop_back();
    throw;
  }
}

void PvdWriter::write() const {
  std::string out =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      "  <Collection>\n";
  for (size_t k = 0; k < frames_.size(); ++k) {
    out += "    <DataSet timestep=\"";
    detail::append_number(out, frames_[k].first, 15);  // labels: 0.3, not 0.30000000000000004
    out += "\" group=\"\" part=\"";
    out += std::to_string(parts_[k]);
    out += "\" file=\"";
    out += frames_[k].second;
    out += "\"/>\n";
  }
  out += "  </Collection>\n</VTKFile>\n";
  detail::write_file_atomically(path_, out);
}

}  // namespace softgrad
