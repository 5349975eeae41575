// SWX+23's Thm 13 and its App C lemmas (risk/mlp_bounds.hpp). Every term is recomputed here
// from the formula as SWX+23 states it (Alg 10, Thm 13 and Lemmas 18, 23, 25, and the trade-off
// in T derived from them), with numbers worked out by hand; then the derived optimum T* against a
// brute-force grid and Brent's method, the exact exponents of the terms, the C-cancellation of
// Lemma 25, the five printed width conditions, Lemma 23 against Poisson sampling (claim 32), and
// bad input.
//
// Tolerances: library and test evaluate the same closed forms in a different order, so they agree
// to a few ulp per operation; WithinRel(·, 1e-13) covers the longest (~25 operations).
#include "dpkit/risk/mlp_bounds.hpp"

#include <boost/math/tools/minima.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "dpkit/core/random.hpp"
#include "dpkit/sim/statistics.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using Catch::Matchers::WithinRel;
using dpkit::risk::bound_status;
using dpkit::risk::mlp_hidden_constants;
using dpkit::risk::mlp_training;
using dpkit::risk::width_factor;

namespace {

constexpr double kMlpRel = 1e-13;

// A run of Algorithm 10 (n = 10⁴, d = 10, m = 16, L = 3, T = 100, R = 10, C = 1, ε = 0.5,
// δ = 1e-9, q = 0.1).
mlp_training run() {
  mlp_training s;
  s.examples = 10000;
  s.input_dimension = 10;
  s.width = 16;
  s.depth = 3;
  s.steps = 100;
  s.radius = 10;
  s.clip = 1;
  s.epsilon = 0.5;
  s.delta = 1e-9;
  s.sampling_rate = 0.1;
  s.gamma = 0.05;
  s.gamma_batch = 0.05;
  s.xi = std::exp(-1.0);
  return s;
}

}  // namespace

TEST_CASE("mlp bounds: the terms of eq. (7) by hand", "[mlp]") {
  const mlp_training s = run();
  // √(log(1/ξ)/T) at ξ = 1/e, T = 100: √(1/100) = 0.1.
  CHECK_THAT(dpkit::risk::mlp_convergence_term(100, std::exp(-1.0)), WithinRel(0.1, kMlpRel));
  mlp_hidden_constants c;
  c.convergence = 3;
  CHECK_THAT(dpkit::risk::mlp_convergence_term(100, std::exp(-1.0), c), WithinRel(0.3, kMlpRel));
  // Δ = S L^{3/2} R/√T = 3^{3/2}·10/10 = 5.196152422706632.
  CHECK_THAT(dpkit::risk::mlp_optimisation_term(s), WithinRel(5.196152422706632, kMlpRel));
  CHECK_THAT(dpkit::risk::mlp_delta_slack(s), WithinRel(5.196152422706632, kMlpRel));
  // Privacy: S L^{3/2} R max(L, d/m) log(1/γ) log(1/δ) m² √T/(n²ε²)
  //   = 3^{3/2}·10·3·log 20·log 1e9·256·10/(1e8·0.25).
  const double expected =
      std::pow(3.0, 1.5) * 10 * 3 * std::log(20.0) * std::log(1e9) * 256 * 10 / (1e8 * 0.25);
  CHECK_THAT(dpkit::risk::mlp_privacy_term(s), WithinRel(expected, kMlpRel));
  // Sum form: L + d/m = 3.625 instead of max(3, 0.625) = 3.
  CHECK_THAT(dpkit::risk::mlp_privacy_term(s, {}, width_factor::sum_form),
             WithinRel(expected * 3.625 / 3, kMlpRel));
  // With d/m > L the max form switches to d/m: m = 2, d = 10 → max(3, 5) = 5.
  mlp_training narrow = s;
  narrow.width = 2;
  CHECK_THAT(dpkit::risk::mlp_privacy_term(narrow),
             WithinRel(expected * (4.0 / 256) * 5 / 3, kMlpRel));
  // The bound is the sum of its four terms; the approximation term is passed through.
  const auto b = dpkit::risk::mlp_thm13(s, 0.25);
  REQUIRE(b.terms.size() == 4);
  CHECK_THAT(b.value, WithinRel(0.1 + 5.196152422706632 + 0.25 + expected, kMlpRel));
  CHECK(b.terms[2].value == 0.25);
  CHECK(b.source == "SWX+23, Thm 13 eq. (7)");
}

