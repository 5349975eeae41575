// IDX data: files written byte by byte in the tests (the format's definition, independent of
// write_idx), the write/read round trip of every element type, plain and gzip, bad files
// (named in the message), the dataset of an image/label pair with class selection, caps and
// each scaling, and Fashion-MNIST itself where Debian's dataset-fashion-mnist is installed.
#include "dpkit/sim/idx.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using Catch::Matchers::Contains;
using dpkit::sim::idx_array;
using dpkit::sim::idx_selection;
using dpkit::sim::idx_type;
using dpkit::sim::pixel_scaling;
namespace fs = std::filesystem;

namespace {

// A directory in the temporary directory, unique to this process and test, removed at the end.
struct temp_dir {
  fs::path path;
  explicit temp_dir(const std::string& name)
      : path(fs::temp_directory_path() /
             ("dpkit_idx_test_" + std::to_string(::getpid()) + "_" + name)) {
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

void write_bytes(const fs::path& p, const std::vector<unsigned>& bytes) {
  std::ofstream f(p, std::ios::binary);
  for (unsigned b : bytes) f.put(static_cast<char>(b));
}

std::vector<unsigned char> first_bytes(const fs::path& p, std::size_t n) {
  std::ifstream f(p, std::ios::binary);
  std::vector<unsigned char> out(n);
  f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n));
  out.resize(static_cast<std::size_t>(f.gcount()));
  return out;
}

// An unsigned-byte IDX array of the given shape and values.
idx_array u8_array(std::vector<std::size_t> shape, const std::vector<unsigned>& values) {
  idx_array a;
  a.type = idx_type::u8;
  a.shape = std::move(shape);
  for (unsigned v : values) a.bytes.push_back(static_cast<std::uint8_t>(v));
  return a;
}

}  // namespace

TEST_CASE("read_idx reads a file written byte by byte from the format's definition", "[idx]") {
  temp_dir dir("bytes");
  // u8, 2 dimensions 2×3: 1 2 3 / 4 5 255.
  write_bytes(dir.path / "a.idx", {0, 0, 0x08, 2, 0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 5, 255});
  const idx_array a = dpkit::sim::read_idx(dir.path / "a.idx");
  CHECK(a.type == idx_type::u8);
  REQUIRE(a.shape == std::vector<std::size_t>{2, 3});
  REQUIRE(a.size() == 6);
  const std::vector<double> want = {1, 2, 3, 4, 5, 255};
  for (std::size_t i = 0; i < 6; ++i) CHECK(a.at(i) == want[i]);

  // Signed types, big-endian: i8 −1; i16 0xFED4 = −300; i32 0x00010000 = 65536 and −2;
  // f32 0x3FC00000 = 1.5; f64 0xC002000000000000 = −2.25.
  write_bytes(dir.path / "i8.idx", {0, 0, 0x09, 1, 0, 0, 0, 1, 0xFF});
  CHECK(dpkit::sim::read_idx(dir.path / "i8.idx").at(0) == -1);
  write_bytes(dir.path / "i16.idx", {0, 0, 0x0B, 1, 0, 0, 0, 1, 0xFE, 0xD4});
  CHECK(dpkit::sim::read_idx(dir.path / "i16.idx").at(0) == -300);
  write_bytes(dir.path / "i32.idx",
              {0, 0, 0x0C, 1, 0, 0, 0, 2, 0, 1, 0, 0, 0xFF, 0xFF, 0xFF, 0xFE});
  const idx_array i32 = dpkit::sim::read_idx(dir.path / "i32.idx");
  CHECK(i32.at(0) == 65536);
  CHECK(i32.at(1) == -2);
  write_bytes(dir.path / "f32.idx", {0, 0, 0x0D, 1, 0, 0, 0, 1, 0x3F, 0xC0, 0, 0});
  CHECK(dpkit::sim::read_idx(dir.path / "f32.idx").at(0) == 1.5);
  write_bytes(dir.path / "f64.idx", {0, 0, 0x0E, 1, 0, 0, 0, 1, 0xC0, 0x02, 0, 0, 0, 0, 0, 0});
  CHECK(dpkit::sim::read_idx(dir.path / "f64.idx").at(0) == -2.25);
}

