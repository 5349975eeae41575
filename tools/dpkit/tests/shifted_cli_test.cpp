// End-to-end tests of `dpkit shifted` (BSA24's shifted interpolation): Thm 4.2 against the exact
// Gaussian law, every row labelled, and NoisySGD at a small noise where the CLT row's
// approximation overflows (the certified rows still come out).
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli_run.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/test_util.hpp"

using dpkit::test::dpkit_run;
using dpkit::test::relative_error;
using json = nlohmann::json;

TEST_CASE("dpkit shifted: Thm 4.2 against the exact Gaussian law and every row labelled", "[cli]") {
  // NoisyGD on W1 is exactly Gaussian (BSA24 Thm C.5): mean (1 - c^t)/(1 - c) * eta L/n,
  // sd eta sigma sqrt((1 - c^2t)/(1 - c^2)); mu = mean/sd. With n = 1, sigma = 1, c = 0.95,
  // t = 100 (the paper's Figure 1); eta cancels.
  const auto r = dpkit_run(
      "shifted noisy-gd --sensitivity 1 --dataset-size 1 --noise-std 1 --contraction 0.95 --steps "
      "100 "
      "--format json");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  const double c = 0.95, ct = std::pow(c, 100);
  const double mu = ((1 - ct) / (1 - c)) / std::sqrt((1 - ct * ct) / (1 - c * c));
  const json rows = doc.at("results");
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].at("bound") == "shifted-interpolation");
  CHECK(relative_error(rows[0].at("mu").get<double>(), mu) < 1e-12);
  CHECK(rows[0].at("epsilon").get<double>() ==
        Approx(dpkit::divergence::gdp_epsilon(mu, 1e-5).value).epsilon(1e-9));
  CHECK(rows[1].at("bound") == "rdp-shifted");
  CHECK(rows[1].at("epsilon").get<double>() > rows[0].at("epsilon").get<double>());
  CHECK(rows[2].at("bound") == "composition");
  CHECK(relative_error(rows[2].at("mu").get<double>(), 10.0) < 1e-14);
  // BSA24 Figure 1 (m = 1, eta = 0.05, c = 0.95, L/(n sigma) = 0.1): the four epsilons at
  // delta = 1e-5 as recomputed independently (ours f-DP, ours RDP, prior RDP, composition).
  const std::pair<int, std::array<double, 4>> fig1[] = {{10, {1.185, 1.293, 1.775, 1.199}},
                                                        {160, {2.557, 2.773, 4.061, 5.759}}};
  for (const auto& [steps, eps] : fig1) {
    CAPTURE(steps);
    const auto f = dpkit_run(
        "shifted noisy-gd --sensitivity 0.1 --dataset-size 1 --noise-std 1 --contraction "
        "0.95 --learning-rate 0.05 --strong-convexity 1 --format json "
        "--steps " +
        std::to_string(steps));
    REQUIRE(f.exit_code == 0);
    const json fr = json::parse(f.out).at("results");
    REQUIRE(fr.size() == 4);
    for (std::size_t i = 0; i < 4; ++i)
      CHECK(fr[i].at("epsilon").get<double>() == Approx(eps[i]).margin(5e-4));
  }
  // BSA24 Table 4's claim (the MNIST settings: L = 10, b = 1500, l = 40, sigma = 0.01,
  // c = 1 - eta lambda): shifted interpolation beats both RDP and GDP composition in every cell,
  // and stays above the C.17 lower bound.
  for (const char* contraction : {"0.9999", "0.9998"}) {
    for (int epochs : {50, 100, 200}) {
      CAPTURE(contraction, epochs);
      const auto m = dpkit_run(
          std::string("shifted noisy-cgd --sensitivity 10 --batch-size 1500 --batches-per-epoch "
                      "40 --noise-std 0.01 --learning-rate 0.05 --format json --contraction ") +
          contraction + " --epochs " + std::to_string(epochs));
      REQUIRE(m.exit_code == 0);
      const json mr = json::parse(m.out).at("results");
      REQUIRE(mr.size() == 4);
      const double ours = mr[0].at("epsilon"), lower = mr[1].at("epsilon"),
                   rdp = mr[2].at("epsilon"), comp = mr[3].at("epsilon");
      CHECK(lower < ours);
      CHECK(ours < rdp);
      CHECK(rdp < comp);
    }
  }
  // A learning-rate schedule eta_k = 0.5/(1 + k/10) on W1 (m = M = 1): the exact mu from the
  // Gaussian recursion mean_k = c_k mean + eta_k L/n, var_k = c_k^2 var + eta_k^2 sigma^2.
  {
    double mean = 0, var = 0;
    for (int k = 0; k < 40; ++k) {
      const double eta = 0.5 / (1 + k / 10.0), ck = 1 - eta;
      mean = ck * mean + eta * 2 / 10;
      var = ck * ck * var + eta * eta * 0.16;
    }
    const auto sch = dpkit_run(
        "shifted noisy-gd --sensitivity 2 --dataset-size 10 --noise-std 0.4 --learning-rate 0.5 "
        "--strong-convexity 1 --smoothness 1 --steps 40 --lr-decay 10 --format json");
    REQUIRE(sch.exit_code == 0);
    const json sr = json::parse(sch.out).at("results");
    REQUIRE(sr.size() == 2);
    CHECK(sr[0].at("bound") == "shifted-interpolation (schedule)");
    CHECK(relative_error(sr[0].at("mu").get<double>(), mean / std::sqrt(var)) < 1e-10);
  }
  // NoisyCGD: an upper bound, the C.17 lower bound below it, YS22's RDP bound, composition.
  const auto g = dpkit_run(
      "shifted noisy-cgd --sensitivity 2 --batch-size 10 --batches-per-epoch 20 --noise-std 1 "
      "--contraction 0.99 --epochs 50 --learning-rate 0.1 --format json");
  REQUIRE(g.exit_code == 0);
  const json cg = json::parse(g.out).at("results");
  REQUIRE(cg.size() == 4);
  CHECK(cg[1].at("kind") == "lower-bound");
  CHECK(cg[1].at("mu").get<double>() == Approx(0.1549).margin(5e-5));  // measured independently
  CHECK(cg[0].at("mu").get<double>() == Approx(0.2375).margin(5e-5));
  CHECK(cg[2].at("bound") == "rdp-ys22");
  // NoisySGD: a certified PLD bracket; the CLT row is labelled an approximation.
  const auto s = dpkit_run(
      "shifted noisy-sgd --sensitivity 1 --dataset-size 1000 --batch-size 100 --noise-std 0.5 "
      "--learning-rate "
      "0.5 --contraction 0.9 --steps 400 --format json");
  REQUIRE(s.exit_code == 0);
  const json sg = json::parse(s.out).at("results");
  REQUIRE(sg.size() == 3);
  CHECK(sg[0].at("kind") == "upper-bound");
  CHECK(sg[0].at("epsilon_lower").get<double>() <= sg[0].at("epsilon").get<double>());
  CHECK(sg[0].at("epsilon").get<double>() < sg[2].at("epsilon").get<double>());
  CHECK(sg[1].at("kind") == "approximation");
  // --exhaustive-tau certifies every tau: never worse than the default search (golden section
  // above t = 64), and both are valid bounds below composition.
  const std::string sgd150 =
      "shifted noisy-sgd --sensitivity 1 --dataset-size 1000 --batch-size 100 --noise-std 0.5 "
      "--learning-rate "
      "0.5 --contraction 0.9 --steps 150 --format json";
  const auto golden = dpkit_run(sgd150), every = dpkit_run(sgd150 + " --exhaustive-tau");
  REQUIRE(golden.exit_code == 0);
  REQUIRE(every.exit_code == 0);
  const json gr = json::parse(golden.out).at("results"), er = json::parse(every.out).at("results");
  CHECK(er[0].at("epsilon").get<double>() <= gr[0].at("epsilon").get<double>() + 1e-12);
  CHECK(er[0].at("tau").get<long long>() >= 1);
  CHECK(er[0].at("tau").get<long long>() <= 149);
  // --shifts (Thm C.13): all shifts at eta L/b is Thm 4.9 at tau = 1, the same composition, so
  // the same certified epsilon; a shift above eta L/b is refused.
  const std::string sgd10 =
      "shifted noisy-sgd --sensitivity 1 --dataset-size 1000 --batch-size 100 --noise-std 0.5 "
      "--learning-rate "
      "0.5 --contraction 0.9 --steps 10 --format json --shifts ";
  const auto c13 = dpkit_run(sgd10 + "1,1,1,1,1,1,1,1,1");
  REQUIRE(c13.exit_code == 0);
  const json cr = json::parse(c13.out).at("results");
  REQUIRE(cr[0].at("bound") == "shifted-interpolation (C.13 shifts)");
  REQUIRE(cr[1].at("tau") == 1);
  CHECK(relative_error(cr[0].at("epsilon").get<double>(), cr[1].at("epsilon").get<double>()) <
        1e-12);
  CHECK(dpkit_run(sgd10 + "1,1,1,1,1,1,1,1,1.5").exit_code == 2);
  // An empty list was ignored and the C.13 row dropped without a word; a subnormal cell was
  // "not a number".
  const auto empty = dpkit_run(sgd10 + "''");
  CHECK(empty.exit_code == 2);
  CHECK(empty.err.find("--shifts is empty") != std::string::npos);
  const auto tiny = dpkit_run(sgd10 + "1e-320,1,1,1,1,1,1,1,1");
  CHECK(tiny.exit_code == 2);
  CHECK(tiny.err.find("1e-320 underflows double precision") != std::string::npos);
  // Tradeoff curves: G(mu) at alpha = 0.5 is Phi(-mu) ... beta(1/2) = Phi(Phi^-1(1/2) - mu).
  const auto t = dpkit_run(
      "shifted noisy-gd --sensitivity 1 --dataset-size 1 --noise-std 1 --contraction 0.95 --steps "
      "100 "
      "--tradeoff-points 3 --format json");
  REQUIRE(t.exit_code == 0);
  const json tr = json::parse(t.out).at("results");
  REQUIRE(tr.size() == 6);  // two GDP rows x 3 points (the RDP row has no curve)
  CHECK(relative_error(tr[1].at("beta").get<double>(), 0.5 * std::erfc(mu / std::sqrt(2.0))) <
        1e-9);
}

