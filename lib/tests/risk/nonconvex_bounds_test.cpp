// SWX+23's Part I/II bounds (risk/nonconvex_bounds.hpp). Each function is checked against an
// independent source: hand values, the formula re-derived here in a different arrangement (the
// phase sum as a direct loop over i = 1..k from n, η alone), the regime switches as roots of
// "rate A = rate B" found by TOMS 748, optima as numerical minima (Brent), the Gaussian
// mechanism against the exact (ε, δ) curve of the Gaussian mechanism (Balle & Wang 2018,
// Thm 8), Lemma 3 pointwise by quadrature-free closed forms, the Moreau prox by bisection and
// Algorithm 4 re-implemented here (Lemma 6). Then monotonicity, condition flags, bad input.
//
// Tolerances: closed forms evaluated in a different order agree to a few ulp per operation;
// kRel = 1e-12 covers the longest formula. Numerical roots/minima carry their own tolerance
// (stated at each use).
#include "dpkit/risk/nonconvex_bounds.hpp"

#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/roots.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpkit/core/random.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using dpkit::risk::bound_status;
using dpkit::risk::glm_phase;
using dpkit::risk::glm_problem;
using dpkit::risk::nonconvex_hidden_constants;
using dpkit::risk::risk_bound;
namespace risk = dpkit::risk;

namespace {

constexpr double kNonconvexRel = 1e-12;
using dpkit::test::kNan;
using dpkit::test::kInf;

glm_problem problem(long long n, double theta, double epsilon, double delta) {
  glm_problem p;
  p.examples = n;
  p.theta = theta;
  p.epsilon = epsilon;
  p.delta = delta;
  p.W = 1;
  p.G = 0.25;
  p.B = 1;
  return p;
}

double Phi(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// Exact δ(ε) of the Gaussian mechanism with sensitivity Δ and std σ (Balle & Wang 2018, Thm 8).
double gaussian_delta(double Delta, double sigma, double eps) {
  const double a = Delta / (2 * sigma), b = eps * sigma / Delta;
  return Phi(a - b) - std::exp(eps) * Phi(-a - b);
}

double sigmoid(double a) {
  return 1 / (1 + std::exp(-a));
}

// Root of h′(u) = σ(u) − y + β(u − m) by bisection (h′ strictly increasing).
double prox_bisection(double y, double beta, double m) {
  double lo = m - 10 / beta, hi = m + 10 / beta;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (sigmoid(mid) - y + beta * (mid - m) > 0 ? hi : lo) = mid;
  }
  return 0.5 * (lo + hi);
}

// Algorithm 4 for the sigmoid surrogate, written out from SWX+23 Alg 4 (typos fixed as
// docs/nonconvex.md lists them).
double alg4_u_bar(double y, double beta, double m, double B, long long T) {
  const double lo = m - 4 * B / beta, hi = m + 4 * B / beta;
  double u = m, acc = 0;
  const double Td = static_cast<double>(T);
  for (long long t = 1; t <= T; ++t) {
    const double td = static_cast<double>(t);
    acc += 2 * td / (Td * (Td + 1)) * u;
    const double v = u - 2 / (beta * (td + 1)) * (sigmoid(u) - y + beta * (u - m));
    u = std::min(hi, std::max(lo, v));
  }
  return acc;
}

}  // namespace

TEST_CASE("Lemma 1 Gaussian mechanism sigma: hand value and exact DP", "[nonconvex]") {
  // δ = 1.25 e^{-2}: log(1.25/δ) = 2, σ = Δ·2/ε.
  CHECK_THAT(risk::gaussian_mechanism_sigma(3, 0.5, 1.25 * std::exp(-2.0)), WithinRel(12.0, kNonconvexRel));
  // The lemma's σ is (ε, δ)-DP for ε < 1: the exact δ(ε) of that Gaussian mechanism is ≤ δ.
  for (double eps : {0.05, 0.3, 0.7, 0.99})
    for (double delta : {1e-10, 1e-5, 1e-2, 0.3}) {
      const double s = risk::gaussian_mechanism_sigma(1, eps, delta);
      CAPTURE(eps, delta, s);
      CHECK(gaussian_delta(1, s, eps) <= delta);
    }
  // Scale invariance: σ ∝ Δ.
  CHECK_THAT(risk::gaussian_mechanism_sigma(2.5, 0.3, 1e-5),
             WithinRel(2.5 * risk::gaussian_mechanism_sigma(1, 0.3, 1e-5), kNonconvexRel));
  CHECK(risk::gaussian_mechanism_sigma(0, 0.3, 1e-5) == 0);
  REQUIRE_THROWS_AS(risk::gaussian_mechanism_sigma(-1, 0.5, 1e-5), std::domain_error);
  REQUIRE_THROWS_AS(risk::gaussian_mechanism_sigma(1, 0, 1e-5), std::domain_error);
  REQUIRE_THROWS_AS(risk::gaussian_mechanism_sigma(1, 0.5, 1), std::domain_error);
  REQUIRE_THROWS_WITH(risk::gaussian_mechanism_sigma(1, kNan, 1e-5),
                      Contains("gaussian_mechanism_sigma: epsilon is nan, but must be"));
}

