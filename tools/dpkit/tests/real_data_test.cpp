// dpkit simulate and dpkit audit on real data: an IDX pair the test writes itself (gzip images,
// plain labels), the classifier observables (training error, test risk and test error), the
// privacy audit of one noisy step on it against the exact Gaussian shift, Fashion-MNIST where
// Debian's dataset-fashion-mnist is installed, and the usage errors of the real-data flags.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "dpkit/sim/idx.hpp"

using Catch::Matchers::Contains;
using dpkit::test::dpkit_run;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// 40 images of 1×2 pixels: class 3 (stored label 3) is (255, 0) or (230, 20), class 8 is (0, 255)
// or (20, 230), alternating 3, 8, 3, 8, … — separable through the origin by x = (−1, 1).
struct idx_files {
  fs::path dir, images, labels;
  idx_files() : dir(fs::temp_directory_path() / ("dpkit_real_data_" + std::to_string(getpid()))) {
    fs::create_directories(dir);
    images = dir / "images.gz";
    labels = dir / "labels.idx";
    dpkit::sim::idx_array x, y;
    x.shape = {40, 1, 2};
    y.shape = {40};
    for (int i = 0; i < 40; ++i) {
      const bool three = i % 2 == 0;
      const bool plain = (i / 2) % 2 == 0;
      const int hi = plain ? 255 : 230, lo = plain ? 0 : 20;
      x.bytes.push_back(static_cast<std::uint8_t>(three ? hi : lo));
      x.bytes.push_back(static_cast<std::uint8_t>(three ? lo : hi));
      y.bytes.push_back(three ? 3 : 8);
    }
    dpkit::sim::write_idx(x, images, true);
    dpkit::sim::write_idx(y, labels, false);
  }
  ~idx_files() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  idx_files(const idx_files&) = delete;
  idx_files& operator=(const idx_files&) = delete;
  std::string data() const {
    return "--data '" + images.string() + "' --idx-labels '" + labels.string() + "' ";
  }
};

// Debian's dataset-fashion-mnist, where the program looks for it by default.
bool fashion_mnist_installed() {
  if (fs::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) return true;
  WARN("dataset-fashion-mnist is not installed: the real-data run is skipped");
  return false;
}

// The row of observable `name` in a simulate JSON report.
json row_of(const json& doc, const std::string& name) {
  for (const json& r : doc.at("results"))
    if (r.at("observable") == name) return r;
  FAIL("no observable " << name);
  return {};
}

}  // namespace

TEST_CASE("dpkit simulate on an IDX pair: classes, the classifier observables, a test set",
          "[cli]") {
  const idx_files f;
  // Noiseless GD from 0 on separable data: the first step already points along (−1, 1)·y, so the
  // training error is exactly 0; the test set is the same data, so its risk and error equal the
  // training ones exactly (the model has no ridge either way).
  const auto r =
      dpkit_run("simulate " + f.data() +
                "--model logistic --keep-classes 3,8 --algorithm gd --steps 20 "
                "--learning-rate 1 --replicates 2 --test-data '" +
                f.images.string() + "' --test-labels '" + f.labels.string() + "' --format json");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  CHECK(row_of(doc, "error").at("mean") == 0.0);
  CHECK(row_of(doc, "test-error").at("mean") == 0.0);
  CHECK(row_of(doc, "test-risk").at("mean").get<double>() ==
        row_of(doc, "risk").at("mean").get<double>());
  CHECK_THAT(doc.at("context").at("parameters").at("data").get<std::string>(),
             Contains("n = 40, d = 2, 2 classes, pixels unit"));

  // The classes swapped (8 first → label −1): the same run mirrored, the same risk.
  const auto s = dpkit_run("simulate " + f.data() +
                           "--model logistic --keep-classes 8,3 --algorithm gd --steps 20 "
                           "--learning-rate 1 --replicates 2 --format json");
  REQUIRE(s.exit_code == 0);
  CHECK(row_of(json::parse(s.out), "risk").at("mean").get<double>() ==
        Approx(row_of(doc, "risk").at("mean").get<double>()).epsilon(1e-14));

  // A long-tailed subset: 10 of class 3, 2 of class 8 (n = 12), and softmax on 2 classes.
  const auto t = dpkit_run("simulate " + f.data() +
                           "--model softmax --keep-classes 3,8 --class-sizes 10,2 --steps 3 "
                           "--replicates 2 --format json");
  REQUIRE(t.exit_code == 0);
  const json p = json::parse(t.out).at("context").at("parameters");
  CHECK_THAT(p.at("data").get<std::string>(), Contains("n = 12, d = 2, 2 classes"));
  CHECK_THAT(p.at("model").get<std::string>(), Contains("K = 2"));
}