TEST_CASE("mlp bounds: step size, noise, parameter count and the C-cancellation", "[mlp]") {
  mlp_training s = run();
  // η = √L R/(C√(mT)) = √3·10/(1·√1600) = 0.4330127018922193; printed √(LR)/(C√(mT)) =
  // √30/40 = 0.13693063937629152.
  CHECK_THAT(dpkit::risk::mlp_step_size(s), WithinRel(0.4330127018922193, kMlpRel));
  CHECK_THAT(dpkit::risk::mlp_step_size(s, {}, dpkit::risk::step_size_form::printed),
             WithinRel(0.13693063937629152, kMlpRel));
  // σ = c₂ q C √(T log(1/δ))/(|B| ε) = 0.1·√(100·log 1e9)/(1000·0.5).
  CHECK_THAT(dpkit::risk::mlp_paper_noise_std(0.1, 1, 100, 1e-9, 1000, 0.5),
             WithinRel(0.1 * std::sqrt(100 * std::log(1e9)) / 500, kMlpRel));
  // p = md + (L − 2)m² + m = 160 + 256 + 16.
  CHECK(dpkit::risk::mlp_parameter_count(10, 16, 3) == 432);
  CHECK(dpkit::risk::mlp_parameter_count(10, 16, 2) == 176);
  // Lemma 25 with C written out: c_η c₂² S L^{3/2} R p √T log(1/δ)/(2n²ε²), for every C.
  const double closed = std::pow(3.0, 1.5) * 10 * 432 * 10 * std::log(1e9) / (2 * 1e8 * 0.25);
  for (double C : {0.01, 1.0, 7.0, 64.0}) {
    s.clip = C;
    CAPTURE(C);
    CHECK_THAT(dpkit::risk::mlp_lemma25_privacy_error(s), WithinRel(closed, kMlpRel));
  }
  // … and it is the privacy term's m²(L + d/m) → p, without log(1/γ): ratio p/(m²(L + d/m))/2.
  s.clip = 1;
  CHECK_THAT(dpkit::risk::mlp_lemma25_privacy_error(s) /
                 dpkit::risk::mlp_privacy_term(s, {}, width_factor::sum_form),
             WithinRel(432.0 / (256 * 3.625) / (2 * std::log(20.0)), kMlpRel));
  // The privacy regime ε < c₁q²T: q²T = 1 here.
  CHECK(dpkit::risk::mlp_privacy_regime(0.1, 100, 0.5).holds);
  CHECK_FALSE(dpkit::risk::mlp_privacy_regime(0.5, 4, 1.0).holds);  // strict: q²T = 1 exactly
  CHECK(dpkit::risk::mlp_privacy_regime(0.5, 4, 1.0).limit == 1);
}

TEST_CASE("mlp bounds: T* minimises the two-term bound a/sqrt(T) + b sqrt(T)", "[mlp]") {
  const mlp_training s = run();
  for (auto form : {width_factor::max_form, width_factor::sum_form}) {
    const auto t = dpkit::risk::mlp_optimal_steps(s, {}, form);
    // a = √log(1/ξ) + S L^{3/2} R; b = the privacy term at T = 1.
    CHECK_THAT(t.a, WithinRel(1 + std::pow(3.0, 1.5) * 10, kMlpRel));
    mlp_training one = s;
    one.steps = 1;
    CHECK_THAT(t.b, WithinRel(dpkit::risk::mlp_privacy_term(one, {}, form), kMlpRel));
    auto bound = [&](double T) {
      mlp_training at = s;
      at.steps = 1;
      return t.a / std::sqrt(T) + dpkit::risk::mlp_privacy_term(at, {}, form) * std::sqrt(T);
    };
    // Brute force on a log grid with ratio 1.001 over [1, 1e9]: the grid minimum is within a
    // factor 1.001 of T*.
    double best_T = 1, best = bound(1);
    for (double T = 1; T < 1e9; T *= 1.001)
      if (bound(T) < best) best = bound(T), best_T = T;
    CHECK(std::abs(std::log(best_T / t.steps)) <= std::log(1.001));
    CHECK(best >= t.value * (1 - kMlpRel));
    CHECK_THAT(bound(t.steps), WithinRel(t.value, kMlpRel));
    // Brent on log T.
    const auto r = boost::math::tools::brent_find_minima(
        [&](double u) { return bound(std::exp(u)); }, 0.0, std::log(1e9), 40);
    CHECK_THAT(std::exp(r.first), WithinRel(t.steps, 1e-5));
    CHECK(t.label == "up to hidden constants");
  }
  // T* ∝ n²ε²/m² (m ≥ d/L): doubling n multiplies it by 4, doubling m divides it by 4.
  mlp_training s2 = s;
  s2.examples *= 2;
  CHECK_THAT(dpkit::risk::mlp_optimal_steps(s2).steps / dpkit::risk::mlp_optimal_steps(s).steps,
             WithinRel(4.0, kMlpRel));
  s2 = s;
  s2.width *= 2;
  CHECK_THAT(dpkit::risk::mlp_optimal_steps(s).steps / dpkit::risk::mlp_optimal_steps(s2).steps,
             WithinRel(4.0, kMlpRel));
}