TEST_CASE("Lemma 3 and Lemma 7 constants", "[nonconvex]") {
  CHECK(risk::surrogate_risk_factor(0.25) == 0.5);
  CHECK_THAT(risk::surrogate_excess_to_risk(0.25, 0.3), WithinRel(0.15, kNonconvexRel));
  // Lemma 3 pointwise for the sigmoid (G = 1/4), from the closed-form Bregman divergence of
  // Λ(a) = log(1 + e^a): (σ(a) − σ(b))² ≤ 2G (Λ(a) − Λ(b) − σ(b)(a − b)) on a grid.
  const double G = 0.25;
  double worst = kInf;
  for (double a = -8; a <= 8; a += 0.37)
    for (double b = -8; b <= 8; b += 0.41) {
      const double bregman =
          std::log1p(std::exp(a)) - std::log1p(std::exp(b)) - sigmoid(b) * (a - b);
      const double gap = sigmoid(a) - sigmoid(b);
      const double rhs = risk::surrogate_excess_to_risk(G, std::max(bregman, 0.0));
      worst = std::min(worst, rhs - gap * gap);
    }
  CHECK(worst >= -1e-15);
  // Lemma 7 by hand: G = 1/4, M = 0.1: factor 1, floor 2/16·0.01 + 0.1 = 0.10125.
  const risk::kernel_surrogate_constants k = risk::kernel_surrogate_lemma(0.25, 0.1);
  CHECK(k.factor == 1.0);
  CHECK_THAT(k.floor, WithinRel(0.10125, kNonconvexRel));
  CHECK_THAT(risk::kernel_surrogate_excess_to_risk(0.25, 0.1, 0.2), WithinRel(0.30125, kNonconvexRel));
  CHECK(risk::kernel_surrogate_lemma(2, 0).floor == 0);
  REQUIRE_THROWS_AS(risk::surrogate_risk_factor(0), std::domain_error);
  REQUIRE_THROWS_AS(risk::surrogate_excess_to_risk(0.25, -0.1), std::domain_error);
  REQUIRE_THROWS_AS(risk::kernel_surrogate_lemma(0.25, -1), std::domain_error);
  REQUIRE_THROWS_AS(risk::kernel_surrogate_excess_to_risk(0.25, kNan, 0.1), std::domain_error);
  // A negative surrogate excess is legitimate when M > 0: 4G·s + 2G²M² + 4GM by hand.
  CHECK_THAT(risk::kernel_surrogate_excess_to_risk(0.25, 0.1, -0.02), WithinRel(0.08125, kNonconvexRel));
  REQUIRE_THROWS_AS(risk::kernel_surrogate_excess_to_risk(0.25, 0.1, kNan), std::domain_error);
}

TEST_CASE("Lemmas 4 to 6 Moreau envelope and oracle constants", "[nonconvex]") {
  CHECK_THAT(risk::moreau_sandwich_gap(2, 4), WithinRel(0.5, kNonconvexRel));
  CHECK(risk::moreau_envelope_lipschitz(3) == 6);
  CHECK_THAT(risk::moreau_surrogate_gap(1.5, 3), WithinRel(1.5, kNonconvexRel));
  // Lemma 5 is Lemma 4 (c) with the surrogate's Lipschitz constant 2B.
  CHECK_THAT(risk::moreau_surrogate_gap(0.7, 2.3),
             WithinRel(risk::moreau_sandwich_gap(1.4, 2.3), kNonconvexRel));
  CHECK_THAT(risk::prox_localisation_radius(1, 8), WithinRel(0.5, kNonconvexRel));
  // T_o(γ) = ⌈144B²/γ²⌉ by hand.
  CHECK(risk::gradient_oracle_steps(1, 0.5) == 576);
  CHECK(risk::gradient_oracle_steps(1, 0.7) == 294);  // 144/0.49 = 293.88
  CHECK(risk::gradient_oracle_steps(0.5, 12) == 1);
  const risk::oracle_error e = risk::gradient_oracle_error(1, 2, 576);
  CHECK_THAT(e.gradient_error, WithinRel(0.5, kNonconvexRel));
  CHECK_THAT(e.iterate_error, WithinRel(0.25, kNonconvexRel));
  CHECK_THAT(e.objective_gap, WithinRel(72.0 / (2 * 577), kNonconvexRel));
  // The chain of the proof: β/2·|ū − u*|² ≤ gap ⇒ |ū − u*| ≤ √(2 gap/β) ≤ iterate_error.
  CHECK(std::sqrt(2 * e.objective_gap / 2) <= e.iterate_error);
  // For every γ the prescribed T_o meets the accuracy γ.
  for (double g : {0.01, 0.1, 0.33, 1.0, 2.0})
    CHECK(risk::gradient_oracle_error(1, 1, risk::gradient_oracle_steps(1, g)).gradient_error <= g);

  // Sigmoid surrogate g^y(u) = log(1 + e^u) − yu with y ∈ [0, 1]: B = 1, Lipschitz 1 ≤ 2B.
  // Prox localisation (bisection root) and Lemma 6 for Algorithm 4 written out above.
  dpkit::random_stream s(2026, 0, 0);
  double worst_loc = kInf, worst_oracle = kInf;
  for (int trial = 0; trial < 200; ++trial) {
    const double y = s.uniform(), m = s.uniform(-6, 6), beta = std::exp(s.uniform(-2, 3));
    const double u_star = prox_bisection(y, beta, m);
    worst_loc = std::min(worst_loc, risk::prox_localisation_radius(1, beta) - std::abs(u_star - m));
    const long long T = 1 + static_cast<long long>(s.uniform(0, 400));
    const double u_bar = alg4_u_bar(y, beta, m, 1, T);
    // |x β(m − ū) − x β(m − u*)| with ‖x‖ = 1.
    const double err = beta * std::abs(u_bar - u_star);
    worst_oracle =
        std::min(worst_oracle, risk::gradient_oracle_error(1, beta, T).gradient_error - err);
    // Lemma 4 (c) with ℓ = g^y (Lipschitz ≤ 1): envelope at the prox.
    const double g_m = std::log1p(std::exp(m)) - y * m;
    const double env =
        std::log1p(std::exp(u_star)) - y * u_star + beta / 2 * (u_star - m) * (u_star - m);
    CHECK(env <= g_m + 1e-12);
    CHECK(g_m <= env + risk::moreau_sandwich_gap(1, beta) + 1e-12);
  }
  CHECK(worst_loc > 0);
  CHECK(worst_oracle >= 0);

  REQUIRE_THROWS_AS(risk::moreau_sandwich_gap(1, 0), std::domain_error);
  REQUIRE_THROWS_AS(risk::moreau_surrogate_gap(0, 1), std::domain_error);
  REQUIRE_THROWS_AS(risk::prox_localisation_radius(1, -1), std::domain_error);
  REQUIRE_THROWS_AS(risk::gradient_oracle_steps(1, 0), std::domain_error);
  REQUIRE_THROWS_AS(risk::gradient_oracle_steps(1, 1e-12), std::domain_error);
  REQUIRE_THROWS_AS(risk::gradient_oracle_error(1, 1, 0), std::domain_error);
}

