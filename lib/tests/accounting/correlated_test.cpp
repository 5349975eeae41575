#include "dpkit/accounting/correlated.hpp"

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/core/csv.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/test_util.hpp"

namespace acc = dpkit::accounting;
using Catch::Matchers::Contains;
using dpkit::test::describe_mismatch;
using dpkit::test::relative_error;

namespace {

acc::correlated_setting setting(double lambda, double r, long long T) {
  return {lambda, r, T};
}

// ‖Cy‖₂² by the recursion (Cy)_t = λ(Cy)_{t−1} + y_t (WSK+26 eq. (25)), y given as bits.
double cy_norm_squared(double lambda, int T, unsigned bits) {
  double v = 0, s = 0;
  for (int t = 0; t < T; ++t) {
    v = lambda * v + ((bits >> t) & 1u ? 1.0 : 0.0);
    s += v * v;
  }
  return s;
}

Eigen::MatrixXd correlation_matrix(double lambda, int T) {
  Eigen::MatrixXd c = Eigen::MatrixXd::Zero(T, T);
  for (int t = 0; t < T; ++t)
    for (int u = 0; u <= t; ++u) c(t, u) = std::pow(lambda, t - u);
  return c;
}

acc::correlated_method f9_method(int sensitivity_code) {
  switch (sensitivity_code) {
    case 0:
      return acc::correlated_method::f9_row_sum;
    case 1:
      return acc::correlated_method::f9_exact;
    default:
      return acc::correlated_method::f9_block;
  }
}

}  // namespace

TEST_CASE("correlated: bad input is rejected with the check vocabulary",
          "[accounting][correlated]") {
  using M = acc::correlated_method;
  const auto good = setting(0.5, 0.1, 100);
  REQUIRE_THROWS_AS(acc::calibrate_correlated(setting(1.0, 0.1, 100), 1, 1e-5, M::f12),
                    std::domain_error);
  REQUIRE_THROWS_WITH(acc::calibrate_correlated(setting(1.0, 0.1, 100), 1, 1e-5, M::f12),
                      "calibrate_correlated: correlation is 1, but must be in [0, 1)");
  REQUIRE_THROWS_WITH(acc::calibrate_correlated(setting(-0.1, 0.1, 100), 1, 1e-5, M::f12),
                      "calibrate_correlated: correlation is -0.1, but must be in [0, 1)");
  REQUIRE_THROWS_WITH(acc::calibrate_correlated(setting(0.5, 0.0, 100), 1, 1e-5, M::f12),
                      "calibrate_correlated: sampling_rate is 0, but must be in (0, 1]");
  REQUIRE_THROWS_WITH(acc::calibrate_correlated(setting(0.5, 0.1, 0), 1, 1e-5, M::f12),
                      "calibrate_correlated: steps is 0, but must be >= 1");
  REQUIRE_THROWS_WITH(acc::calibrate_correlated(good, NAN, 1e-5, M::f12),
                      "calibrate_correlated: epsilon is nan, but must be finite and > 0");
  REQUIRE_THROWS_WITH(acc::calibrate_correlated(good, 1, 1.0, M::f12),
                      "calibrate_correlated: delta is 1, but must be in (0, 1)");
  acc::correlated_options bad_tol;
  bad_tol.relative_tolerance = 0;
  REQUIRE_THROWS_WITH(acc::calibrate_correlated(good, 1, 1e-5, M::f12, bad_tol),
                      "calibrate_correlated: relative_tolerance is 0, but must be in (0, 1)");
  acc::correlated_options bad_order;
  bad_order.max_order = 1;
  REQUIRE_THROWS_WITH(acc::calibrate_correlated(good, 1, 1e-5, M::d9_eq19, bad_order),
                      "calibrate_correlated: max_order is 1, but must be an integer in [2, 1000000]");
  // Beyond 1e6 the WBK19 RDP refused its own order ("alpha is 1015376"): the option says so.
  bad_order.max_order = 2000000;
  REQUIRE_THROWS_WITH(
      acc::calibrate_correlated(good, 1, 1e-5, M::d9_eq19, bad_order),
      "calibrate_correlated: max_order is 2000000, but must be an integer in [2, 1000000]");
  REQUIRE_THROWS_WITH(acc::binomial_tail(10, 0.5, -1), "binomial_tail: k is -1, but must be >= 0");
  REQUIRE_THROWS_WITH(acc::leading_block_norm(0.5, 10, 11),
                      "leading_block_norm: k is 11, but must be <= steps = 10");
  REQUIRE_THROWS_WITH(acc::f9_delta(good, -1, 1, acc::f9_sensitivity::spectral),
                      "f9_delta: noise_multiplier is -1, but must be finite and >= 0");
  REQUIRE_THROWS_WITH(acc::correlation_spectral_norm(0.5, 0),
                      "correlation_spectral_norm: steps is 0, but must be >= 1");
}