TEST_CASE("mlp bounds: exponents of the privacy term (claim 38)", "[mlp]") {
  const mlp_training s = run();
  const double base = dpkit::risk::mlp_privacy_term(s);
  auto ratio = [&](auto&& change) {
    mlp_training t = s;
    change(t);
    return dpkit::risk::mlp_privacy_term(t) / base;
  };
  CHECK_THAT(ratio([](mlp_training& t) { t.width *= 2; }), WithinRel(4.0, kMlpRel));      // m²
  CHECK_THAT(ratio([](mlp_training& t) { t.steps *= 4; }), WithinRel(2.0, kMlpRel));      // √T
  CHECK_THAT(ratio([](mlp_training& t) { t.examples *= 2; }), WithinRel(0.25, kMlpRel));  // n^−2
  CHECK_THAT(ratio([](mlp_training& t) { t.epsilon *= 2; }), WithinRel(0.25, kMlpRel));   // ε^−2
  // Below m = d/L the factor is d/m: the term is ∝ m d (slope 1 in m).
  mlp_training narrow = s;
  narrow.width = 1;
  narrow.input_dimension = 100;
  const double one = dpkit::risk::mlp_privacy_term(narrow);
  narrow.width = 2;
  CHECK_THAT(dpkit::risk::mlp_privacy_term(narrow) / one, WithinRel(2.0, kMlpRel));
  // The convergence and optimisation terms fall like T^{−1/2}.
  mlp_training t4 = s;
  t4.steps *= 4;
  CHECK_THAT(dpkit::risk::mlp_optimisation_term(t4) / dpkit::risk::mlp_optimisation_term(s),
             WithinRel(0.5, kMlpRel));
}

TEST_CASE("mlp bounds: Thm 13's conditions", "[mlp]") {
  // Inside every condition: T = 1 makes m* = 1 (statement form), ε = 0.005 < q²T = 0.01,
  // n = 10⁴ ≥ 2.9e3 (sample-size condition), C = 1 ≤ min(SL√m, R).
  mlp_training s = run();
  s.steps = 1;
  s.epsilon = 0.005;
  const auto ok = dpkit::risk::mlp_thm13(s, 0.1);
  for (const auto& c : ok.conditions) {
    CAPTURE(c.name, c.value, c.limit);
    CHECK(c.holds);
  }
  CHECK(ok.status == bound_status::up_to_constants);
  CHECK(ok.label == "up to hidden constants");
  // The sample-size condition by hand: C(√(Lm) + √(md))√(T log(1/γ) log(1/δ))/(Rε).
  const double n_needed = (std::sqrt(48.0) + std::sqrt(160.0)) *
                          std::sqrt(std::log(20.0) * std::log(1e9)) / (10 * 0.005);
  bool found = false;
  for (const auto& c : ok.conditions)
    if (c.name.find("n >= c_n") == 0) {
      found = true;
      CHECK_THAT(c.limit, WithinRel(n_needed, kMlpRel));
    }
  CHECK(found);
  // Violations are flagged by name: C > R, ε > 1 and δ > 1/n².
  s.clip = 20;
  s.epsilon = 2;
  s.delta = 1e-3;
  const auto bad = dpkit::risk::mlp_thm13(s, 0.1);
  CHECK(bad.status == bound_status::condition_violated);
  CHECK_THAT(bad.label, StartsWith("condition violated: "));
  CHECK_THAT(bad.label, Contains("C <= c_clip"));
  CHECK_THAT(bad.label, Contains("eps <= 1"));
  CHECK_THAT(bad.label, Contains("delta <= 1/n^2"));
  CHECK_THAT(bad.label, Contains("eps < c_1 q^2 T"));
}

