// Datasets: validation, the CSV round trip (bit-exact, checked on the bit patterns, so −0.0 and
// subnormals count), reading files written by hand (label column anywhere, comments), the
// replace-one neighbour, and bad input → std::domain_error with the message of
// docs/architecture.md.
#include "dpkit/sim/dataset.hpp"

#include <unistd.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpkit/core/random.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using dpkit::sim::dataset;

namespace {

using dpkit::test::kNan;
using dpkit::test::kInf;

// A file in the temporary directory, unique to this process, removed when the test ends.
struct temp_file {
  std::filesystem::path path;
  explicit temp_file(const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             ("dpkit_dataset_test_" + std::to_string(::getpid()) + "_" + name)) {}
  ~temp_file() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
  void write(const std::string& text) const { std::ofstream(path) << text; }
  std::string read() const {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

bool same_bits(const dataset& a, const dataset& b) {
  if (a.features.rows() != b.features.rows() || a.features.cols() != b.features.cols() ||
      a.labels.size() != b.labels.size())
    return false;
  for (Eigen::Index i = 0; i < a.features.rows(); ++i) {
    if (!same_bits(a.labels(i), b.labels(i))) return false;
    for (Eigen::Index j = 0; j < a.features.cols(); ++j)
      if (!same_bits(a.features(i, j), b.features(i, j))) return false;
  }
  return true;
}

dataset small_dataset() {
  dataset data{Eigen::MatrixXd(3, 2), Eigen::VectorXd(3)};
  data.features << 1, 2, 3, 4, 5, 6;
  data.labels << 0.5, -1, 2;
  return data;
}

}  // namespace

TEST_CASE("dataset: size and dimension and check_dataset", "[dataset]") {
  const dataset data = small_dataset();
  CHECK(data.size() == 3);
  CHECK(data.dimension() == 2);
  CHECK_NOTHROW(dpkit::sim::check_dataset("test", data));

  dataset bad = data;
  bad.labels(1) = kNan;
  CHECK_THROWS_WITH(dpkit::sim::check_dataset("test", bad),
                    "test: label 1 is nan, but must be finite");
  bad = data;
  bad.features(2, 1) = -kInf;
  CHECK_THROWS_WITH(dpkit::sim::check_dataset("test", bad),
                    "test: feature (row 2, column 1) is -inf, but must be finite");
  bad = data;
  bad.labels.resize(2);
  CHECK_THROWS_WITH(dpkit::sim::check_dataset("test", bad),
                    "test: labels.size() is 2, but must be features.rows() = 3");
  CHECK_THROWS_AS(dpkit::sim::check_dataset("test", dataset{}), std::domain_error);
  bad = data;
  bad.features.resize(3, 0);
  CHECK_THROWS_WITH(dpkit::sim::check_dataset("test", bad), Contains("must be >= 1"));
}

TEST_CASE("dataset: CSV round trip is bit-exact", "[dataset]") {
  // Values chosen to break a writer with fewer than 17 digits or a lossy reader: 1/3 and 0.1
  // (not representable), the extremes of the range, a subnormal, the smallest subnormal, −0.
  dataset data{Eigen::MatrixXd(4, 3), Eigen::VectorXd(4)};
  data.features << 1.0 / 3, 0.1, -0.0,  //
      std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min(), -1e-310,
      std::numeric_limits<double>::min(), -2.0 / 3, 123456789.123456789,  //
      std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0), -std::numeric_limits<double>::max();
  data.labels << std::acos(-1.0), -1e300, 0.0, 7;
  // …and a block of random doubles.
  dpkit::random_stream stream(17, 0, 0);
  dataset random{Eigen::MatrixXd(50, 4), Eigen::VectorXd(50)};
  for (Eigen::Index i = 0; i < 50; ++i) {
    for (Eigen::Index j = 0; j < 4; ++j)
      random.features(i, j) = stream.normal() * std::exp(30 * stream.normal());
    random.labels(i) = stream.normal();
  }

  for (const dataset* d : {&data, &random}) {
    temp_file file("roundtrip.csv");
    const std::vector<std::string> comments = {"what: round-trip test", "source: dataset_test"};
    dpkit::sim::write_dataset_csv(*d, file.path, comments);
    const dataset back = dpkit::sim::read_dataset_csv(file.path);
    CHECK(same_bits(*d, back));
    const std::string text = file.read();
    CHECK(text.rfind("# what: round-trip test\n# source: dataset_test\nx0,x1,", 0) == 0);
  }