TEST_CASE("correlated: method names round-trip", "[accounting][correlated]") {
  for (acc::correlated_method m : acc::kAllCorrelatedMethods) {
    CAPTURE(acc::to_string(m));
    REQUIRE(acc::parse_correlated_method(acc::to_string(m)) == m);
  }
  CHECK(acc::to_string(acc::correlated_method::f12_proof_constant) == "f12-proof-constant");
  CHECK(acc::to_string(acc::correlated_method::d9_eq19) == "d9-eq19");
  CHECK_FALSE(acc::parse_correlated_method("all").has_value());
  CHECK(acc::to_string(acc::noise_validity::valid_upper_bound) == "valid-upper-bound");
  CHECK(acc::to_string(acc::noise_validity::conjecture_dependent) == "conjecture-dependent");
  CHECK(acc::to_string(acc::neighbouring_relation::zero_out) == "zero-out");
}

TEST_CASE("Thm F.12: the closed form re-derived by hand, its conditions reported",
          "[accounting][correlated]") {
  struct row {
    double lambda, r;
    long long T;
    double independent;  // an independent pure-Python computation (one decimal)
  };
  const std::vector<row> rows = {{0.0, 0.1, 1000, 126.3},  {0.5, 0.1, 1000, 252.7},
                                 {0.9, 0.1, 1000, 1263.3}, {0.0, 0.01, 5000, 96.1},
                                 {0.5, 0.01, 5000, 192.1}, {0.9, 0.01, 5000, 960.5}};
  const double eps = 1.0, delta = 1e-5;
  for (const row& c : rows) {
    CAPTURE(c.lambda, c.r, c.T);
    // By hand: κ² = 8·((1 − λ^T)/(1 − λ))²·(rT + √(3rT ln(2/δ)))·ln(2.5/δ)/ε².
    const double a = (1 - std::pow(c.lambda, static_cast<double>(c.T))) / (1 - c.lambda);
    const double rT = c.r * static_cast<double>(c.T);
    const double kappa_hand = std::sqrt(8 * a * a * (rT + std::sqrt(3 * rT * std::log(2 / delta))) *
                                        std::log(2.5 / delta) / (eps * eps));
    const auto f12 = acc::calibrate_correlated(setting(c.lambda, c.r, c.T), eps, delta,
                                               acc::correlated_method::f12);
    INFO(describe_mismatch(f12.noise_multiplier, kappa_hand));
    CHECK(relative_error(f12.noise_multiplier, kappa_hand) <= 1e-14);
    CHECK(std::abs(f12.noise_multiplier - c.independent) < 0.05);
    CHECK(f12.method == "f12");
    CHECK(f12.closed_form);
    CHECK(f12.conditions_met);
    CHECK(f12.validity == acc::noise_validity::valid_upper_bound);
    CHECK(f12.label == "valid upper bound (closed form)");
    CHECK(f12.relation == acc::neighbouring_relation::zero_out);
    // The proof's constant 2 instead of 8: exactly half the κ.
    const auto proof = acc::calibrate_correlated(setting(c.lambda, c.r, c.T), eps, delta,
                                                 acc::correlated_method::f12_proof_constant);
    CHECK(relative_error(proof.noise_multiplier, kappa_hand / 2) <= 1e-14);
    CHECK(proof.validity == acc::noise_validity::valid_upper_bound);
    // Lemma F.9 (row-sum Δ, exact tails) certifies both.
    CHECK(f12.certified_delta <= delta);
    CHECK(proof.certified_delta <= delta);
  }
  // Conditions that fail are reported, not hidden: ε > 1, and rT < 3 ln(2/δ).
  const auto big_eps =
      acc::calibrate_correlated(setting(0.5, 0.1, 1000), 2.0, delta, acc::correlated_method::f12);
  CHECK_FALSE(big_eps.conditions_met);
  CHECK(big_eps.validity == acc::noise_validity::outside_conditions);
  CHECK_THAT(big_eps.conditions, Contains("epsilon <= 1 FAILS"));
  CHECK_THAT(big_eps.message, Contains("Thm F.12 does not apply"));
  CHECK(big_eps.label == "closed form outside its conditions (no guarantee)");
  CHECK(std::isfinite(big_eps.noise_multiplier));
  const auto few = acc::calibrate_correlated(setting(0.5, 0.01, 1000), 1.0, delta,
                                             acc::correlated_method::f12_proof_constant);
  CHECK_FALSE(few.conditions_met);
  CHECK_THAT(few.conditions, Contains("r T = 10 >= 3 ln(2/delta) = "));
  CHECK_THAT(few.conditions, Contains("FAILS"));
}

