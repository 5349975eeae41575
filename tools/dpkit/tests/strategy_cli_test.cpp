// dpkit epsilon / delta / calibrate --strategy: matrix-factorization mechanisms from the command
// line. Known answers: the identity strategy is DP-SGD (the same program's plain answer); a
// b-banded Toeplitz strategy with b | T is ⌈T/b⌉ steps of DP-SGD at σ/‖c‖ (CGM+23 Thm 4); the
// full-batch square root is one Gaussian mechanism with Δ = ‖C·1‖ (closed form below).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"
#include "dpkit/divergence/gdp.hpp"

using Catch::Matchers::Contains;
using dpkit::test::dpkit_run;
using json = nlohmann::json;

namespace {

json first_row(const std::string& args) {
  const auto r = dpkit_run(args + " --format json");
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out).at("results").at(0);
}

}  // namespace

TEST_CASE("epsilon --strategy identity is DP-SGD", "[cli][strategy]") {
  const std::string run = " -s 1.1 -p 0.01 -i 1000 -d 1e-5";
  const json plain = first_row("epsilon" + run);
  const json mm = first_row("epsilon --strategy identity" + run);
  CHECK(mm.at("route") == "amplified");
  CHECK(mm.at("epsilon").get<double>() == plain.at("epsilon").get<double>());
  CHECK(mm.at("epsilon_lower").get<double>() == plain.at("epsilon_lower").get<double>());
}

TEST_CASE("epsilon --strategy toeplitz with --min-separation is ceil(T/b) rounds of DP-SGD",
          "[cli][strategy]") {
  const double norm = std::sqrt(1 + 0.25 + 0.0625);
  const json mm = first_row(
      "epsilon --strategy toeplitz:1,0.5,0.25 --min-separation 3 -p 0.01 -i 999 -s 2 -d 1e-5");
  char sigma[64];
  std::snprintf(sigma, sizeof sigma, "%.17g", 2 / norm);
  const json ref = first_row(std::string("epsilon -s ") + sigma + " -p 0.01 -i 333 -d 1e-5");
  CHECK(mm.at("rounds") == 333);
  CHECK(mm.at("sensitivity").get<double>() == Approx(norm).epsilon(1e-14));
  CHECK(mm.at("epsilon").get<double>() == Approx(ref.at("epsilon").get<double>()).epsilon(1e-9));
  CHECK(mm.at("epsilon_lower").get<double>() <= mm.at("epsilon").get<double>());
  // δ at that ε: at most the δ asked for (its lower end certainly).
  const json d = first_row("delta --strategy toeplitz:1,0.5,0.25 --min-separation 3 -p 0.01 -i 999 "
                           "-s 2 --epsilon " + std::to_string(mm.at("epsilon").get<double>()));
  CHECK(d.at("delta_lower").get<double>() <= 1e-5);
}

TEST_CASE("epsilon --strategy sqrt --full-batch is one Gaussian mechanism", "[cli][strategy]") {
  // Δ² = Σ_t (Σ_{k≤t} r_k)², r_k = binom(2k, k)/4^k.
  const int steps = 50;
  double r = 1, row = 0, sum2 = 0;
  for (int k = 0; k < steps; ++k) {
    if (k > 0) r *= (2.0 * k - 1) / (2.0 * k);
    row += r;
    sum2 += row * row;
  }
  const double mu = std::sqrt(sum2) / 30;
  const json mm = first_row("epsilon --strategy sqrt --full-batch -i 50 -s 30 -d 1e-5");
  CHECK(mm.at("route") == "gaussian");
  CHECK(mm.at("sensitivity").get<double>() == Approx(std::sqrt(sum2)).epsilon(1e-12));
  CHECK(mm.at("epsilon").get<double>() ==
        Approx(dpkit::divergence::gdp_epsilon(mu, 1e-5).value).epsilon(1e-9));
}

TEST_CASE("calibrate --strategy certifies the target", "[cli][strategy]") {
  const json c = first_row("calibrate --epsilon 2 --delta 1e-5 --strategy blt:0.9:0.2 "
                           "--min-separation 1 --sampling-rate 1 --steps 40");
  CHECK(c.at("epsilon").get<double>() <= 2);
  CHECK(c.at("epsilon").get<double>() >= 2 * (1 - 3e-4));
  CHECK(c.at("noise_multiplier").get<double>() > 0);
}

TEST_CASE("epsilon --strategy: refusals say what to do", "[cli][strategy]") {
  const auto a = dpkit_run("epsilon --min-separation 3 -s 1 -p 0.01 -i 10 -d 1e-5");
  CHECK(a.exit_code == 2);
  CHECK_THAT(a.err, Contains("--min-separation needs --strategy"));
  const auto b = dpkit_run("epsilon --strategy band:3 -s 1 -p 0.01 -i 10 -d 1e-5");
  CHECK(b.exit_code == 2);
  CHECK_THAT(b.err, Contains("is none of identity"));
  const auto c = dpkit_run("epsilon --strategy identity --sampling shuffling -s 1 -p 0.01 -i 10 -d 1e-5");
  CHECK(c.exit_code == 2);
  CHECK_THAT(c.err, Contains("--sampling shuffling is not supported"));
  const auto d = dpkit_run("epsilon --strategy identity --accountant rdp -s 1 -p 0.01 -i 10 -d 1e-5");
  CHECK(d.exit_code == 2);
  CHECK_THAT(d.err, Contains("PLD accountant only"));
  const auto file = std::filesystem::temp_directory_path() / "dpkit_strategy_cli_test.csv";
  std::ofstream(file) << "1,0\n0.5,1\n";
  const auto e = dpkit_run("epsilon --strategy file:" + file.string() + " -s 1 -p 0.1 -i 3 -d 1e-5");
  CHECK(e.exit_code == 2);
  CHECK_THAT(e.err, Contains("--steps is 3, but must be the strategy's size, 2"));
  const auto f = dpkit_run("epsilon --strategy toeplitz:1,0.5 --min-separation 2 --batch-size 10 "
                           "--dataset-size 1000 -s 1 -i 10 -d 1e-5");
  CHECK(f.exit_code == 2);
  CHECK_THAT(f.err, Contains("give --sampling-rate and --steps"));
  std::filesystem::remove(file);
}
