#include "dpkit/core/csv.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
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