TEST_CASE("binomial tails match 50-digit references", "[accounting][correlated][reference]") {
  const auto t = dpkit::read_csv(dpkit::test::reference_path("correlated_binomial_tail.csv"));
  REQUIRE(t.rows.size() > 50);
  double worst = 0;
  std::size_t compared = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const auto T = static_cast<long long>(t.at(i, "T"));
    const double r = t.at(i, "r");
    const auto k = static_cast<long long>(t.at(i, "k"));
    const double expected = t.at(i, "tail");
    const double computed = acc::binomial_tail(T, r, k);
    CAPTURE(t.where(i));
    if (t.at(i, "log_tail") < std::log(std::numeric_limits<double>::min())) {
      CHECK(computed < 1e-300);  // beyond the normal range: tiny, never a large number
      continue;
    }
    const double e = relative_error(computed, expected);
    INFO(describe_mismatch(computed, expected));
    CHECK(e <= 1e-13);
    worst = std::max(worst, e);
    ++compared;
  }
  CHECK(compared > 50);
  INFO("worst relative error " << worst);
  CHECK(worst <= 1e-13);
  CHECK(acc::binomial_tail(10, 0.5, 10) == 0);
  CHECK(acc::binomial_tail(10, 1.0, 9) == 1);
}

TEST_CASE("spectral norm of C: certified against 50-digit references and dense SVD",
          "[accounting][correlated][reference]") {
  const auto t = dpkit::read_csv(dpkit::test::reference_path("correlated_spectral_norm.csv"));
  REQUIRE(t.rows.size() > 40);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const double lambda = t.at(i, "lambda");
    const auto T = static_cast<long long>(t.at(i, "T"));
    const double expected = t.at(i, "norm");
    CAPTURE(t.where(i));
    const acc::spectral_norm_result n = acc::correlation_spectral_norm(lambda, T);
    REQUIRE(n.converged());
    INFO(describe_mismatch(n.value, expected));
    CHECK(n.value >= expected);  // certified upper bound
    CHECK(n.lower <= expected);
    // The certified pad is (6T + 16)ε relative: ≤ 1.4e-10 at T = 1e5.
    CHECK(relative_error(n.value, expected) <= 2e-10);
    CHECK(relative_error(n.lower, expected) <= 2e-10);
    CHECK(relative_error(acc::correlation_row_sum(lambda, T), t.at(i, "row_sum")) <= 1e-14);
  }
  // Independent route: Eigen's dense SVD.
  for (double lambda : {0.2, 0.7, 0.95, 0.999}) {
    for (int T : {7, 50, 200}) {
      CAPTURE(lambda, T);
      const double svd =
          Eigen::JacobiSVD<Eigen::MatrixXd>(correlation_matrix(lambda, T)).singularValues()(0);
      CHECK(relative_error(acc::correlation_spectral_norm(lambda, T).value, svd) <= 1e-12);
    }
  }
  // An independent computation (2 decimals): ‖C‖₂² at T = 14.
  CHECK(std::abs(std::pow(acc::correlation_spectral_norm(0.3, 14).value, 2) - 1.99) < 0.006);
  CHECK(std::abs(std::pow(acc::correlation_spectral_norm(0.6, 14).value, 2) - 5.50) < 0.006);
  CHECK(std::abs(std::pow(acc::correlation_spectral_norm(0.9, 14).value, 2) - 32.99) < 0.006);
  CHECK(std::abs(std::pow(acc::correlation_spectral_norm(0.99, 14).value, 2) - 76.71) < 0.006);
  CHECK(acc::correlation_spectral_norm(0.0, 1000).value == 1.0);
}

TEST_CASE("leading-block maximiser (a conjecture) by brute force over all y",
          "[accounting][correlated]") {
  // For every y ∈ {0,1}^T with ‖y‖₀ = k: ‖Cy‖₂ ≤ ‖C·1_{1..k}‖₂ — the conjecture f9-block
  // depends on — and ‖C·1_{1..k}‖₂ ≤ ‖C‖₂√k ≤ row sum·√k (what f9-exact and f9-row-sum use).
  for (double lambda : {0.0, 0.1, 0.3, 0.6, 0.9, 0.99}) {
    for (int T : {1, 2, 3, 5, 8, 11, 14}) {
      CAPTURE(lambda, T);
      std::vector<double> best(static_cast<std::size_t>(T) + 1, 0.0);
      for (unsigned bits = 0; bits < (1u << T); ++bits) {
        const auto k = static_cast<std::size_t>(__builtin_popcount(bits));
        best[k] = std::max(best[k], cy_norm_squared(lambda, T, bits));
      }
      const double spectral = acc::correlation_spectral_norm(lambda, T).value;
      const double row_sum = acc::correlation_row_sum(lambda, T);
      for (int k = 0; k <= T; ++k) {
        CAPTURE(k);
        const double block = acc::leading_block_norm(lambda, T, k);
        const double brute = std::sqrt(best[static_cast<std::size_t>(k)]);
        INFO(describe_mismatch(block, brute));
        CHECK(brute <= block * (1 + 1e-14));
        CHECK(relative_error(block, brute) <= 1e-14);
        CHECK(block <= spectral * std::sqrt(k) * (1 + 1e-14));
        CHECK(spectral <= row_sum * (1 + 1e-15));
      }
    }
  }
}

