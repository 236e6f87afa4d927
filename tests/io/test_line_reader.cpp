#include <doctest/doctest.h>

#include <string>

#include "../../src/io/line_reader.hpp"
#include "io/io_test_support.hpp"
#include "softgrad/errors.hpp"

using softgrad::InputError;
using softgrad::detail::LineReader;

TEST_CASE("io/line_reader: skips comments and blank lines, handles CRLF, counts lines") {
  softgrad::test::TempDir dir;
  const std::string path = dir.file("a.txt");
  softgrad::test::write_text(path, "# header comment\r\n\r\n  1 +2.5 -3e2 # trailing\r\n   \n4\n");
  LineReader in(path, '#');
  REQUIRE(in.next_line());
  CHECK(in.line_number() == 3);
  CHECK(in.count_tokens() == 3);
  CHECK(in.read_int("a") == 1);
  CHECK(in.read_double("b") == 2.5);
  CHECK(in.read_double("c") == -300.0);
  CHECK_FALSE(in.has_token());
  REQUIRE(in.next_line());
  CHECK(in.line_number() == 5);
  CHECK(in.line() == "4");
  CHECK_FALSE(in.next_line());
}

TEST_CASE("io/line_reader: errors name the file and line") {
  softgrad::test::TempDir dir;
  const std::string path = dir.file("b.txt");
  softgrad::test::write_text(path, "1 2.5 x7\n9 9 9\n");
  LineReader in(path, '\0');
  REQUIRE(in.next_line());
  CHECK_THROWS_WITH_AS(in.read_int_in("count", 5, 10),
                       (path + ":1: count 1 is out of range [5, 10]").c_str(), InputError);
  CHECK_THROWS_WITH_AS(in.read_int("an index"),
                       (path + ":1: expected an index (an integer), got '2.5'").c_str(),
                       InputError);
  CHECK_THROWS_WITH_AS(in.read_double("x"), (path + ":1: expected x (a number), got 'x7'").c_str(),
                       InputError);
  CHECK_THROWS_WITH_AS(in.token("y"), (path + ":1: expected y, got end of line").c_str(),
                       InputError);
  REQUIRE(in.next_line());
  CHECK_THROWS_WITH_AS(in.expect_end("nothing"),
                       (path + ":2: unexpected extra value '9' after nothing").c_str(), InputError);
  REQUIRE(in.next_line() == false);
  CHECK_THROWS_WITH_AS(in.require_line("more"),
                       (path + ":2: unexpected end of file, expected more").c_str(), InputError);
  CHECK_THROWS_WITH_AS(
      LineReader(dir.file("none.txt"), '#'),
      (dir.file("none.txt") + ": cannot open file (does it exist and is it readable?)").c_str(),
      InputError);
}