TEST_CASE("mlp bounds: the five printed width conditions and their T, C powers", "[mlp]") {
  const mlp_training s = run();
  const auto w = dpkit::risk::mlp_width_conditions(s);
  REQUIRE(w.size() == 5);
  // 0. Thm 13 statement, Poly := 1: T⁷C^{−8}[log(1/ξ)]³ = 100⁷ at C = 1, ξ = 1/e.
  CHECK_THAT(w[0].limit, WithinRel(1e14, kMlpRel));
  CHECK_FALSE(w[0].holds);
  CHECK(w[0].value == 16);
  // 3. (log m)³ L¹² R² T³ = (log 16)³·3¹²·100·10⁶.
  CHECK_THAT(w[3].limit, WithinRel(std::pow(std::log(16.0), 3) * 531441.0 * 1e8, kMlpRel));
  // 4. (R S^{3/4} L^{9/4} Δ^{3/4})⁸ = R⁸ S⁶ L¹⁸ Δ⁶, Δ = 3^{3/2}·10/10.
  CHECK_THAT(w[4].limit,
             WithinRel(1e8 * std::pow(3.0, 18) * std::pow(std::pow(3.0, 1.5), 6), 1e-12));
  // Versions 0–2 all scale as T⁷C^{−8} (Δ^{−14} ∝ T⁷); version 4 as Δ⁶ ∝ T^{−3}.
  mlp_training t2 = s;
  t2.steps *= 2;
  const auto w2 = dpkit::risk::mlp_width_conditions(t2);
  for (int k : {0, 1, 2}) CHECK_THAT(w2[k].limit / w[k].limit, WithinRel(128.0, 1e-12));
  CHECK_THAT(w2[3].limit / w[3].limit, WithinRel(8.0, 1e-12));
  CHECK_THAT(w2[4].limit / w[4].limit, WithinRel(1.0 / 8, 1e-12));
  mlp_training c2 = s;
  c2.clip *= 2;
  const auto wc = dpkit::risk::mlp_width_conditions(c2);
  for (int k : {0, 1, 2}) CHECK_THAT(wc[k].limit / w[k].limit, WithinRel(1.0 / 256, 1e-12));
  // …but with different powers of R: Lemma 25 R^{24}Δ^{−14} ∝ R^{10}, the proof R^{16}Δ^{−14} ∝ R².
  mlp_training r2 = s;
  r2.radius *= 2;
  const auto wr = dpkit::risk::mlp_width_conditions(r2);
  CHECK_THAT(wr[1].limit / w[1].limit, WithinRel(1024.0, 1e-12));
  CHECK_THAT(wr[2].limit / w[2].limit, WithinRel(4.0, 1e-12));
  CHECK(wr[0].limit == w[0].limit);  // Poly(S, L, R) := 1
}

TEST_CASE("mlp bounds: Lemma 23 holds under Poisson sampling (claim 32)", "[mlp]") {
  // By hand: M = 50, T = 20, γ = 0.5: (1 − √(3 log 40/50))·50.
  const double floor = dpkit::risk::lemma23_batch_floor(50, 20, 0.5);
  CHECK_THAT(floor, WithinRel((1 - std::sqrt(3 * std::log(40.0) / 50)) * 50, kMlpRel));
  CHECK(dpkit::risk::lemma23_batch_floor(2, 100, 0.01) < 0);  // vacuous for small M
  // Monte Carlo: N runs of T = 20 Poisson batches (n = 200, q = 0.25); the event "every
  // |B_t| ≥ floor" must have probability ≥ 1 − γ = 0.5. Clopper–Pearson at 1 − 1e-6: the
  // upper limit must reach 0.5. A floor with 0.3 in place of 3 is too high (its event has
  // probability ≈ 0.08) and the same test rejects it — the check has power.
  const double tight = (1 - std::sqrt(0.3 * std::log(40.0) / 50)) * 50;
  const std::size_t N = 2000;
  std::size_t held = 0, held_tight = 0;
  for (std::size_t r = 0; r < N; ++r) {
    dpkit::random_stream s(61, r, 2);
    bool ok = true, ok_tight = true;
    for (int t = 0; t < 20; ++t) {
      const double b = static_cast<double>(s.poisson_sample(200, 0.25).size());
      ok = ok && b >= floor;
      ok_tight = ok_tight && b >= tight;
    }
    held += ok ? 1 : 0;
    held_tight += ok_tight ? 1 : 0;
  }
  const auto ci = dpkit::sim::clopper_pearson(held, N, 1 - 1e-6);
  CHECK(ci.upper >= 0.5);
  const auto ci_tight = dpkit::sim::clopper_pearson(held_tight, N, 1 - 1e-6);
  CHECK(ci_tight.upper < 0.5);
}