TEST_CASE("Lemma F.9 routes match 50-digit references and an independent table",
          "[accounting][correlated][reference]") {
  const auto t = dpkit::read_csv(dpkit::test::reference_path("correlated_f9.csv"));
  REQUIRE(t.rows.size() > 60);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    CAPTURE(t.where(i));
    const auto s = setting(t.at(i, "lambda"), t.at(i, "r"), static_cast<long long>(t.at(i, "T")));
    const double eps = t.at(i, "epsilon"), delta = t.at(i, "delta");
    const auto code = static_cast<int>(t.at(i, "sensitivity"));
    const acc::correlated_noise c = acc::calibrate_correlated(s, eps, delta, f9_method(code));
    const double expected = t.at(i, "kappa");
    REQUIRE(c.converged());
    INFO(describe_mismatch(c.noise_multiplier, expected));
    CHECK(c.noise_multiplier >= expected * (1 - 1e-14));  // never on the unsafe side
    CHECK(relative_error(c.noise_multiplier, expected) <= 1e-9);
    CHECK(c.certified_delta <= delta);
    CHECK(c.validity == (code == 2 ? acc::noise_validity::conjecture_dependent
                                   : acc::noise_validity::valid_upper_bound));
  }
  // A table computed independently (pure Python), columns (b) row-sum, (c) block.
  struct row {
    double lambda, r;
    long long T;
    double b, c;
  };
  for (const row& c : std::vector<row>{{0.0, 0.1, 1000, 45.6, 45.6},
                                       {0.5, 0.1, 1000, 91.1, 90.7},
                                       {0.9, 0.1, 1000, 455.6, 440.7},
                                       {0.0, 0.01, 5000, 34.9, 34.9},
                                       {0.5, 0.01, 5000, 69.7, 69.2},
                                       {0.9, 0.01, 5000, 348.6, 328.7}}) {
    CAPTURE(c.lambda, c.r, c.T);
    const auto s = setting(c.lambda, c.r, c.T);
    const auto b = acc::calibrate_correlated(s, 1.0, 1e-5, acc::correlated_method::f9_row_sum);
    const auto k = acc::calibrate_correlated(s, 1.0, 1e-5, acc::correlated_method::f9_block);
    CHECK(std::abs(b.noise_multiplier - c.b) < 0.05);
    CHECK(std::abs(k.noise_multiplier - c.c) < 0.05);
  }
}

TEST_CASE("f9 routes are ordered as the theory says and never above F.12 where it applies",
          "[accounting][correlated]") {
  // Where Thm F.12's conditions hold, its proof is one instance of Lemma F.9 (split ⌊τ⌋,
  // Chernoff tail ≤ δ/2, classical Gaussian mechanism ≤ δ/2), so every F.9 route with exact
  // ingredients gives a κ no larger than the proof's constant; Δ_k block ≤ spectral ≤ row sum.
  for (double lambda : {0.0, 0.3, 0.7, 0.95}) {
    for (auto [r, T] : std::vector<std::pair<double, long long>>{
             {0.5, 100}, {0.1, 1000}, {0.02, 3000}, {1.0, 50}}) {
      for (double eps : {0.3, 1.0}) {
        const auto s = setting(lambda, r, T);
        CAPTURE(lambda, r, T, eps);
        const double delta = 1e-6;
        auto kappa = [&](acc::correlated_method m) {
          const auto c = acc::calibrate_correlated(s, eps, delta, m);
          REQUIRE(c.converged());
          return c;
        };
        const auto f12 = kappa(acc::correlated_method::f12);
        const auto proof = kappa(acc::correlated_method::f12_proof_constant);
        const auto row = kappa(acc::correlated_method::f9_row_sum);
        const auto exact = kappa(acc::correlated_method::f9_exact);
        const auto block = kappa(acc::correlated_method::f9_block);
        REQUIRE(f12.conditions_met);
        CHECK(block.noise_multiplier <= exact.noise_multiplier * (1 + 1e-12));
        CHECK(exact.noise_multiplier <= row.noise_multiplier * (1 + 1e-12));
        CHECK(row.noise_multiplier <= proof.noise_multiplier);
        CHECK(proof.noise_multiplier <= f12.noise_multiplier);
        CHECK(f12.certified_delta <= delta);
        CHECK(proof.certified_delta <= delta);
      }
    }
  }
}