TEST_CASE("Sensitivities and noise scales of Algorithms 2 to 8", "[nonconvex]") {
  const double ld = std::log(1 / 1e-5), l2d = std::log(2 / 1e-5);
  CHECK_THAT(risk::phased_sgd_sensitivity(1, 0.25), WithinRel(1.0, kNonconvexRel));
  CHECK_THAT(risk::phased_sgd_noise(2, 0.25, 0.5, 1e-5), WithinRel(8 * std::sqrt(ld), kNonconvexRel));
  CHECK_THAT(risk::jl_phased_sgd_noise(2, 0.25, 0.5, 1e-5), WithinRel(16 * std::sqrt(l2d), kNonconvexRel));
  CHECK_THAT(risk::moreau_phased_sgd_noise(1, 0.1, 1, 1e-5), WithinRel(std::sqrt(ld), kNonconvexRel));
  CHECK_THAT(risk::jl_moreau_phased_sgd_noise(1, 0.1, 1, 1e-5),
             WithinRel(2 * std::sqrt(l2d), kNonconvexRel));
  CHECK_THAT(risk::moreau_phased_sgd_sensitivity(2, 0.1), WithinRel(1.0, kNonconvexRel));
  // Alg 5: 4Bη + γη(n + 1) ≤ 5Bη exactly when γ(n + 1) ≤ B.
  CHECK(risk::moreau_phased_sgd_sensitivity_proof(1, 0.1, 1.0 / 101, 100) <=
        risk::moreau_phased_sgd_sensitivity(1, 0.1) * (1 + 1e-15));
  CHECK(risk::moreau_phased_sgd_sensitivity_proof(1, 0.1, 1.1 / 101, 100) >
        risk::moreau_phased_sgd_sensitivity(1, 0.1));
  // Alg 2's τ_i covers Lemma 1 with Δ = 4Bη_i iff 2 log(1/δ) ≥ log(1.25/δ), i.e. δ ≤ 0.8.
  for (double delta : {1e-9, 1e-3, 0.5, 0.79})
    CHECK(risk::phased_sgd_noise(1, 0.1, 0.5, delta) >=
          risk::gaussian_mechanism_sigma(risk::phased_sgd_sensitivity(1, 0.1), 0.5, delta));
  CHECK(risk::phased_sgd_noise(1, 0.1, 0.5, 0.81) <
        risk::gaussian_mechanism_sigma(risk::phased_sgd_sensitivity(1, 0.1), 0.5, 0.81));
  // Alg 7: Δ = 4(4W + B)/n and σ² = Δ²·2T log(2/δ)/ε² (32 = 16·2).
  CHECK_THAT(risk::relu_gd_sensitivity(1, 1, 100), WithinRel(0.2, kNonconvexRel));
  const double D = risk::relu_gd_sensitivity(0.7, 1.3, 250);
  CHECK_THAT(risk::relu_gd_noise_variance(0.7, 1.3, 40, 250, 0.6, 1e-4),
             WithinRel(D * D * 2 * 40 * std::log(2 / 1e-4) / (0.36), kNonconvexRel));
  // Alg 8: printed value is a variance; its std is Lemma 1 at the printed sensitivity
  // 2(√d‖w‖ + B)/m; the corrected sensitivity has the extra √d.
  const risk::adaptive_gd_noise a = risk::adaptive_gd_noise_scale(0.5, 16, 1, 50, 0.8, 1e-5);
  CHECK_THAT(a.printed, WithinRel(8 * 9.0 * std::log(1.25e5) / (2500 * 0.64), kNonconvexRel));
  CHECK_THAT(a.printed_std * a.printed_std, WithinRel(a.printed, kNonconvexRel));
  CHECK_THAT(a.printed_sensitivity, WithinRel(2 * 3.0 / 50, kNonconvexRel));
  CHECK_THAT(a.printed_std,
             WithinRel(risk::gaussian_mechanism_sigma(a.printed_sensitivity, 0.8, 1e-5), kNonconvexRel));
  CHECK_THAT(a.corrected_sensitivity, WithinRel(4 * a.printed_sensitivity, kNonconvexRel));
  CHECK_THAT(a.corrected_std, WithinRel(4 * a.printed_std, kNonconvexRel));
  CHECK_THAT(a.text_sensitivity, WithinRel(3.0, kNonconvexRel));

  REQUIRE_THROWS_AS(risk::phased_sgd_noise(1, 0.1, 0.5, 0), std::domain_error);
  REQUIRE_THROWS_AS(risk::phased_sgd_sensitivity(1, -0.1), std::domain_error);
  REQUIRE_THROWS_AS(risk::relu_gd_sensitivity(1, 1, 0), std::domain_error);
  REQUIRE_THROWS_AS(risk::relu_gd_noise_variance(1, 1, 0, 10, 1, 0.1), std::domain_error);
  REQUIRE_THROWS_AS(risk::adaptive_gd_noise_scale(-1, 4, 1, 10, 1, 0.1), std::domain_error);
  REQUIRE_THROWS_AS(risk::moreau_phased_sgd_sensitivity_proof(1, 0.1, -1, 10), std::domain_error);
}