TEST_CASE("write_idx and read_idx round-trip every type, plain and gzip", "[idx]") {
  temp_dir dir("roundtrip");
  for (idx_type t :
       {idx_type::u8, idx_type::i8, idx_type::i16, idx_type::i32, idx_type::f32, idx_type::f64}) {
    idx_array a;
    a.type = t;
    a.shape = {3, 2, 5};
    a.bytes.resize(a.size() * dpkit::sim::idx_element_size(t));
    for (std::size_t i = 0; i < a.bytes.size(); ++i)
      a.bytes[i] = static_cast<std::uint8_t>((i * 37U + 11U) & 0xFFU);
    if (t == idx_type::f32 || t == idx_type::f64)  // keep the floating values finite: top byte 0x3F
      for (std::size_t i = 0; i < a.bytes.size(); i += dpkit::sim::idx_element_size(t))
        a.bytes[i] = 0x3F;
    for (bool gz : {false, true}) {
      const fs::path p = dir.path / ("t" + std::to_string(static_cast<int>(t)) + (gz ? ".gz" : ""));
      dpkit::sim::write_idx(a, p, gz);
      const std::vector<unsigned char> head = first_bytes(p, 4);
      REQUIRE(head.size() == 4);
      if (gz) {  // the gzip magic (RFC 1952 §2.3.1)
        CHECK(head[0] == 0x1F);
        CHECK(head[1] == 0x8B);
      } else {
        CHECK(head[0] == 0);
        CHECK(head[2] == static_cast<unsigned char>(t));
        CHECK(fs::file_size(p) == 4 + 3 * 4 + a.bytes.size());
      }
      const idx_array b = dpkit::sim::read_idx(p);
      CHECK(b.type == t);
      CHECK(b.shape == a.shape);
      CHECK(b.bytes == a.bytes);
    }
  }
  // The compressed file is recognised by content, whatever its name.
  const idx_array a = u8_array({2, 2}, {9, 8, 7, 6});
  dpkit::sim::write_idx(a, dir.path / "no_suffix", true);
  CHECK(dpkit::sim::read_idx(dir.path / "no_suffix").bytes == a.bytes);
}

TEST_CASE("read_idx names the file and the defect of a bad file", "[idx]") {
  temp_dir dir("bad");
  const fs::path p = dir.path / "bad.idx";
  CHECK_THROWS_WITH(dpkit::sim::read_idx(dir.path / "absent.idx"),
                    Contains("absent.idx") && Contains("no such file"));
  {
    std::ofstream f(p);
    f << "x0,x1,y\n1,2,3\n";
  }
  CHECK_THROWS_WITH(dpkit::sim::read_idx(p), Contains("bad.idx") && Contains("not an IDX file"));
  write_bytes(p, {0, 0, 0x07, 1, 0, 0, 0, 1, 0});  // unknown type code
  CHECK_THROWS_WITH(dpkit::sim::read_idx(p), Contains("not an IDX file"));
  write_bytes(p, {0, 0, 0x08, 0});  // no dimension
  CHECK_THROWS_WITH(dpkit::sim::read_idx(p), Contains("not an IDX file"));
  write_bytes(p, {0, 0, 0x08, 2, 0, 0, 0});  // header cut short
  CHECK_THROWS_WITH(dpkit::sim::read_idx(p), Contains("ends inside its header"));
  write_bytes(p, {0, 0, 0x08, 1, 0, 0, 0, 0});  // zero size
  CHECK_THROWS_WITH(dpkit::sim::read_idx(p), Contains("of size 0"));
  write_bytes(p, {0, 0, 0x08, 1, 0, 0, 0, 4, 1, 2, 3});  // 3 of 4 bytes
  CHECK_THROWS_WITH(dpkit::sim::read_idx(p), Contains("truncated") && Contains("holds 3"));
  write_bytes(p, {0, 0, 0x08, 1, 0, 0, 0, 2, 1, 2, 3});  // one byte too many
  CHECK_THROWS_WITH(dpkit::sim::read_idx(p), Contains("bytes after"));
  write_bytes(p, {0, 0, 0x0E, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF});
  CHECK_THROWS_WITH(dpkit::sim::read_idx(p), Contains("more than 2^40 bytes"));

  // A gzip file cut in the middle of its compressed data.
  idx_array big = u8_array({4000}, {});
  for (std::size_t i = 0; i < 4000; ++i) big.bytes.push_back(static_cast<std::uint8_t>(i * i));
  const fs::path gz = dir.path / "big.gz";
  dpkit::sim::write_idx(big, gz, true);
  fs::resize_file(gz, fs::file_size(gz) / 2);
  CHECK_THROWS_WITH(dpkit::sim::read_idx(gz), Contains("big.gz"));

  CHECK_THROWS_AS(dpkit::sim::write_idx(u8_array({2}, {1}), p), std::domain_error);
  CHECK_THROWS_AS(dpkit::sim::write_idx(u8_array({}, {}), p), std::domain_error);
  CHECK_THROWS_AS(dpkit::sim::write_idx(u8_array({0}, {}), p), std::domain_error);
}