TEST_CASE("f9_delta: the calibrated kappa is the smallest the F.9 bound certifies",
          "[accounting][correlated]") {
  // min_k κ_k is what bisection on κ ↦ min_k g_k(κ) would return: check both sides.
  for (auto kind : {acc::f9_sensitivity::row_sum, acc::f9_sensitivity::spectral,
                    acc::f9_sensitivity::leading_block}) {
    for (double lambda : {0.0, 0.6, 0.9}) {
      const auto s = setting(lambda, 0.05, 800);
      const double eps = 0.8, delta = 1e-5;
      const auto m = kind == acc::f9_sensitivity::row_sum    ? acc::correlated_method::f9_row_sum
                     : kind == acc::f9_sensitivity::spectral ? acc::correlated_method::f9_exact
                                                             : acc::correlated_method::f9_block;
      const auto c = acc::calibrate_correlated(s, eps, delta, m);
      CAPTURE(lambda, c.noise_multiplier, c.split);
      const acc::f9_bound at = acc::f9_delta(s, c.noise_multiplier, eps, kind);
      const acc::f9_bound below = acc::f9_delta(s, c.noise_multiplier * (1 - 1e-7), eps, kind);
      CHECK(at.delta <= delta);
      CHECK(below.delta > delta);
      CHECK(at.split == static_cast<long long>(c.split));
      CHECK(relative_error(at.tail_probability, acc::binomial_tail(800, 0.05, at.split)) == 0);
    }
  }
  // κ = 0: only k = 0 (no participation) helps; δ = P(some participation).
  const auto s = setting(0.5, 0.01, 10);
  CHECK(relative_error(acc::f9_delta(s, 0.0, 1.0, acc::f9_sensitivity::spectral).delta,
                       1 - std::pow(0.99, 10)) <= 1e-14);
  // Participation rarer than δ: no noise is needed at all.
  const auto none = acc::calibrate_correlated(setting(0.5, 1e-8, 10), 1.0, 1e-5,
                                              acc::correlated_method::f9_exact);
  CHECK(none.noise_multiplier == 0);
}

TEST_CASE("lambda = 0: the pld route is the existing PLD calibration and beats F.9",
          "[accounting][correlated]") {
  const auto s = setting(0.0, 0.1, 1000);
  const double eps = 1.0, delta = 1e-5;
  const auto pld = acc::calibrate_correlated(s, eps, delta, acc::correlated_method::pld);
  REQUIRE(pld.converged());
  CHECK(pld.validity == acc::noise_validity::valid_upper_bound);
  acc::training_run run;
  run.phases.push_back({1.0, 0.1, acc::sampling_scheme::poisson, 1000});
  const auto direct = acc::calibrate_noise_multiplier(run, eps, delta);
  CHECK(pld.noise_multiplier == direct.noise_multiplier);
  // The budget holds at κ by the PLD accountant, evaluated afresh.
  run.phases[0].noise_multiplier = pld.noise_multiplier;
  CHECK(acc::pld_epsilon(run, delta).value <= eps);
  CHECK(pld.certified_epsilon <= eps);
  // The F.8 pair at C = I is the Poisson pair: the PLD κ is (up to its 1e-3 bracket) the
  // smallest any valid accountant of that pair can give, so no larger than F.9's.
  const auto f9 = acc::calibrate_correlated(s, eps, delta, acc::correlated_method::f9_exact);
  CHECK(pld.noise_multiplier <= f9.noise_multiplier);
  // Integer-order RDP of the Poisson-subsampled Gaussian (an independent computation): 15.6,
  // looser than PLD.
  CHECK(pld.noise_multiplier < 15.6);
  CHECK(pld.noise_multiplier > 10.0);
  // λ ≠ 0: reported as not applicable, with no number.
  for (auto m : {acc::correlated_method::pld, acc::correlated_method::d9,
                 acc::correlated_method::d9_eq19, acc::correlated_method::pld_replace_one}) {
    const auto na = acc::calibrate_correlated(setting(0.5, 0.1, 1000), eps, delta, m);
    CAPTURE(na.method);
    CHECK(na.validity == acc::noise_validity::not_applicable);
    CHECK(std::isnan(na.noise_multiplier));
    CHECK_THAT(na.message, Contains("not applicable"));
    CHECK_THAT(na.label, Contains("not applicable"));
  }
}

