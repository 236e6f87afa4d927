#include <doctest/doctest.h>

#include <string>

#include "io/io_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"

using namespace softgrad;

TEST_CASE("io/pvd_writer: the collection is valid after construction and after each frame") {
  test::TempDir dir;
  const std::string path = dir.file("run.pvd");
  PvdWriter pvd(path);
  const std::string empty = test::read_text(path);
  CHECK(empty.starts_with("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\""));
  CHECK(empty.find("<Collection>\n  </Collection>\n</VTKFile>\n") != std::string::npos);

  pvd.add_frame(0.0, "frames/frame_0000.vtu");
  pvd.add_frame(0.01, "frames/frame_0001.vtu");
  CHECK(pvd.frames().size() == 2);
  const std::string xml = test::read_text(path);
  CHECK(
      xml.find("<DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"frames/frame_0000.vtu\"/>") !=
      std::string::npos);
  CHECK(xml.find("<DataSet timestep=\"0.01\" group=\"\" part=\"0\" "
                 "file=\"frames/frame_0001.vtu\"/>") != std::string::npos);
  CHECK(xml.ends_with("  </Collection>\n</VTKFile>\n"));
  CHECK(dir.hidden_files() == 0);
}

TEST_CASE("io/pvd_writer: unwritable paths and bad names are input errors") {
  test::TempDir dir;
  const std::string bad = dir.file("no/such/run.pvd");
  CHECK(test::input_error_of([&] { PvdWriter pvd(bad); }).find("cannot write '" + bad + "'") !=
        std::string::npos);
  PvdWriter pvd(dir.file("run.pvd"));
  CHECK_THROWS_AS(pvd.add_frame(0.0, ""), InputError);
  CHECK_THROWS_AS(pvd.add_frame(0.0, "a\"b.vtu"), InputError);
  CHECK(pvd.frames().empty());
}