  temp_file file("header.csv");
  dpkit::sim::write_dataset_csv(small_dataset(), file.path);
  CHECK(file.read() == "x0,x1,y\n1,2,0.5\n3,4,-1\n5,6,2\n");
}

TEST_CASE("dataset: read_dataset_csv takes the label column anywhere", "[dataset]") {
  temp_file file("by_hand.csv");
  file.write("# what: hand-written\nu, y ,v\n1,2,3\n\n4,5,6\n");
  const dataset data = dpkit::sim::read_dataset_csv(file.path);
  REQUIRE(data.size() == 2);
  REQUIRE(data.dimension() == 2);
  CHECK(data.features(0, 0) == 1);  // u, v in file order
  CHECK(data.features(0, 1) == 3);
  CHECK(data.features(1, 0) == 4);
  CHECK(data.features(1, 1) == 6);
  CHECK(data.labels(0) == 2);
  CHECK(data.labels(1) == 5);

  const dataset by_v = dpkit::sim::read_dataset_csv(file.path, "v");
  CHECK(by_v.labels(1) == 6);
  CHECK(by_v.features(1, 0) == 4);  // u
  CHECK(by_v.features(1, 1) == 5);  // y is now a feature
}

TEST_CASE("dataset: read_dataset_csv rejects bad files", "[dataset]") {
  temp_file file("bad.csv");
  file.write("a,b\n1,2\n");
  CHECK_THROWS_WITH(dpkit::sim::read_dataset_csv(file.path),
                    Contains("read_dataset_csv: label_column is y, but must be a column of"));
  file.write("y,a,y\n1,2,3\n");
  CHECK_THROWS_WITH(dpkit::sim::read_dataset_csv(file.path),
                    Contains("but must be a column that appears once"));
  file.write("y\n1\n");
  CHECK_THROWS_WITH(dpkit::sim::read_dataset_csv(file.path),
                    Contains("the number of feature columns"));
  file.write("# only a header\nx0,y\n");
  CHECK_THROWS_WITH(dpkit::sim::read_dataset_csv(file.path), Contains("the number of data rows"));
  file.write("x0,y\n1,2\nnan,3\n");
  CHECK_THROWS_WITH(dpkit::sim::read_dataset_csv(file.path),
                    Contains(":3 is nan, but must be finite"));
  file.write("x0,y\n1,inf\n");
  CHECK_THROWS_WITH(dpkit::sim::read_dataset_csv(file.path),
                    Contains("column 'y'") && Contains("is inf, but must be finite"));
  // Parse and I/O errors come from core's read_csv as std::runtime_error.
  file.write("x0,y\n1,two\n");
  CHECK_THROWS_AS(dpkit::sim::read_dataset_csv(file.path), std::runtime_error);
  CHECK_THROWS_AS(dpkit::sim::read_dataset_csv(file.path.string() + ".absent"), std::runtime_error);
}

TEST_CASE("dataset: write_dataset_csv rejects bad input", "[dataset]") {
  temp_file file("write_bad.csv");
  const std::vector<std::string> two_lines = {"line\nbreak"};
  CHECK_THROWS_WITH(
      dpkit::sim::write_dataset_csv(small_dataset(), file.path, two_lines),
      Contains("write_dataset_csv: comment is line") && Contains("but must be a single line"));
  dataset bad = small_dataset();
  bad.features(0, 0) = kNan;
  CHECK_THROWS_AS(dpkit::sim::write_dataset_csv(bad, file.path), std::domain_error);
  CHECK_THROWS_AS(dpkit::sim::write_dataset_csv(small_dataset(), "/nonexistent-dir/x.csv"),
                  std::runtime_error);
}

TEST_CASE("dataset: replace_one gives the replace-one neighbour", "[dataset]") {
  const dataset data = small_dataset();
  const Eigen::Vector2d z(-7.5, 0.25);
  const dataset neighbour = dpkit::sim::replace_one(data, 1, z, 9);
  REQUIRE(neighbour.size() == data.size());
  REQUIRE(neighbour.dimension() == data.dimension());
  CHECK(neighbour.features.row(1) == z.transpose());
  CHECK(neighbour.labels(1) == 9);
  for (Eigen::Index i : {0, 2}) {
    CHECK(neighbour.features.row(i) == data.features.row(i));
    CHECK(neighbour.labels(i) == data.labels(i));
  }
  // The original is untouched, and D and D′ differ in exactly one example.
  CHECK(same_bits(data, small_dataset()));
  int differing = 0;
  for (Eigen::Index i = 0; i < 3; ++i)
    differing += (neighbour.features.row(i) != data.features.row(i) ||
                  neighbour.labels(i) != data.labels(i));
  CHECK(differing == 1);
  // A row of a matrix (non-contiguous) is accepted as the new features.
  const Eigen::Matrix2d m{{1, 2}, {3, 4}};
  CHECK(dpkit::sim::replace_one(data, 0, m.row(1).transpose(), 0).features.row(0) == m.row(1));
}

TEST_CASE("dataset: replace_one rejects bad input", "[dataset]") {
  const dataset data = small_dataset();
  const Eigen::Vector2d z(1, 1);
  CHECK_THROWS_WITH(dpkit::sim::replace_one(data, 3, z, 0),
                    "replace_one: index is 3, but must be < n = 3");
  CHECK_THROWS_WITH(dpkit::sim::replace_one(data, 0, Eigen::Vector3d(1, 2, 3), 0),
                    "replace_one: features.size() is 3, but must be d = 2");
  CHECK_THROWS_WITH(dpkit::sim::replace_one(data, 0, Eigen::Vector2d(1, kNan), 0),
                    "replace_one: features(1) is nan, but must be finite");
  CHECK_THROWS_WITH(dpkit::sim::replace_one(data, 0, z, kInf),
                    "replace_one: label is inf, but must be finite");
  dataset bad = data;
  bad.labels(0) = kNan;
  CHECK_THROWS_AS(dpkit::sim::replace_one(bad, 0, z, 0), std::domain_error);
}