TEST_CASE("Thm D.9 closed form by hand, and eq. (19) against 50-digit references",
          "[accounting][correlated][reference]") {
  // By hand: κ² = 16r²T/ε + 32r²T log(1/δ)/ε²; an independent computation: 62.0 and 13.9.
  const auto d9a =
      acc::calibrate_correlated(setting(0, 0.1, 1000), 1.0, 1e-5, acc::correlated_method::d9);
  CHECK(relative_error(d9a.noise_multiplier, std::sqrt(160 + 320 * std::log(1e5))) <= 1e-14);
  CHECK(std::abs(d9a.noise_multiplier - 62.0) < 0.05);
  const auto d9b =
      acc::calibrate_correlated(setting(0, 0.01, 5000), 1.0, 1e-5, acc::correlated_method::d9);
  CHECK(std::abs(d9b.noise_multiplier - 13.9) < 0.05);
  CHECK(d9a.validity == acc::noise_validity::heuristic);
  CHECK(d9a.relation == acc::neighbouring_relation::replace_one);
  CHECK(d9a.closed_form);
  CHECK(std::isfinite(d9a.certified_epsilon));
  // r = 1 (B = n) is outside the theorem's stated regime.
  CHECK(acc::calibrate_correlated(setting(0, 1.0, 10), 1.0, 1e-5, acc::correlated_method::d9)
            .validity == acc::noise_validity::outside_conditions);

  const auto t = dpkit::read_csv(dpkit::test::reference_path("correlated_eq19.csv"));
  REQUIRE(t.rows.size() >= 4);
  acc::correlated_options o;
  o.relative_tolerance = 1e-10;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    CAPTURE(t.where(i));
    const auto s = setting(0.0, t.at(i, "q"), static_cast<long long>(t.at(i, "T")));
    const double eps = t.at(i, "epsilon"), delta = t.at(i, "delta");
    const double expected = t.at(i, "kappa");
    const auto c = acc::calibrate_correlated(s, eps, delta, acc::correlated_method::d9_eq19, o);
    REQUIRE(c.converged());
    INFO(describe_mismatch(c.noise_multiplier, expected));
    CHECK(c.noise_multiplier >= expected * (1 - 1e-12));
    CHECK(relative_error(c.noise_multiplier, expected) <= 1e-8);
    CHECK(c.certified_epsilon <= eps);
    CHECK(c.alpha == t.at(i, "alpha"));
    CHECK(c.validity == acc::noise_validity::valid_upper_bound);
    // The eq. (19) evaluation at the reference κ itself: ε on the budget (to the reference's
    // trusted digits).
    CHECK(std::abs(acc::d9_eq19_epsilon(s, expected, delta).epsilon - eps) <= 1e-9);
  }
}

TEST_CASE(
    "eq. (19) has a floor: at (0.1, 1000) and (0.01, 5000) it certifies epsilon = 1 at no kappa",
    "[accounting][correlated]") {
  // As κ → ∞, eq. (19)'s j = 2 term vanishes but its j ≥ 3 terms tend to 2q^j·C(α, j), so
  // ε_∞ = min_α [T·log(1 + 2Σ_{j≥3} q^j C(α, j))/(α − 1) + log(1/δ)/(α − 1)] > 0. By hand,
  // with lgamma binomials, over α = 2..200.
  auto floor_by_hand = [](double q, double T, double delta) {
    double best = INFINITY;
    for (int a = 2; a <= 200; ++a) {
      double sum = 0;
      for (int j = 3; j <= a; ++j)
        sum += 2 * std::exp(j * std::log(q) + std::lgamma(a + 1.0) - std::lgamma(j + 1.0) -
                            std::lgamma(a - j + 1.0));
      best = std::min(best, (T * std::log1p(sum) + std::log(1 / delta)) / (a - 1));
    }
    return best;
  };
  for (auto [q, T] : std::vector<std::pair<double, long long>>{{0.1, 1000}, {0.01, 5000}}) {
    CAPTURE(q, T);
    const double by_hand = floor_by_hand(q, static_cast<double>(T), 1e-5);
    CHECK(by_hand > 1.0);  // 6.56 and 1.15
    const auto c =
        acc::calibrate_correlated(setting(0, q, T), 1.0, 1e-5, acc::correlated_method::d9_eq19);
    CHECK(c.converged());
    CHECK_FALSE(c.attainable);
    CHECK(c.noise_multiplier == INFINITY);
    CHECK(relative_error(c.certified_epsilon, by_hand) <= 1e-9);
    CHECK_THAT(c.message, Contains("at no kappa"));
    // The D.9 closed form is therefore not certified by eq. (19) there either.
    const auto d9 =
        acc::calibrate_correlated(setting(0, q, T), 1.0, 1e-5, acc::correlated_method::d9);
    CHECK(d9.certified_epsilon > 1.0);
    CHECK_THAT(d9.message, Contains("not certified by eq. (19)"));
  }
}