TEST_CASE("Algorithm 1 and Algorithm 9 switches are the rate crossings", "[nonconvex]") {
  for (double theta : {1.0, 4.0, 30.0})
    for (long long n : {100LL, 5000LL}) {
      const double nn = static_cast<double>(n);
      // √θ/(nε) − (nε)^{−2/3} changes sign once in ε.
      auto f1 = [&](double eps) {
        return std::log(std::sqrt(theta) / (nn * eps)) - std::log(std::pow(nn * eps, -2.0 / 3));
      };
      auto f9 = [&](double eps) {
        return std::log(std::sqrt(theta) / (nn * eps)) - std::log(1 / std::sqrt(nn * eps));
      };
      boost::math::tools::eps_tolerance<double> tol(50);
      std::uintmax_t it = 200;
      const auto r1 = boost::math::tools::toms748_solve(f1, 1e-12, 1e12, tol, it);
      it = 200;
      const auto r9 = boost::math::tools::toms748_solve(f9, 1e-12, 1e12, tol, it);
      CAPTURE(theta, n);
      CHECK_THAT(risk::nonconvex_glm_switch_epsilon(theta, n), WithinRel(r1.first, 1e-10));
      CHECK_THAT(risk::kernel_glm_switch_epsilon(theta, n), WithinRel(r9.first, 1e-10));
      // The dispatcher's rate picks the smaller branch on each side of the switch.
      const double e1 = risk::nonconvex_glm_switch_epsilon(theta, n);
      glm_problem above = problem(n, theta, std::min(0.999, 1.5 * e1), 1e-5);
      glm_problem below = problem(n, theta, e1 / 1.5, 1e-5);
      if (above.epsilon > e1) {
        CHECK_THAT(risk::nonconvex_glm_rate(above).terms[1].name, Contains("Alg 2 branch"));
        CHECK_THAT(risk::nonconvex_glm_rate(above).terms[1].value,
                   WithinRel(std::sqrt(theta * std::log(1e5)) / (nn * above.epsilon), kNonconvexRel));
      }
      CHECK_THAT(risk::nonconvex_glm_rate(below).terms[1].name, Contains("Alg 3 branch"));
      CHECK_THAT(risk::nonconvex_glm_rate(below).terms[1].value,
                 WithinRel(std::sqrt(std::log(1e5)) / std::pow(nn * below.epsilon, 2.0 / 3), kNonconvexRel));
    }
  REQUIRE_THROWS_AS(risk::nonconvex_glm_switch_epsilon(0, 10), std::domain_error);
  REQUIRE_THROWS_AS(risk::kernel_glm_switch_epsilon(1, 0), std::domain_error);
}

