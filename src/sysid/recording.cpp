#include "softgrad/recording.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "../io/input_file.hpp"
#include "../io/text_output.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"

namespace softgrad {
namespace {

// Farther than this from the origin a marker is no position (its squares would overflow the
// residual norms).
constexpr double kMaxCoordinate = 1e9;

[[noreturn]] void fail(const std::filesystem::path& file, int line, const std::string& msg) {
  throw InputError(file.string() + ":" + std::to_string(line) + ": " + msg);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) {
    const auto b = field.find_first_not_of(" \t\r");
    const auto e = field.find_last_not_of(" \t\r");
    fields.push_back(b == std::string::npos ? "" : field.substr(b, e - b + 1));
  }
  if (!line.empty() && line.back() == ',') fields.push_back("");
  return fields;
}

bool parse_double(const std::string& s, double& v) {
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, v);
  return r.ec == std::errc() && r.ptr == end;
}

// The file's lines, with CR LF and lone CR (old Mac files) read as line ends and a UTF-8
// byte-order mark dropped. A last line without a line end draws a warning: a file cut short
// ends that way, and its last number may be cut too.
std::istringstream recording_lines(const std::filesystem::path& file) {
  detail::refuse_special_file(file, "recording (CSV)");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string() + ": cannot open the recording: " + std::strerror(errno));
  std::ostringstream raw;
  raw << in.rdbuf();
  std::string text = raw.str();
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  std::string lines;
  lines.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      lines += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      lines += text[i];
    }
  }
  if (!lines.empty() && lines.back() != '\n') {
    const long n = std::count(lines.begin(), lines.end(), '\n') + 1;
    log(LogLevel::Warn, file.string() + ":" + std::to_string(n) +
                            ": the last line has no line end; if the file was cut short, its "
                            "last value may be cut too");
  }
  return std::istringstream(lines);
}

}  // namespace

Recording read_recording(const std::filesystem::path& file, const MarkerSet& markers) {
  std::istringstream in = recording_lines(file);
  Recording rec;
  const int dim = markers.dim();
  std::string raw;
  int line = 0;
  std::vector<char> seen;  // markers seen in the current frame
  while (std::getline(in, raw)) {
    ++line;
    const auto hash = raw.find('#');
    if (hash != std::string::npos) raw.resize(hash);
    if (raw.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::vector<std::string> f = split_csv(raw);
    if (rec.observations.empty() && rec.times.empty() && !f.empty() && f[0] == "time") continue;
    if (static_cast<int>(f.size()) != 2 + dim) {
      std::ostringstream os;
      os << "expected " << 2 + dim << " comma-separated fields (time, marker, " << dim
         << " coordinates), got " << f.size();
      fail(file, line, os.str());
    }
    double t = 0.0;
    if (!parse_double(f[0], t) || !std::isfinite(t))
      fail(file, line, "the time '" + f[0] + "' is not a finite number");
    const int m = markers.find(f[1]);
    if (m < 0) fail(file, line, "unknown marker '" + f[1] + "'");
    Eigen::VectorXd p(dim);
    for (int k = 0; k < dim; ++k) {
      if (!parse_double(f[2 + k], p[k]) || !std::isfinite(p[k]))
        fail(file, line,
             "coordinate " + std::to_string(k) + " '" + f[2 + k] + "' is not a finite number");
      if (std::abs(p[k]) > kMaxCoordinate)
        fail(file, line,
             "coordinate " + std::to_string(k) + " '" + f[2 + k] +
                 "' is more than 1e9 m from the origin (are the units metres?)");
    }
    if (rec.times.empty() || t > rec.times.back()) {
      rec.times.push_back(t);
      seen.assign(markers.size(), 0);
    } else if (t < rec.times.back()) {
      std::ostringstream os;
      os << "time " << t << " is before the previous frame's time " << rec.times.back()
         << " (times must not decrease)";
      fail(file, line, os.str());
    }
    if (seen[m]) fail(file, line, "marker '" + f[1] + "' appears twice at time " + f[0]);
    seen[m] = 1;
    rec.observations.push_back({static_cast<int>(rec.times.size()) - 1, m, p});
  }
  if (rec.observations.empty()) throw InputError(file.string() + ": the recording is empty");
  return rec;
}

void write_recording(const std::filesystem::path& file, const Recording& rec,
                     const MarkerSet& markers) {
  std::ostringstream out;
  out << "time,marker,x,y" << (markers.dim() == 3 ? ",z" : "") << "\n" << std::setprecision(17);
  for (const auto& o : rec.observations) {
    out << rec.times[o.frame] << "," << markers[o.marker].name;
    for (int k = 0; k < o.position.size(); ++k) out << "," << o.position[k];
    out << "\n";
  }
  detail::write_file_atomically(file.string(), out.str());
}

SampleAt sample_at(double t, double t0, double dt, int steps) {
  const double s = (t - t0) / dt;
  const double eps = 1e-9;
  if (s < -eps || s > steps + eps) {
    std::ostringstream os;
    os << "time " << t << " s is outside the simulated interval [" << t0 << ", " << t0 + steps * dt
       << "] s";
    throw InputError(os.str());
  }
  SampleAt at;
  if (s <= eps) return at;  // the initial state itself
  at.state = std::min(steps, static_cast<int>(std::ceil(s - eps)));
  at.back = std::max(0.0, (at.state - s) * dt);
  return at;
}

}  // namespace softgrad