TEST_CASE("pld-replace-one: the PLD accountant for D.9's relation, against eq. (19) and D.9",
          "[accounting][correlated]") {
  // Same relation (replace-one, fixed-size batches): the certified PLD κ is below the eq. (19)
  // κ (both valid; PLD is near-tight), and the D.9 closed form, though eq. (19) does not
  // certify it (its own proof route), is above the PLD κ at these settings: sufficient.
  const auto s = setting(0.0, 0.01, 1000);
  const double eps = 1.0, delta = 1e-5;
  const auto pld =
      acc::calibrate_correlated(s, eps, delta, acc::correlated_method::pld_replace_one);
  REQUIRE(pld.converged());
  CHECK(pld.relation == acc::neighbouring_relation::replace_one);
  CHECK(pld.validity == acc::noise_validity::valid_upper_bound);
  acc::training_run run;
  run.phases.push_back({1.0, 0.01, acc::sampling_scheme::without_replacement, 1000});
  CHECK(pld.noise_multiplier == acc::calibrate_noise_multiplier(run, eps, delta).noise_multiplier);
  const auto eq19 = acc::calibrate_correlated(s, eps, delta, acc::correlated_method::d9_eq19);
  const auto d9 = acc::calibrate_correlated(s, eps, delta, acc::correlated_method::d9);
  REQUIRE(eq19.converged());
  CHECK(pld.noise_multiplier < eq19.noise_multiplier);
  CHECK(d9.noise_multiplier < eq19.noise_multiplier);  // eq. (19) does not certify D.9 here
  CHECK(d9.certified_epsilon > eps);
  CHECK(d9.noise_multiplier > pld.noise_multiplier);  // but the PLD accountant does
  // Replace-one is the stronger relation: its κ is above the zero-out (Poisson-pair) κ.
  CHECK(acc::calibrate_correlated(s, eps, delta, acc::correlated_method::pld).noise_multiplier <
        pld.noise_multiplier);
}

TEST_CASE("projected lower bound: delta_1 against 30-digit references",
          "[accounting][correlated][reference]") {
  const auto t = dpkit::read_csv(dpkit::test::reference_path("correlated_projected.csv"));
  REQUIRE(t.rows.size() >= 50);
  double worst = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const auto s = setting(t.at(i, "lambda"), t.at(i, "r"), static_cast<long long>(t.at(i, "T")));
    const double expected = t.at(i, "delta");
    const double computed = acc::projected_delta(s, t.at(i, "kappa"), t.at(i, "epsilon"));
    CAPTURE(t.where(i));
    INFO(describe_mismatch(computed, expected));
    // The only approximation is the binomial window (mean ± 40 sd): relative error ~ rounding.
    const double e = expected > 0 ? relative_error(computed, expected) : std::abs(computed);
    CHECK(e <= 1e-9);
    worst = std::max(worst, e);
  }
  INFO("worst relative error " << worst);
  CHECK(worst <= 1e-9);
}

TEST_CASE("projected lower bound: closed forms at r = 1 and T = 1", "[accounting][correlated]") {
  // r = 1: P₁ = N(T, s²) against N(0, s²), a Gaussian pair with μ = T/s: δ₁ = h_ε(μ).
  for (const double lambda : {0.0, 0.5, 0.9}) {
    const auto s = setting(lambda, 1.0, 30);
    const double kappa = 7.0, eps = 0.8;
    const double mu = 30 / (kappa * std::sqrt(29 * (1 - lambda) * (1 - lambda) + 1));
    CAPTURE(lambda);
    CHECK_THAT(acc::projected_delta(s, kappa, eps),
               Catch::Matchers::WithinRel(dpkit::divergence::gdp_delta(mu, eps), 1e-10));
  }
  // T = 1: the projection is the identity, so δ₁ is the one-step Poisson-subsampled Gaussian's
  // δ(ε) — the exact pair the PLD accountant discretises (its bracket must contain δ₁).
  const double kappa = 1.3, eps = 0.4, r = 0.3;
  const double d1 = acc::projected_delta(setting(0.0, r, 1), kappa, eps);
  acc::training_run run;
  run.phases.push_back({kappa, r, acc::sampling_scheme::poisson, 1});
  const auto bracket = acc::pld_delta(run, eps);
  CHECK(d1 <= bracket.value * (1 + 1e-9));
  CHECK(d1 >= bracket.lower * (1 - 1e-9));
}