TEST_CASE("Algorithm 2 schedule and the phase-sum inequality", "[nonconvex]") {
  // Schedule: n = 100 → k = ⌊log₂ 100⌋ = 6, n_i = 50, 25, 12, 6, 3, 1.
  const std::vector<glm_phase> s = risk::phased_sgd_schedule(100, 0.8, 1, 0.5, 1e-5);
  REQUIRE(s.size() == 6);
  const long long sizes[] = {50, 25, 12, 6, 3, 1};
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(s[i].index == static_cast<long long>(i + 1));
    CHECK(s[i].size == sizes[i]);
    CHECK_THAT(s[i].eta, WithinRel(0.8 / std::pow(4.0, static_cast<double>(i + 1)), kNonconvexRel));
    CHECK_THAT(s[i].tau, WithinRel(risk::phased_sgd_noise(1, s[i].eta, 0.5, 1e-5), kNonconvexRel));
  }
  CHECK(risk::phased_sgd_schedule(64, 1, 1, 1, 0.1).size() == 6);
  CHECK(risk::phased_sgd_schedule(64, 1, 1, 1, 0.1).back().size == 1);
  CHECK(risk::phased_sgd_schedule(2, 1, 1, 1, 0.1).size() == 1);
  CHECK(risk::phased_sgd_schedule(127, 1, 1, 1, 0.1).size() == 6);
  CHECK(risk::phased_sgd_schedule(128, 1, 1, 1, 0.1).size() == 7);
  CHECK_THAT(risk::jl_phased_sgd_schedule(100, 0.8, 1, 0.5, 1e-5)[2].tau,
             WithinRel(risk::jl_phased_sgd_noise(1, 0.8 / 64, 0.5, 1e-5), kNonconvexRel));

  // Hand value: n = 4, η = 1, B = 1, θ = 1, ε = 1, δ = 1/e, D0 = 1: η_1 = 1/4, n_1 = 2, τ_1 = 2;
  // η_2 = 1/16, n_2 = 1, τ_2 = 1/2. Terms 1, 32, 0.625, 1.
  glm_problem p = problem(4, 1, 1, std::exp(-1.0));
  const risk::phase_sum_bound h = risk::phased_sgd_phase_sum(p, 1, 1);
  REQUIRE(h.terms.size() == 4);
  CHECK_THAT(h.terms[0].value, WithinRel(1.0, kNonconvexRel));
  CHECK_THAT(h.terms[1].value, WithinRel(32.0, kNonconvexRel));
  CHECK_THAT(h.terms[2].value, WithinRel(0.625, kNonconvexRel));
  CHECK_THAT(h.terms[3].value, WithinRel(1.0, kNonconvexRel));
  CHECK_THAT(h.value, WithinRel(34.625, kNonconvexRel));
  CHECK_THAT(h.excess_risk, WithinRel(0.5 * 34.625, kNonconvexRel));
  CHECK(h.status == bound_status::explicit_bound);
  CHECK(h.label == "explicit bound");

  // Against a direct loop from (n, η, B, θ, ε, δ, D0) alone, i = 1..k while 2^i ≤ n.
  for (long long n : {2LL, 3LL, 17LL, 100LL, 1000LL, 65536LL})
    for (double eta : {0.05, 1.0, 7.0}) {
      const double theta = 3, eps = 0.4, delta = 1e-6, B = 1.7, D0 = 0.9;
      glm_problem q = problem(n, theta, eps, delta);
      q.B = B;
      double rhs = 0, tau_prev = 0, tau_last = 0;
      long long pow2 = 2;
      for (int i = 1; pow2 <= n; ++i, pow2 *= 2) {
        const double eta_i = eta * std::pow(0.25, i);
        const double n_i = std::floor(static_cast<double>(n) / static_cast<double>(pow2));
        const double tau_i = 8 * B * eta_i * std::sqrt(-std::log(delta)) / eps;
        rhs += (i == 1 ? D0 * D0 : theta * tau_prev * tau_prev) / (2 * eta_i * n_i);
        rhs += 2 * B * B * eta_i;
        tau_prev = tau_last = tau_i;
      }
      rhs += 2 * B * tau_last;
      CAPTURE(n, eta);
      const risk::phase_sum_bound b = risk::phased_sgd_phase_sum(q, eta, D0);
      CHECK_THAT(b.value, WithinRel(rhs, kNonconvexRel));
      CHECK_THAT(b.excess_risk, WithinRel(2 * q.G * rhs, kNonconvexRel));
    }

  // The closed-form approximation is the exact sum in the limit (n a large power of 2: the
  // neglected parts are 4^{−k}, 2^{1−k} relative).
  glm_problem big = problem(1LL << 20, 5, 0.3, 1e-5);
  const risk::phase_sum_bound exact = risk::phased_sgd_phase_sum(big, 0.2, 1.3);
  const risk::phase_sum_approximation approx =
      risk::phased_sgd_phase_sum_approximation(big, 0.2, 1.3);
  CHECK_THAT(approx.value, WithinRel(exact.value, 1e-5));
  CHECK_THAT(approx.terms[0].value, WithinRel(exact.terms[0].value, kNonconvexRel));
  CHECK_THAT(approx.terms[2].value, WithinRel(exact.terms[3].value, kNonconvexRel));
  CHECK_THAT(approx.label, Contains("not a bound"));
  // η* minimises the first two terms (Brent in log η).
  auto f = [&](double log_eta) {
    const risk::phase_sum_approximation a =
        risk::phased_sgd_phase_sum_approximation(big, std::exp(log_eta), 1.3);
    return a.terms[0].value + a.terms[1].value;
  };
  const auto m = boost::math::tools::brent_find_minima(f, -20.0, 5.0, 40);
  CHECK_THAT(approx.eta_star, WithinRel(std::exp(m.first), 1e-5));
  CHECK_THAT(approx.value_at_eta_star, WithinRel(m.second, 1e-9));

  // Monotone: the bound grows with θ, D0, 1/ε.
  CHECK(risk::phased_sgd_phase_sum(problem(1000, 4, 0.5, 1e-5), 0.5, 1).value >
        risk::phased_sgd_phase_sum(problem(1000, 2, 0.5, 1e-5), 0.5, 1).value);
  CHECK(risk::phased_sgd_phase_sum(problem(1000, 2, 0.25, 1e-5), 0.5, 1).value >
        risk::phased_sgd_phase_sum(problem(1000, 2, 0.5, 1e-5), 0.5, 1).value);
  CHECK(risk::phased_sgd_phase_sum(problem(1000, 2, 0.5, 1e-5), 0.5, 2).value >
        risk::phased_sgd_phase_sum(problem(1000, 2, 0.5, 1e-5), 0.5, 1).value);

  REQUIRE_THROWS_AS(risk::phased_sgd_schedule(1, 1, 1, 1, 0.1), std::domain_error);
  REQUIRE_THROWS_AS(risk::phased_sgd_schedule(10, 0, 1, 1, 0.1), std::domain_error);
  REQUIRE_THROWS_AS(risk::phase_sum_inequality({}, 1, 1, 1, 1), std::domain_error);
  std::vector<glm_phase> bad = s;
  bad[2].size = 0;
  REQUIRE_THROWS_AS(risk::phase_sum_inequality(bad, 1, 1, 1, 1), std::domain_error);
  REQUIRE_THROWS_AS(risk::phase_sum_inequality(s, -1, 1, 1, 1), std::domain_error);
  REQUIRE_THROWS_AS(risk::phase_sum_inequality(s, 1, 1, 1, kNan), std::domain_error);
  REQUIRE_THROWS_AS(risk::phased_sgd_phase_sum(problem(100, 0.5, 1, 0.1), 1, 1),
                    std::domain_error);  // θ < 1
}