TEST_CASE("dpkit simulate --tail-classes: the tail's error rates split the overall ones", "[cli]") {
  const idx_files f;
  // 10 images of class 3 and 2 of class 8 (test set: all 40, 20 of each), noisy SGD so that the
  // errors are far from 0 and 1. The same seed gives the same iterates whichever classes form
  // the tail, so the training error is exactly (10 e_3 + 2 e_8)/12 and the test error
  // (20 t_3 + 20 t_8)/40 in every replicate, hence in the means.
  const std::string run = "simulate " + f.data() +
                          "--model softmax --keep-classes 3,8 --class-sizes 10,2 --algorithm sgd "
                          "--batch-size 4 --steps 5 --learning-rate 1 --noise-std 3 "
                          "--replicates 50 --test-data '" +
                          f.images.string() + "' --test-labels '" + f.labels.string() +
                          "' --format json --tail-classes ";
  const auto a = dpkit_run(run + "3"), b = dpkit_run(run + "8");
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  const json da = json::parse(a.out), db = json::parse(b.out);
  const auto mean = [](const json& doc, const char* name) {
    return row_of(doc, name).at("mean").get<double>();
  };
  CHECK(mean(da, "error") == mean(db, "error"));
  const double e3 = mean(da, "tail-error"), e8 = mean(db, "tail-error");
  CHECK(mean(da, "error") > 0.1);
  CHECK(mean(da, "error") == Approx((10 * e3 + 2 * e8) / 12).epsilon(1e-12));
  const double t3 = mean(da, "tail-test-error"), t8 = mean(db, "tail-test-error");
  CHECK(mean(da, "test-error") == Approx((t3 + t8) / 2).epsilon(1e-12));
  // Misuse: a class not kept, a model that is not a classifier, and audit (no test set there).
  const auto not_kept = dpkit_run("simulate " + f.data() +
                                  "--model softmax --keep-classes 3,8 --tail-classes 5 --steps 1 "
                                  "--replicates 2");
  CHECK(not_kept.exit_code == 2);
  CHECK_THAT(not_kept.err, Contains("--tail-classes"));
  const auto regression = dpkit_run("simulate " + f.data() +
                                    "--model least-squares --tail-classes 3 --steps 1 "
                                    "--replicates 2");
  CHECK(regression.exit_code == 2);
  CHECK_THAT(regression.err, Contains("--tail-classes needs a classifier"));
  const auto audit = dpkit_run("audit " + f.data() +
                               "--model softmax --keep-classes 3,8 --tail-classes 8 --mu 1 "
                               "--neighbour replace-one --replicates 100");
  CHECK(audit.exit_code == 2);
  CHECK_THAT(audit.err, Contains("--tail-classes"));
  const auto generated = dpkit_run("simulate --model softmax --tail-classes 1 --steps 1");
  CHECK(generated.exit_code == 2);
  CHECK_THAT(generated.err, Contains("--tail-classes applies to IDX data"));
}

TEST_CASE("dpkit audit on an IDX pair: one noisy step is exactly mu-GDP with mu = |a_0|/(n sigma)",
          "[cli]") {
  const idx_files f;
  // One step of noisy GD from 0 on logistic regression: ∇f_i(0) = −y_i a_i/2, and replace-one
  // flips y_0, so the mean gradients differ by y_0 a_0/n with a_0 = (1, 0) (pixels unit). X_1 has
  // the laws N(−η ḡ, η²σ² I) and its shift by η/n along e_1: exactly μ-GDP in coordinate 0 with
  // μ = 1/(nσ) = 2 for n = 40, σ = 0.0125.
  const std::string setting = "audit " + f.data() +
                              "--model logistic --keep-classes 3,8 --algorithm gd --steps 1 "
                              "--learning-rate 1 --noise-std 0.0125 --neighbour replace-one "
                              "--index 0 --replicates 20000 ";
  const auto tight = dpkit_run(setting + "--mu 2 --format json");
  CHECK(tight.exit_code == 0);  // holds or inconclusive, with probability ≥ 0.95 for any seed
  const auto halved = dpkit_run(setting + "--mu 1 --format json");
  CHECK(halved.exit_code == 3);
  CHECK_THAT(halved.out, Contains("violated"));
}