TEST_CASE("dpkit shifted noisy-sgd at a small noise: certified rows, the CLT row left out",
          "[cli]") {
  // BSA24 D.2's NoisySGD at σ = 5e-4 (L/(bσ) = 13.3): K(2L/(bσ)) = e^{711}·Φ(…) overflows a
  // double, so the CLT approximation is infinite and is replaced by a note; the PLD rows stand
  // (before, the run failed with "mu is nan"). At σ = 1e-3 the CLT μ is 1.4e37, beyond the 1e6
  // where ε is meaningful, and is left out the same way; at σ = 3e-3 it is shown.
  const std::string base =
      "shifted noisy-sgd --sensitivity 10 --batch-size 1500 --dataset-size 60000 --contraction "
      "0.9999 --steps 2000 --learning-rate 0.05 --delta 1e-5 --format json --noise-std ";
  const auto tiny = dpkit_run(base + "5e-4");
  REQUIRE(tiny.exit_code == 0);
  const json doc = json::parse(tiny.out);
  std::vector<std::string> bounds;
  for (const json& r : doc.at("results")) {
    bounds.push_back(r.at("bound").get<std::string>());
    CHECK(r.at("epsilon").get<double>() > 100);  // σ is 20× below D.2's: no privacy to speak of
  }
  CHECK(bounds == std::vector<std::string>{"shifted-interpolation", "composition"});
  const auto clt_rows = [&](const char* sigma) {
    const auto r = dpkit_run(base + sigma);
    REQUIRE(r.exit_code == 0);
    const json doc_sigma = json::parse(r.out);  // named: the loop must not view a temporary
    int count = 0;
    for (const json& row : doc_sigma.at("results"))
      count += row.at("bound") == "shifted-interpolation (CLT)" ? 1 : 0;
    return count;
  };
  CHECK(clt_rows("1e-3") == 0);
  CHECK(clt_rows("3e-3") == 1);
}