TEST_CASE("projected lower bound: below every valid calibration, close to PLD at lambda = 0",
          "[accounting][correlated]") {
  const double eps = 1.0, delta = 1e-5;
  for (const double lambda : {0.0, 0.5, 0.9}) {
    for (const auto& [r, T] :
         std::vector<std::pair<double, long long>>{{0.1, 1000}, {0.01, 1000}}) {
      const auto s = setting(lambda, r, T);
      CAPTURE(lambda, r, T);
      const auto lb = acc::correlated_noise_lower_bound(s, eps, delta);
      REQUIRE(lb.converged());
      REQUIRE(lb.noise_multiplier > 0);
      // The bracket: δ₁ > δ at κ_LB, δ₁ ≤ δ at the upper end, width ≤ 1e-3 relative.
      CHECK(acc::projected_delta(s, lb.noise_multiplier, eps) > delta);
      CHECK(acc::projected_delta(s, lb.noise_multiplier_upper, eps) <= delta);
      CHECK(lb.noise_multiplier_upper <= lb.noise_multiplier * (1 + 1.01e-3));
      // Every valid upper bound (and the conjecture) lies above the lower bound.
      for (auto m : {acc::correlated_method::f9_row_sum, acc::correlated_method::f9_exact,
                     acc::correlated_method::f9_block}) {
        const auto up = acc::calibrate_correlated(s, eps, delta, m);
        CAPTURE(up.method);
        CHECK(up.noise_multiplier > lb.noise_multiplier);
      }
      if (lambda == 0) {
        // The PLD κ is (to its 1e-3 bracket) the exact answer for this pair: the lower bound
        // must not exceed it. At rT = 100 the sum statistic carries the Gaussian-limit signal
        // r√T/κ of the whole pair (docs/correlated.md), so it is within 10 %.
        const auto pld = acc::calibrate_correlated(s, eps, delta, acc::correlated_method::pld);
        CHECK(lb.noise_multiplier <= pld.noise_multiplier);
        if (r * static_cast<double>(T) >= 100)
          CHECK(lb.noise_multiplier >= 0.9 * pld.noise_multiplier);
      }
    }
  }
}

TEST_CASE("projected lower bound: bad input and the trivial pair", "[accounting][correlated]") {
  CHECK_THROWS_AS(acc::projected_delta(setting(0.5, 0.1, 10), 0.0, 1.0), std::domain_error);
  CHECK_THROWS_AS(acc::projected_delta(setting(0.5, 0.1, 10), 1.0, -1.0), std::domain_error);
  CHECK_THROWS_AS(acc::correlated_noise_lower_bound(setting(0.5, 0.1, 10), 1.0, 0.0),
                  std::domain_error);
  // δ₁ ≤ TV(P₁, Q₁) ≤ P(‖y‖₀ > 0) = 1 − 0.999^10 ≈ 0.01 < 0.99 at every κ: δ = 0.99 is met
  // even without noise, so the statistic gives no lower bound (κ_LB = 0).
  const auto none = acc::correlated_noise_lower_bound(setting(0.0, 0.001, 10), 1.0, 0.99);
  CHECK(none.noise_multiplier == 0);
  CHECK_THAT(none.message, Contains("no lower bound"));
}

TEST_CASE("Thm D.9 at a tiny epsilon: the closed form without the underflow of epsilon^2",
          "[accounting][correlated]") {
  using M = acc::correlated_method;
  // κ² = 16r²T/ε + 32r²T log(1/δ)/ε²: at ε = 1e-300, ε² is 0 and κ came out inf, which the
  // eq. (19) check refused as "noise_multiplier is inf" and the whole table was lost. By hand,
  // κ = (r√T/ε)·√(16ε + 32 log(1/δ)) = √10·√(32 log 1e5)/1e-300.
  const auto s = setting(0.0, 1.0, 10);
  const double by_hand = std::sqrt(10.0) * std::sqrt(32 * std::log(1e5)) / 1e-300;
  const auto d9 = acc::calibrate_correlated(s, 1e-300, 1e-5, M::d9);
  CHECK(d9.noise_multiplier == Approx(by_hand).epsilon(1e-12));
  // eq. (19) cannot certify such an ε (its κ → ∞ limit is ~1e-3): said, not thrown.
  const auto eq19 = acc::calibrate_correlated(s, 1e-300, 1e-5, M::d9_eq19);
  CHECK_FALSE(eq19.attainable);
  CHECK(eq19.certified_epsilon > 1e-300);
  // An ordinary ε keeps the formula as it was.
  const double r2T = 10.0;
  CHECK(acc::calibrate_correlated(s, 1.0, 1e-5, M::d9).noise_multiplier ==
        std::sqrt(16 * r2T / 1.0 + 32 * r2T * std::log(1 / 1e-5) / 1.0));
}

TEST_CASE("F.9's certified delta is never 0 where it is positive but below the doubles",
          "[accounting][correlated]") {
  // At q = 1 every split's tail is 0 and delta is the Gaussian hockey stick of the whole run,
  // h_eps(mu) with log h ~ -eps^2/(2 mu^2): at eps = 1e4 and noise multiplier 1 far below the
  // doubles, and positive. It read 0 (a plain exp of the closed form); it is now the certified
  // upper end rounded up: the smallest positive double, not 0.
  const auto s = setting(0.5, 1.0, 10);
  for (const auto kind : {acc::f9_sensitivity::spectral, acc::f9_sensitivity::row_sum}) {
    const acc::f9_bound b = acc::f9_delta(s, 1.0, 1e4, kind);
    CAPTURE(b.delta, b.split);
    CHECK(b.delta > 0);
    CHECK(b.delta <= 1e-300);
  }
}