TEST_CASE("dpkit simulate --data fashion-mnist trains softmax regression on the real images",
          "[cli]") {
  if (!fashion_mnist_installed()) return;
  // 2000 training images, 30 cyclic batches of 500: far from converged, but a scrambled
  // reading (labels misaligned with their images) would stay near the chance error 0.9.
  const auto r = dpkit_run(
      "simulate --data fashion-mnist --model softmax --algorithm cgd --batch-size 500 --steps 30 "
      "--learning-rate 0.5 --noise-std 0.01 --clip 5 --dataset-size 2000 --test-size 1000 "
      "--replicates 2 --format json");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  CHECK(row_of(doc, "test-error").at("mean").get<double>() < 0.5);
  const json p = doc.at("context").at("parameters");
  CHECK_THAT(p.at("data").get<std::string>(), Contains("n = 2000, d = 784, 10 classes"));
  CHECK_THAT(p.at("test_data").get<std::string>(), Contains("n = 1000, d = 784, 10 classes"));
}

TEST_CASE("dpkit simulate --algorithm mlp-dp-sgd on Fashion-MNIST (SWX+23 Algorithm 10)", "[cli]") {
  // Without the dataset only the usage errors are checked.
  auto bad = dpkit_run("simulate --algorithm mlp-dp-sgd --keep-classes 0,1");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Contains("--keep-classes goes with --data fashion-mnist"));
  bad = dpkit_run("simulate --algorithm phased-sgd --data fashion-mnist");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Contains("--data does not apply to --algorithm phased-sgd"));
  if (!fashion_mnist_installed()) return;
  bad = dpkit_run("simulate --algorithm mlp-dp-sgd --data fashion-mnist --keep-classes 0,1,2");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Contains("give two classes"));
  // T-shirts against trousers, 1000 training images, at a certified epsilon = 4: the averaged
  // iterate separates them far better than chance (0.5); a reading that scrambled images and
  // labels could not.
  const auto r = dpkit_run(
      "simulate --algorithm mlp-dp-sgd --data fashion-mnist --keep-classes 0,1 --dataset-size "
      "1000 --test-examples 500 --width 16 --steps 300 --sampling-rate 0.1 --clip 1 --epsilon 4 "
      "--calibration tight --constraint none --learning-rate 0.2 --replicates 4 --format json");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  CHECK(row_of(doc, "test_error").at("mean").get<double>() < 0.2);
  const json p = doc.at("context").at("parameters");
  CHECK(p.at("examples") == 1000);
  CHECK(p.at("dimension") == 784);
  CHECK_THAT(p.at("data").get<std::string>(), Contains("classes 0 (-1) and 1 (+1)"));
}

TEST_CASE("dpkit simulate: the real-data flags' usage errors", "[cli]") {
  const idx_files f;
  struct bad {
    std::string args, message;
  };
  for (const bad& b : std::vector<bad>{
           {"--data '" + f.images.string() + "'", "give its labels with --idx-labels"},
           {f.data() + "--model logistic --keep-classes 8", "--model logistic needs two classes"},
           {f.data() + "--keep-classes 3,5", "class 5"},
           {f.data() + "--keep-classes 3,8 --class-sizes 4", "--class-sizes has 1 entry"},
           {"--pixels raw", "--pixels applies to IDX data"},
           {"--bias", "--bias applies to IDX data"},
           {"--test-labels '" + f.labels.string() + "'", "--test-labels goes with --test-data"},
           {f.data() + "--pixels standard --test-data '" + f.images.string() + "' --test-labels '" +
                f.labels.string() + "'",
            "--pixels standard standardises each dataset"},
           {f.data() + "--test-data '" + f.images.string() + "'",
            "give its labels with --test-labels"},
       }) {
    CAPTURE(b.args);
    const auto r = dpkit_run("simulate " + b.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains(b.message));
  }
  // No Fashion-MNIST where it is looked for: how to install it.
  ::setenv("DPKIT_FASHION_MNIST_DIR", f.dir.c_str(), 1);
  const auto r = dpkit_run("simulate --data fashion-mnist");
  ::unsetenv("DPKIT_FASHION_MNIST_DIR");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("apt-get install dataset-fashion-mnist"));
}