TEST_CASE("dpkit shifted: a sensitivity too large for the noise gives rows without epsilon",
          "[cli]") {
  // A probe's --sensitivity 1e308 failed the whole command with "rho is inf", "tau is -1" or
  // "noise_multiplier is 2e-308". Each row now says why it has no epsilon; exit 0.
  const std::string gd = "shifted noisy-gd --noise-std 1 --dataset-size 1 --contraction 0.95 "
                         "--steps 100 --sensitivity ";
  const std::string sgd = "shifted noisy-sgd --noise-std 1 --dataset-size 10 --batch-size 1 "
                          "--contraction 0.95 --steps 10 --learning-rate 0.1 --sensitivity ";
  for (const std::string& args : {gd + "1e308", gd + "1e150", sgd + "1e308", sgd + "1e100"}) {
    CAPTURE(args);
    const auto r = dpkit_run(args + " --format json");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    int without = 0;
    for (const auto& row : j["results"]) {
      CAPTURE(row.dump());
      // No finite small number: either no epsilon, with the reason, or a huge one.
      if (row["epsilon"].is_null()) {
        ++without;
        REQUIRE(row.contains("message"));
        const std::string why = row["message"];
        CHECK(why.find("no epsilon") != std::string::npos);
        CHECK(why.find("rho is") == std::string::npos);
        CHECK(why.find("tau is") == std::string::npos);
      } else {
        CHECK(row["epsilon"].get<double>() > 1e10);
      }
    }
    CHECK(without >= 1);
  }
}
