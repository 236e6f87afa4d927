// Markers embedded in elements, recordings in CSV, and sampling between steps.
#include <doctest/doctest.h>

#include <filesystem>

#include "io/io_test_support.hpp"
#include "softgrad/errors.hpp"
#include "support/finite_difference.hpp"
#include "sysid/sysid_problem.hpp"

namespace softgrad::test {

TEST_CASE("markers: an embedded marker follows its element affinely") {
  SysIdProblem p = pushed_cantilever(5e4, 0.5);
  const Model& m = *p.model;
  for (int i = 0; i < p.markers.size(); ++i) {
    const Marker& mk = p.markers[i];
    double sum = 0.0;
    for (int a = 0; a < mk.n; ++a) {
      CHECK(mk.weights[a] >= -1e-12);
      sum += mk.weights[a];
    }
    CHECK(sum == doctest::Approx(1.0));
    CHECK(close(p.markers.position(i, m.X), mk.rest, 1e-14));
    // Under x = A X + b every point maps the same way, markers included.
    Eigen::Matrix2d A;
    A << 1.1, 0.2, -0.3, 0.9;
    const Eigen::Vector2d b(0.4, -0.2);
    Eigen::VectorXd x(m.n_dofs());
    for (int v = 0; v < m.n_verts; ++v) x.segment(2 * v, 2) = A * m.X.segment(2 * v, 2) + b;
    CHECK(close(p.markers.position(i, x), Eigen::Vector2d(A * mk.rest + b), 1e-13));
  }
  CHECK_THROWS_WITH_AS(MarkerSet(m, {{"out", Eigen::Vector2d(0.5, 0.05)}}),
                       doctest::Contains("outside the mesh"), InputError);
  CHECK_THROWS_WITH_AS(
      MarkerSet(m, {{"a", Eigen::Vector2d(0.1, 0.05)}, {"a", Eigen::Vector2d(0.2, 0.05)}}),
      doctest::Contains("defined twice"), InputError);
  const MarkerSet verts = MarkerSet::vertices(m, {3});
  CHECK(verts[0].name == "v3");
  CHECK(close(verts.position(0, m.X), m.X.segment(6, 2), 0.0));
}

TEST_CASE("markers: sampling between steps is the backward-Euler path") {
  SysIdProblem p = pushed_cantilever(5e4, 0.5, 10);
  const Trajectory traj = simulate(*p.sim, p.rollout);
  const double dt = p.sim->options().dt;
  const double t = 0.043;  // between steps 4 and 5
  const SampleAt at = sample_at(t, 0.0, dt, 10);
  CHECK(at.state == 5);
  CHECK(at.back == doctest::Approx(0.007));
  const State& s = traj.state(5);
  const Eigen::VectorXd sampled = s.x - at.back * s.v;
  const Eigen::VectorXd linear = traj.state(4).x + 0.3 * (traj.state(5).x - traj.state(4).x);
  CHECK(close(sampled, linear, 1e-12));
  CHECK(sample_at(0.0, 0.0, dt, 10).state == 0);
  CHECK(sample_at(0.05, 0.0, dt, 10).state == 5);
  CHECK(sample_at(0.05, 0.0, dt, 10).back == doctest::Approx(0.0).epsilon(1e-12));
  CHECK_THROWS_WITH_AS(sample_at(0.2, 0.0, dt, 10), doctest::Contains("outside"), InputError);
}

TEST_CASE("recordings: CSV round trip, with missing frames and markers") {
  SysIdProblem p = pushed_cantilever(5e4, 0.5, 10);
  Recording rec = record(p, 0.03);
  rec.observations.erase(rec.observations.begin() + 1);  // a frame without "mid"
  const TempDir dir;
  const std::filesystem::path path = dir.file("roundtrip.csv");
  write_recording(path, rec, p.markers);
  const Recording back = read_recording(path, p.markers);
  REQUIRE(back.observations.size() == rec.observations.size());
  CHECK(back.times == rec.times);
  for (size_t i = 0; i < rec.observations.size(); ++i) {
    CHECK(back.observations[i].frame == rec.observations[i].frame);
    CHECK(back.observations[i].marker == rec.observations[i].marker);
    CHECK(back.observations[i].position == rec.observations[i].position);
  }
}

TEST_CASE("recordings: bad lines are named") {
  SysIdProblem p = pushed_cantilever(5e4, 0.5, 10);
  const TempDir dir;
  const auto check = [&](const std::string& name, const std::string& text, const char* what) {
    INFO(name);
    write_text(dir.file(name), text);
    CHECK_THROWS_WITH_AS(read_recording(dir.file(name), p.markers), doctest::Contains(what),
                         InputError);
  };
  check("unknown.csv", "time,marker,x,y\n0,tip,0.3,0.05\n0,nose,0,0\n",
        ":3: unknown marker 'nose'");
  check("order.csv", "0.1,tip,0.3,0.05\n0.05,tip,0.3,0.05\n", ":2: time 0.05 is before");
  check("nan.csv", "0,tip,nan,0.05\n", ":1: coordinate 0 'nan'");
  check("columns.csv", "0,tip,0.3\n", ":1: expected 4 comma-separated fields");
  check("twice.csv", "0,tip,0.3,0.05\n0,tip,0.3,0.05\n", ":2: marker 'tip' appears twice");
  check("empty.csv", "# nothing\n", "empty");
  check("far.csv", "0,tip,1e200,0.05\n", ":1: coordinate 0 '1e200' is more than 1e9 m");
  std::filesystem::create_directories(dir.file("a_folder"));
  CHECK_THROWS_WITH_AS(read_recording(dir.file("a_folder"), p.markers),
                       doctest::Contains("is a folder, not a recording"), InputError);
  CHECK_THROWS_WITH_AS(read_recording("/nonexistent/rec.csv", p.markers),
                       doctest::Contains("cannot open"), InputError);
}

TEST_CASE("recordings: CR line ends, a byte-order mark and a missing last line end") {
  SysIdProblem p = pushed_cantilever(5e4, 0.5, 10);
  const TempDir dir;
  const std::string lf = "time,marker,x,y\n0,tip,0.3,0.05\n0.01,tip,0.31,0.04\n";
  const Recording expected =
      (write_text(dir.file("lf.csv"), lf), read_recording(dir.file("lf.csv"), p.markers));
  REQUIRE(expected.observations.size() == 2);
  for (const std::string& variant :
       {std::string("time,marker,x,y\r0,tip,0.3,0.05\r0.01,tip,0.31,0.04\r"),
        std::string("time,marker,x,y\r\n0,tip,0.3,0.05\r\n0.01,tip,0.31,0.04\r\n"),
        "\xEF\xBB\xBF" + lf}) {
    write_text(dir.file("variant.csv"), variant);
    const Recording r = read_recording(dir.file("variant.csv"), p.markers);
    CHECK(r.times == expected.times);
    REQUIRE(r.observations.size() == 2);
    CHECK(r.observations[1].position == expected.observations[1].position);
  }
  LogCapture log;
  write_text(dir.file("cut.csv"), "0,tip,0.3,0.05\n0.01,tip,0.31,0.0");
  CHECK(read_recording(dir.file("cut.csv"), p.markers).observations.size() == 2);
  REQUIRE(log.messages.size() == 1);
  CHECK(log.messages[0] == dir.file("cut.csv") +
                               ":2: the last line has no line end; if the file was cut short, its "
                               "last value may be cut too");
}

}  // namespace softgrad::test