TEST_CASE("Theorem 1 2 4 5 6 8 rates up to constants", "[nonconvex]") {
  const glm_problem p = problem(10000, 9, 0.5, 1e-5);
  const double ld = std::log(1e5);
  const risk_bound t1 = risk::phased_sgd_rate(p);
  CHECK(t1.status == bound_status::up_to_constants);
  CHECK_THAT(t1.value, WithinRel(0.01 + std::sqrt(9 * ld) / 5000, kNonconvexRel));
  nonconvex_hidden_constants c;
  c.bound = 3;
  CHECK_THAT(risk::phased_sgd_rate(p, kNan, c).value, WithinRel(3 * t1.value, kNonconvexRel));
  // Conditions: η ≤ 2/G = 8 and ε < 1.
  CHECK(risk::phased_sgd_rate(p, 8.0).status == bound_status::up_to_constants);
  CHECK(risk::phased_sgd_rate(p, 8.5).status == bound_status::condition_violated);
  CHECK_THAT(risk::phased_sgd_rate(p, 8.5).label, Contains("eta <= 2/G"));
  CHECK(risk::phased_sgd_rate(problem(100, 1, 1, 0.1)).status == bound_status::condition_violated);
  // Monotone in n, ε (down) and θ (up).
  CHECK(risk::phased_sgd_rate(problem(20000, 9, 0.5, 1e-5)).value < t1.value);
  CHECK(risk::phased_sgd_rate(problem(10000, 9, 0.6, 1e-5)).value < t1.value);
  CHECK(risk::phased_sgd_rate(problem(10000, 16, 0.5, 1e-5)).value > t1.value);
  CHECK_THAT(risk::phased_sgd_step_size(p),
             WithinRel(std::min(0.5 / std::sqrt(9 * ld), 0.01), kNonconvexRel));

  const risk_bound t2 = risk::jl_phased_sgd_rate(p);
  CHECK_THAT(t2.value, WithinRel(std::sqrt(ld) / std::pow(5000.0, 2.0 / 3) + 0.01, kNonconvexRel));
  CHECK(risk::jl_phased_sgd_rate(p, 2.0).status == bound_status::up_to_constants);
  CHECK(risk::jl_phased_sgd_rate(p, 2.1).status == bound_status::condition_violated);
  CHECK_THAT(risk::jl_dimension(p), WithinRel(std::log(1e9) * std::pow(5000.0, 2.0 / 3), kNonconvexRel));
  CHECK_THAT(risk::jl_moreau_phased_sgd_rate(p).value, WithinRel(t2.value, kNonconvexRel));
  CHECK_THAT(risk::relu_projected_gd_rate(p).value, WithinRel(t2.value, kNonconvexRel));
  CHECK_THAT(risk::moreau_phased_sgd_rate(p).value, WithinRel(t1.value, kNonconvexRel));
  CHECK(risk::moreau_phased_sgd_rate(problem(100, 1, 1, 0.1)).status ==
        bound_status::up_to_constants);  // Thm 4 allows ε = 1

  // Thm 4 proof form: the Moreau bias G B²/β with β = √n B/W².
  const risk_bound t4 = risk::moreau_phased_sgd_proof_bound(p);
  CHECK_THAT(t4.terms[2].value, WithinRel(0.25 / 100, kNonconvexRel));
  CHECK_THAT(risk::moreau_phased_sgd_proof_bound(p, 50).terms[2].value, WithinRel(0.005, kNonconvexRel));
  const risk::moreau_parameters mp = risk::moreau_phased_sgd_parameters(p);
  CHECK_THAT(mp.beta, WithinRel(100.0, kNonconvexRel));
  CHECK_THAT(mp.gamma, WithinRel(1 / (10000 * std::log(10000.0)), kNonconvexRel));
  CHECK(mp.oracle_steps == static_cast<long long>(std::ceil(144 / (mp.gamma * mp.gamma))));
  CHECK(mp.eta_le_2_over_beta == (mp.eta <= 0.02));

  // Thm 8: branch switch at ε = θ/n, floor M² + M.
  glm_problem k = problem(10000, 9, 0.5, 1e-5);
  k.M = 0.1;
  const risk_bound t8 = risk::kernel_glm_rate(k);
  CHECK_THAT(t8.terms[0].name, Contains("Alg 2 branch"));
  CHECK_THAT(t8.terms[2].value, WithinRel(0.11, kNonconvexRel));
  k.epsilon = 0.0005;  // < θ/n = 9e-4
  CHECK_THAT(risk::kernel_glm_rate(k).terms[0].name, Contains("Alg 3 branch"));
  CHECK_THAT(risk::kernel_glm_rate(k).terms[0].value,
             WithinRel(std::sqrt(ld) / std::sqrt(5.0), kNonconvexRel));

  glm_problem bad = p;
  bad.examples = 0;
  REQUIRE_THROWS_AS(risk::phased_sgd_rate(bad), std::domain_error);
  bad = p;
  bad.delta = 1;
  REQUIRE_THROWS_AS(risk::jl_phased_sgd_rate(bad), std::domain_error);
  bad = p;
  bad.theta = kNan;
  REQUIRE_THROWS_AS(risk::moreau_phased_sgd_rate(bad), std::domain_error);
  c.bound = 0;
  REQUIRE_THROWS_WITH(risk::phased_sgd_rate(p, kNan, c), Contains("hidden_constants.bound"));
  REQUIRE_THROWS_AS(risk::phased_sgd_rate(p, -1.0), std::domain_error);
}