TEST_CASE("read_idx_dataset selects classes and examples and scales as documented", "[idx]") {
  temp_dir dir("dataset");
  // Six 1×2 images (pixel values 10i, 10i + 5) with labels 3 1 3 7 1 3.
  std::vector<unsigned> pixels;
  for (unsigned i = 0; i < 6; ++i) {
    pixels.push_back(10 * i);
    pixels.push_back(10 * i + 5);
  }
  dpkit::sim::write_idx(u8_array({6, 1, 2}, pixels), dir.path / "images", true);
  dpkit::sim::write_idx(u8_array({6}, {3, 1, 3, 7, 1, 3}), dir.path / "labels", false);
  const fs::path im = dir.path / "images";
  const fs::path lb = dir.path / "labels";

  SECTION("every class, raw values, labels renumbered in sorted order") {
    idx_selection s;
    s.scaling = pixel_scaling::raw;
    const auto d = dpkit::sim::read_idx_dataset(im, lb, s);
    REQUIRE(d.size() == 6);
    REQUIRE(d.dimension() == 2);
    const std::vector<double> want = {1, 0, 1, 2, 0, 1};  // 1 → 0, 3 → 1, 7 → 2
    for (Eigen::Index i = 0; i < 6; ++i) {
      CHECK(d.labels(i) == want[static_cast<std::size_t>(i)]);
      CHECK(d.features(i, 0) == 10.0 * static_cast<double>(i));
      CHECK(d.features(i, 1) == 10.0 * static_cast<double>(i) + 5);
    }
  }
  SECTION("classes in the order given, per-class caps, unit scaling") {
    idx_selection s;
    s.classes = {7, 3};
    s.per_class = {5, 2};
    const auto d = dpkit::sim::read_idx_dataset(im, lb, s);
    REQUIRE(d.size() == 3);  // rows 0, 2 (class 3, capped at 2) and 3 (class 7)
    CHECK(d.labels(0) == 1);
    CHECK(d.labels(1) == 1);
    CHECK(d.labels(2) == 0);
    CHECK(d.features(1, 1) == 25.0 / 255.0);
    CHECK(d.features(2, 0) == 30.0 / 255.0);
  }
  SECTION("max_examples, symmetric scaling, bias") {
    idx_selection s;
    s.max_examples = 2;
    s.scaling = pixel_scaling::symmetric;
    s.bias = true;
    const auto d = dpkit::sim::read_idx_dataset(im, lb, s);
    REQUIRE(d.size() == 2);
    REQUIRE(d.dimension() == 3);
    CHECK(d.features(0, 0) == -1);
    CHECK(d.features(1, 1) == 15.0 / 127.5 - 1);
    CHECK(d.features(0, 2) == 1);
    CHECK(d.features(1, 2) == 1);
  }
  SECTION("standard scaling: every column of mean 0 and standard deviation 1") {
    idx_selection s;
    s.scaling = pixel_scaling::standard;
    const auto d = dpkit::sim::read_idx_dataset(im, lb, s);
    for (Eigen::Index j = 0; j < 2; ++j) {
      CHECK(std::fabs(d.features.col(j).mean()) < 1e-15);
      CHECK(std::sqrt(d.features.col(j).squaredNorm() / 6) == Approx(1).epsilon(1e-14));
    }
    // Pixel 10i standardised: (10i − 25)/√(100·35/12).
    CHECK(d.features(5, 0) == Approx(25 / std::sqrt(3500.0 / 12)).epsilon(1e-14));
  }
  SECTION("row norm clip scales only the rows above it, before the bias") {
    idx_selection s;
    s.scaling = pixel_scaling::raw;
    s.row_norm_clip = 20;
    s.bias = true;
    const auto d = dpkit::sim::read_idx_dataset(im, lb, s);
    CHECK(d.features(0, 1) == 5);  // ‖(0, 5)‖ = 5 ≤ 20: unchanged
    CHECK(d.features.row(3).head(2).norm() == Approx(20).epsilon(1e-15));
    CHECK(d.features(3, 0) / d.features(3, 1) == Approx(30.0 / 35.0).epsilon(1e-15));
    CHECK(d.features(3, 2) == 1);
  }
  SECTION("bad selections and mismatched files") {
    idx_selection s;
    s.classes = {3, 4};
    CHECK_THROWS_WITH(dpkit::sim::read_idx_dataset(im, lb, s), Contains("class 4"));
    s.classes = {3, 3};
    CHECK_THROWS_WITH(dpkit::sim::read_idx_dataset(im, lb, s), Contains("given twice"));
    s.classes = {3};
    s.per_class = {1, 2};
    CHECK_THROWS_WITH(dpkit::sim::read_idx_dataset(im, lb, s), Contains("per_class.size()"));
    s = {};
    s.row_norm_clip = 0;
    CHECK_THROWS_AS(dpkit::sim::read_idx_dataset(im, lb, s), std::domain_error);
    s = {};
    s.classes = {3};
    s.per_class = {0};
    CHECK_THROWS_WITH(dpkit::sim::read_idx_dataset(im, lb, s), Contains("empty"));
    dpkit::sim::write_idx(u8_array({5}, {1, 1, 1, 1, 1}), dir.path / "five", false);
    CHECK_THROWS_WITH(dpkit::sim::read_idx_dataset(im, dir.path / "five"),
                      Contains("number of images") && Contains("= 5"));
    CHECK_THROWS_WITH(dpkit::sim::read_idx_dataset(lb, lb), Contains("at least 2"));
    CHECK_THROWS_WITH(dpkit::sim::read_idx_dataset(im, im), Contains("1 (one label"));
    write_bytes(
        dir.path / "half",
        {0,    0,    0x0D, 1, 0,    0,    0, 6, 0x3F, 0xC0, 0, 0, 0x3F, 0xC0, 0, 0,
         0x3F, 0xC0, 0,    0, 0x3F, 0xC0, 0, 0, 0x3F, 0xC0, 0, 0, 0x3F, 0xC0, 0, 0});  // labels 1.5
    CHECK_THROWS_WITH(dpkit::sim::read_idx_dataset(im, dir.path / "half"), Contains("an integer"));
  }
}

