#include "dpkit/core/csv.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

using Catch::Matchers::Contains;

namespace {
std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("read_csv keeps provenance, header and full-precision values", "[core][csv]") {
  const auto path = write_temp("dpkit_csv_ok.csv",
                               "# what: test table\n# trusted digits: 30\nx,y\n"
                               "0.1,1.2345678901234567890123e-05\n-1e-400,inf\n\n3,nan\n");
  const dpkit::csv_table t = dpkit::read_csv(path);
  REQUIRE(t.columns == std::vector<std::string>{"x", "y"});
  REQUIRE(t.rows.size() == 3);
  CHECK(t.provenance("what") == "test table");
  CHECK(t.provenance("trusted digits") == "30");
  CHECK(t.provenance("missing").empty());
  CHECK(t.at(0, "x") == 0.1);
  CHECK(t.at(0, "y") == 1.2345678901234568e-05);  // correctly rounded
  CHECK(t.at(1, "x") == 0.0);                     // underflow is accepted
  CHECK(std::isinf(t.at(1, "y")));
  CHECK(std::isnan(t.at(2, "y")));
  CHECK(t.where(2) == path.string() + ":7");
  REQUIRE_THROWS_WITH(t.column("z"), Contains("no column named 'z'"));
}

TEST_CASE("read_csv reports the file and line of malformed rows", "[core][csv]") {
  const auto bad_cell = write_temp("dpkit_csv_bad.csv", "a,b\n1,2\n3,x4\n");
  REQUIRE_THROWS_WITH(dpkit::read_csv(bad_cell),
                      Contains("dpkit_csv_bad.csv:3: 'x4' is not a number"));
  const auto short_row = write_temp("dpkit_csv_short.csv", "a,b\n1\n");
  REQUIRE_THROWS_WITH(dpkit::read_csv(short_row), Contains(":2: 1 cells, but the header has 2"));
  REQUIRE_THROWS_AS(dpkit::read_csv("/nonexistent/dpkit.csv"), std::runtime_error);
}

TEST_CASE("parse_csv reads RFC 4180: quotes, doubled quotes, embedded commas and line breaks",
          "[core][csv]") {
  const std::string text =
      "\"name\",\"value\"\r\n"  // quoted header, CRLF (R's write.csv)
      "plain,1\n"
      "\"with, comma\",\"say \"\"hi\"\"\"\n"  // comma and doubled quotes
      "\"two\nlines\",3\n"                    // a line break inside quotes
      "# a comment, skipped\n"
      "\n"
      "empty,\n"
      "last,\"\"";  // no final line end, empty quoted field
  std::vector<std::string> comments;
  const auto records = dpkit::parse_csv(text, '#', &comments);
  REQUIRE(records.size() == 6);
  CHECK(records[0].cells == std::vector<std::string>{"name", "value"});
  CHECK(records[1].cells == std::vector<std::string>{"plain", "1"});
  CHECK(records[2].cells == std::vector<std::string>{"with, comma", "say \"hi\""});
  CHECK(records[3].cells == std::vector<std::string>{"two\nlines", "3"});
  CHECK(records[3].line == 4);
  CHECK(records[4].cells == std::vector<std::string>{"empty", ""});
  CHECK(records[4].line == 8);  // the record after the two-line field, comment and blank line
  CHECK(records[5].cells == std::vector<std::string>{"last", ""});
  REQUIRE(comments.size() == 1);
  CHECK(comments[0] == " a comment, skipped");
  REQUIRE_THROWS_WITH(dpkit::parse_csv("a,\"open\n"), Contains("1: unterminated quoted field"));
  REQUIRE_THROWS_WITH(dpkit::parse_csv("a,\"x\"y\n"), Contains("text after a closing quote"));
}

TEST_CASE("csv_quote and csv_row round-trip through parse_csv", "[core][csv]") {
  CHECK(dpkit::csv_quote("PLD/FFT, h = 0.00016") == "\"PLD/FFT, h = 0.00016\"");
  CHECK(dpkit::csv_quote("plain") == "plain");
  CHECK(dpkit::csv_quote("a\"b") == "\"a\"\"b\"");
  CHECK(dpkit::csv_quote(" padded") == "\" padded\"");
  const std::vector<std::string> cells = {"x", "with, comma", "q\"uote", "line\nbreak", "", "cr\r"};
  const auto back = dpkit::parse_csv(dpkit::csv_row(cells) + "\n");
  REQUIRE(back.size() == 1);
  CHECK(back[0].cells == cells);
}

TEST_CASE("read_csv accepts a quoted header and quoted numbers", "[core][csv]") {
  const auto path =
      write_temp("dpkit_csv_quoted.csv", "# from R\n\"x\",\"y\"\r\n\"1\",2.5\r\n3,\"4\"\r\n");
  const dpkit::csv_table t = dpkit::read_csv(path);
  REQUIRE(t.columns == std::vector<std::string>{"x", "y"});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.at(0, "x") == 1);
  CHECK(t.at(1, "y") == 4);
  CHECK(t.where(1) == path.string() + ":4");
}

TEST_CASE("csv_number is printf's %.17g, and every double reads back to its own bits",
          "[core][csv]") {
  std::mt19937_64 rng(20261125);
  char expected[40];
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t bits = rng();
    double x = 0;
    std::memcpy(&x, &bits, sizeof x);
    if (!std::isfinite(x)) continue;
    std::snprintf(expected, sizeof expected, "%.17g", x);
    const std::string text = dpkit::csv_number(x);
    REQUIRE(text == expected);
    const double back = std::strtod(text.c_str(), nullptr);
    REQUIRE(std::memcmp(&back, &x, sizeof x) == 0);
  }
  CHECK(dpkit::csv_number(0.5) == "0.5");
  CHECK(dpkit::csv_number(0.1) == "0.10000000000000001");
  CHECK(dpkit::csv_number(-0.0) == "-0");
  CHECK(dpkit::csv_number(5e-324) == "4.9406564584124654e-324");
  CHECK(dpkit::csv_number(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(dpkit::csv_number(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(dpkit::csv_number(std::nan("")) == "nan");
}

TEST_CASE("write_csv writes what read_csv reads, bit for bit", "[core][csv]") {
  const auto path = std::filesystem::temp_directory_path() / "dpkit_write_csv_test.csv";
  const std::vector<std::vector<double>> rows = {{1, 0.1, -2.5e-300}, {1e300, 5e-324, 3}};
  {
    std::ofstream out(path);
    dpkit::write_csv(out, {"a", "b,c", "d"}, rows, {"what: a test", "source: none"});
  }
  const dpkit::csv_table t = dpkit::read_csv(path);
  std::filesystem::remove(path);
  CHECK(t.comments == std::vector<std::string>{"what: a test", "source: none"});
  CHECK(t.columns == std::vector<std::string>{"a", "b,c", "d"});
  REQUIRE(t.rows.size() == 2);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j) CHECK(t.rows[i][j] == rows[i][j]);
  std::ostringstream sink;
  CHECK_THROWS_AS(dpkit::write_csv(sink, {"a"}, {{1, 2}}), std::domain_error);
  CHECK_THROWS_AS(dpkit::write_csv(sink, {"a"}, {{1}}, {"two\nlines"}), std::domain_error);
}