TEST_CASE("Thm 2 JL dimension and Thm 6 horizon trade-offs", "[nonconvex]") {
  const glm_problem p = problem(20000, 4, 0.5, 1e-5);
  const risk::jl_tradeoff t = risk::jl_dimension_tradeoff(p, 100);
  auto f = [&](double log_m) { return risk::jl_dimension_tradeoff(p, std::exp(log_m)).at_m.value; };
  const auto m = boost::math::tools::brent_find_minima(f, 0.0, 20.0, 40);
  CHECK_THAT(t.m_star, WithinRel(std::exp(m.first), 1e-5));
  CHECK_THAT(t.value_at_m_star, WithinRel(m.second, 1e-9));
  // m* ∝ (nε)^{2/3}: 8 times nε → 4 times m*.
  CHECK_THAT(risk::jl_dimension_tradeoff(problem(160000, 4, 0.5, 1e-5), 100).m_star,
             WithinRel(4 * t.m_star, 1e-12));
  CHECK(t.at_m.status == bound_status::up_to_constants);

  // Thm 6: at T* the optimisation term equals the T-proportional terms (a/T = bT).
  const double eta = 0.01, jl = 50;
  const risk::relu_gd_horizon h = risk::relu_gd_steps(p, jl, eta);
  const risk::relu_gd_horizon h0 = risk::relu_gd_steps(p, jl);
  CHECK(std::isnan(h0.optimal_steps));
  CHECK_THAT(h.theorem_steps, WithinRel(std::min(20000.0, 1e8 / (jl * std::log(1e5))), kNonconvexRel));
  const double a = 1 / eta, b = eta * 4 * (jl * std::log(1e5) / 1e8 + 1 / 20000.0);
  CHECK_THAT(h.optimal_steps, WithinRel(std::sqrt(a / b), kNonconvexRel));
  const auto T = static_cast<long long>(std::llround(h.optimal_steps));
  const risk_bound at = risk::relu_gd_proof_bound(p, T, jl, eta);
  REQUIRE(at.terms.size() == 5);
  CHECK_THAT(at.terms[0].value, WithinRel(at.terms[1].value + at.terms[2].value, 1e-3));
  // U-shape: worse at T*/4 and 4T*.
  const double mid = at.terms[0].value + at.terms[1].value + at.terms[2].value;
  for (long long TT : {T / 4, 4 * T}) {
    const risk_bound o = risk::relu_gd_proof_bound(p, TT, jl, eta);
    CHECK(o.terms[0].value + o.terms[1].value + o.terms[2].value > mid);
  }
  // The proof's η: W/(√T max{W + B, (W + B)√(mT log(1/δ))/(nε)}).
  const risk_bound proof_eta = risk::relu_gd_proof_bound(p, 400, jl);
  const double e = 1 / (20 * std::max(2.0, 2 * std::sqrt(jl * 400 * std::log(1e5)) / 1e4));
  CHECK_THAT(proof_eta.terms[4].value, WithinRel(e * 4, kNonconvexRel));
  CHECK(risk::relu_gd_proof_bound(p, 400, jl, 0.6).status == bound_status::condition_violated);
  REQUIRE_THROWS_AS(risk::relu_gd_proof_bound(p, 0, jl), std::domain_error);
  REQUIRE_THROWS_AS(risk::jl_dimension_tradeoff(p, 0), std::domain_error);
  REQUIRE_THROWS_AS(risk::relu_gd_steps(p, -1), std::domain_error);
}