TEST_CASE("mlp bounds: Lemma 18's linearisation order", "[mlp]") {
  // R^{4/3} L³ √(log m) m^{−1/6} = ω^{4/3} L³ √(m log m) at ω = R/√m.
  for (long long m : {16LL, 256LL, 4096LL}) {
    const double R = 2;
    CHECK_THAT(dpkit::risk::mlp_linearisation_gap(R, 3, m),
               WithinRel(dpkit::risk::mlp_linearisation_gap_omega(
                             R / std::sqrt(static_cast<double>(m)), 3, m),
                         kMlpRel));
  }
  CHECK_THAT(dpkit::risk::mlp_linearisation_gap(1, 2, 64),
             WithinRel(8 * std::sqrt(std::log(64.0)) / 2, kMlpRel));  // 64^{−1/6} = 1/2
  // Local log-log slope in m: −1/6 + log(log 2m/log m)/(2 log 2).
  const double g1 = dpkit::risk::mlp_linearisation_gap(1, 3, 100);
  const double g2 = dpkit::risk::mlp_linearisation_gap(1, 3, 200);
  CHECK_THAT(std::log(g2 / g1) / std::log(2.0),
             WithinRel(-1.0 / 6 + std::log(std::log(200.0) / std::log(100.0)) / (2 * std::log(2.0)),
                       1e-12));
  // Hypothesis ω ≤ κ L^{−6}(log m)^{−3/2}: at L = 3, m = 64, κ = 1 the limit is 3^{−6}/(log
  // 64)^{1.5}.
  const auto c = dpkit::risk::mlp_linearisation_radius_condition(0.5, 3, 64);
  CHECK_THAT(c.value, WithinRel(0.0625, kMlpRel));
  CHECK_THAT(c.limit, WithinRel(std::pow(3.0, -6) * std::pow(std::log(64.0), -1.5), kMlpRel));
  CHECK_FALSE(c.holds);
}

TEST_CASE("mlp bounds: bad input is rejected", "[mlp]") {
  mlp_training s = run();
  s.delta = 1;
  CHECK_THROWS_AS(dpkit::risk::mlp_privacy_term(s), std::domain_error);
  s = run();
  s.radius = NAN;
  CHECK_THROWS_WITH(dpkit::risk::mlp_thm13(s, 0), Contains("radius is nan, but must be"));
  s = run();
  s.depth = 1;
  CHECK_THROWS_AS(dpkit::risk::mlp_step_size(s), std::domain_error);
  s = run();
  s.sampling_rate = 0;
  CHECK_THROWS_AS(dpkit::risk::mlp_optimal_steps(s), std::domain_error);
  s = run();
  CHECK_THROWS_AS(dpkit::risk::mlp_thm13(s, -0.1), std::domain_error);
  mlp_hidden_constants c;
  c.privacy = 0;
  CHECK_THROWS_WITH(dpkit::risk::mlp_privacy_term(s, c), Contains("hidden_constants.privacy"));
  CHECK_THROWS_AS(dpkit::risk::mlp_convergence_term(0, 0.3), std::domain_error);
  CHECK_THROWS_AS(dpkit::risk::mlp_convergence_term(10, 1.0), std::domain_error);
  CHECK_THROWS_AS(dpkit::risk::lemma23_batch_floor(0, 10, 0.1), std::domain_error);
  CHECK_THROWS_AS(dpkit::risk::lemma23_batch_floor(10, 10, 1.0), std::domain_error);
  CHECK_THROWS_AS(dpkit::risk::mlp_paper_noise_std(0.1, 1, 10, 1e-5, 0, 1), std::domain_error);
  CHECK_THROWS_AS(dpkit::risk::mlp_linearisation_gap(1, 3, 1), std::domain_error);
  CHECK_THROWS_AS(dpkit::risk::mlp_parameter_count(0, 4, 3), std::domain_error);
}