TEST_CASE("fashion_mnist_files finds the four files and says how to get them", "[idx]") {
  temp_dir dir("fmnist");
  const idx_array one = u8_array({1}, {0});
  for (const char* name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte",
                           "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte.gz"})
    dpkit::sim::write_idx(one, dir.path / name, false);
  const auto train = dpkit::sim::fashion_mnist_files("train", dir.path);
  CHECK(train.images == dir.path / "train-images-idx3-ubyte.gz");
  CHECK(train.labels == dir.path / "train-labels-idx1-ubyte");
  const auto test = dpkit::sim::fashion_mnist_files("test", dir.path);
  CHECK(test.labels == dir.path / "t10k-labels-idx1-ubyte.gz");
  CHECK_THROWS_WITH(dpkit::sim::fashion_mnist_files("validation", dir.path),
                    Contains("train or test"));
  fs::remove(dir.path / "t10k-images-idx3-ubyte");
  CHECK_THROWS_WITH(dpkit::sim::fashion_mnist_files("test", dir.path),
                    Contains("t10k-images-idx3-ubyte.gz not found") &&
                        Contains("apt-get install dataset-fashion-mnist") &&
                        Contains("DPKIT_FASHION_MNIST_DIR"));
}

TEST_CASE("Fashion-MNIST's test split, where Debian's dataset-fashion-mnist is installed",
          "[idx]") {
  const fs::path dir = "/usr/share/datasets/fashion-mnist";
  if (!fs::exists(dir / "t10k-labels-idx1-ubyte.gz")) {
    WARN("dataset-fashion-mnist is not installed: the check on the real data is skipped");
    return;
  }
  const auto files = dpkit::sim::fashion_mnist_files("test", dir);
  idx_selection s;
  s.scaling = pixel_scaling::raw;
  const auto d = dpkit::sim::read_idx_dataset(files.images, files.labels, s);
  // The published description of the data (Xiao, Rasul & Vollgraf 2017, §3): 10 000 test images
  // of 28×28 grey levels in 10 classes of 1 000 each.
  REQUIRE(d.size() == 10000);
  REQUIRE(d.dimension() == 784);
  for (int k = 0; k < 10; ++k) CHECK((d.labels.array() == k).count() == 1000);
  CHECK(d.features.minCoeff() == 0);
  CHECK(d.features.maxCoeff() == 255);
}