TEST_CASE("Thm 7 guarantee contraction and sample size, Thms 10 and 11 shapes", "[nonconvex]") {
  const risk_bound g = risk::agnostic_relu_guarantee(0.1, 0.5, 0.05);
  CHECK_THAT(g.value, WithinRel(0.45, kNonconvexRel));
  CHECK(g.status == bound_status::explicit_bound);
  const risk::agnostic_relu_contraction_bound c = risk::agnostic_relu_contraction(0.5, 1.0 / 16);
  CHECK_THAT(c.tau, WithinRel(1.0 / 6, kNonconvexRel));
  CHECK_THAT(c.factor, WithinRel(1 - 1.0 / 192, kNonconvexRel));
  CHECK_THAT(c.noise_coefficient, WithinRel(6.25 / 16, kNonconvexRel));
  CHECK(c.eta_le_1_over_16);
  CHECK_FALSE(risk::agnostic_relu_contraction(0.5, 0.1).eta_le_1_over_16);
  // Exact construction: for x ~ N(0, I), ∇L^ℓ_P(w) = (w − w*_ℓ)/2, so the
  // noiseless population step contracts ‖w − w*_ℓ‖² by (1 − η/2)², which the proof's factor
  // 1 − τη/2 (τ = μ/3, μ = 1/2) must dominate for η ≤ 1/16.
  for (double eta : {1e-4, 0.01, 0.03, 1.0 / 16})
    CHECK((1 - eta / 2) * (1 - eta / 2) <= risk::agnostic_relu_contraction(0.5, eta).factor);
  const risk_bound n7 = risk::agnostic_relu_sample_size(10, 2, 0.5, 1e-5, 0.1, 0.01);
  const double lz = std::log(100.0);
  CHECK_THAT(n7.terms[0].value, WithinRel(10 * 2 * std::sqrt(std::log(1e5) * lz) / 0.05, kNonconvexRel));
  CHECK_THAT(n7.terms[1].value, WithinRel(4 * 10 * std::pow(lz, 4) / 0.01, kNonconvexRel));
  CHECK(n7.value == std::max(n7.terms[0].value, n7.terms[1].value));
  // Linear in d.
  CHECK_THAT(risk::agnostic_relu_sample_size(20, 2, 0.5, 1e-5, 0.1, 0.01).value,
             WithinRel(2 * n7.value, kNonconvexRel));
  CHECK(risk::agnostic_relu_sample_size(10, 0.05, 0.5, 1e-5, 0.1, 0.01).status ==
        bound_status::condition_violated);  // α ≥ ‖w*_ℓ‖

  // Thm 10 (sigmoid): log n affine in log(k/α) for the dominant term; Thm 11 (ReLU): in k/α.
  const auto sig = risk::hidden_activation::sigmoid;
  const auto relu = risk::hidden_activation::relu;
  const double s1 = risk::two_layer_sample_size(sig, 4, 0.1, 1, 1, 0.5, 1e-5).terms[0].value;
  const double s2 = risk::two_layer_sample_size(sig, 8, 0.1, 1, 1, 0.5, 1e-5).terms[0].value;
  CHECK_THAT(s2 / s1, WithinRel(4.0, kNonconvexRel));  // (2)^{2C}, C = 1
  const double r1 = risk::two_layer_sample_size(relu, 4, 0.5, 1, 1, 0.5, 1e-5).terms[0].value;
  const double r2 = risk::two_layer_sample_size(relu, 5, 0.5, 1, 1, 0.5, 1e-5).terms[0].value;
  CHECK_THAT(r2 / r1, WithinRel(16.0, kNonconvexRel));  // 4^{C·Δ(k/α)}, Δ = 2
  REQUIRE_THROWS_AS(risk::agnostic_relu_guarantee(-1, 0.5, 0.1), std::domain_error);
  REQUIRE_THROWS_AS(risk::agnostic_relu_contraction(0, 0.1), std::domain_error);
  REQUIRE_THROWS_AS(risk::agnostic_relu_sample_size(10, 2, 0.5, 1e-5, 0.1, 1), std::domain_error);
  REQUIRE_THROWS_AS(risk::two_layer_sample_size(sig, 0, 0.1, 1, 1, 0.5, 1e-5), std::domain_error);
}
