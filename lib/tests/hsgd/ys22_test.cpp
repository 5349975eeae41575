// [YS22]'s one-pass last-iterate bound (dpkit/hsgd/ys22.hpp): 50-digit mpmath values of the
// formula over small and extreme parameters (λη = 1e-9 where 1 − c² cancels, (α−1)A = 1008
// where e^{(α−1)ε_1} overflows a double), its closed-form limits, and bad input.
//
// Reference generator (mpmath, mp.dps = 50; the inputs are the doubles below):
//   eps_j(A, c, j) = A c^(2(j-1)) (1 - c^2) / (1 - c^(2j)),  A = 2 α C² / (σ² b²),  c = 1 - ηλ
//   eps(k) = log(((m - k) + Σ_{j=1..k} exp((α-1) eps_j)) / m) / (α - 1)
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "dpkit/hsgd/ys22.hpp"

using dpkit::hsgd::ys22_setting;

namespace {

ys22_setting setting(
    double alpha, double clip, double noise, long long b, double eta, double lam, long long m) {
  ys22_setting s;
  s.alpha = alpha;
  s.clip = clip;
  s.noise = noise;
  s.batch_size = b;
  s.step = eta;
  s.strong_convexity = lam;
  s.batches = m;
  return s;
}

}  // namespace

TEST_CASE("YS22 one-pass bound against 50-digit values", "[ys22]") {
  struct row {
    ys22_setting s;
    long long k;
    double expected;
  };
  const row rows[] = {
      // LKSP25 §5 with clipping c = 3, 5, 7 (σ = 1.5, η = 0.05, δ = 0.1, n = 1500, α = 2)
      {setting(2, 3, 1.5, 1, 0.05, 0.1, 1500), 1500, 8.687309858652314007613278},
      {setting(2, 3, 1.5, 1, 0.05, 0.1, 1500), 750, 8.687309857675773769330407},
      {setting(2, 3, 1.5, 1, 0.05, 0.1, 1500), 1, 8.686948288910006311587502},
      {setting(2, 5, 1.5, 1, 0.05, 0.1, 1500), 1500, 37.13122405755408179964182},
      {setting(2, 7, 1.5, 1, 0.05, 0.1, 1500), 1500, 79.79789072402080967717668},
      // ηλ = 1e-11: 1 − c² cancels in the naive form
      {setting(8, 1, 4, 10, 0.01, 1e-9, 100), 100, 0.0005235992072267208228115639},
      // (α − 1)ε_1 = 63·512: e^{(α−1)ε_1} overflows a double
      {setting(64, 3, 1.5, 1, 0.05, 0.1, 1500), 1500, 511.88391713671285235819},
      // small bound, partial pass
      {setting(1.5, 1, 100, 1, 0.5, 0.5, 10), 7, 0.00005102877899118968587655637},
  };
  for (const row& r : rows) {
    CAPTURE(r.s.alpha, r.s.clip, r.s.noise, r.s.batch_size, r.s.step, r.s.strong_convexity,
            r.s.batches, r.k);
    // k·(a few ulps) from the sum of k terms, and the inputs' rounding
    CHECK(dpkit::hsgd::ys22_one_pass_rdp(r.s, r.k) == Approx(r.expected).epsilon(1e-12));
  }
}

TEST_CASE("YS22 per-position cost: values and limits", "[ys22]") {
  const ys22_setting s = setting(2, 3, 1.5, 1, 0.05, 0.1, 1500);
  CHECK(dpkit::hsgd::ys22_scale(s) == Approx(16).epsilon(1e-15));
  // j = 1: no steps after the record, no contraction: ε_1 = A
  CHECK(dpkit::hsgd::ys22_position_rdp(s, 1) == Approx(16).epsilon(1e-15));
  // mpmath: A = 16, c = 1 − 0.005, j = 10
  CHECK(dpkit::hsgd::ys22_position_rdp(s, 10) == Approx(1.528789454307374859985118).epsilon(1e-13));
  // λ = 0: ε_j = A/j exactly (no strong convexity, only the dilution over j steps)
  const ys22_setting flat = setting(2, 3, 1.5, 1, 0.05, 0, 1500);
  CHECK(dpkit::hsgd::ys22_position_rdp(flat, 8) == Approx(2).epsilon(1e-15));
  // λ → 0: A·(1 − c²)/(1 − c^{2j})·c^{2(j−1)} → A/j; at ηλ = 1e-12 the relative change is
  // about (j − 1)·ηλ
  const ys22_setting near_flat = setting(2, 3, 1.5, 1, 1e-3, 1e-9, 1500);
  CHECK(dpkit::hsgd::ys22_position_rdp(near_flat, 10) == Approx(1.6).epsilon(1e-10));
  // one batch released after its only step: the record is in it, ε = A
  CHECK(dpkit::hsgd::ys22_one_pass_rdp(setting(3, 2, 0.5, 4, 0.1, 1, 1), 1) ==
        Approx(2 * 3 * 4 / (0.25 * 16)).epsilon(1e-14));
  CHECK(dpkit::hsgd::ys22_one_pass_rdp(s, 0) == 0);
  // more steps after the record, less loss
  CHECK(dpkit::hsgd::ys22_position_rdp(s, 100) < dpkit::hsgd::ys22_position_rdp(s, 99));
}

TEST_CASE("YS22 bound: step-size condition and bad input", "[ys22]") {
  CHECK(dpkit::hsgd::ys22_step_ok(0.05, 0.1, 1.1));
  CHECK_FALSE(dpkit::hsgd::ys22_step_ok(2, 0.1, 1.1));  // 2/(λ + β) = 1.667
  const ys22_setting ok = setting(2, 3, 1.5, 1, 0.05, 0.1, 1500);
  auto bad = ok;
  bad.alpha = 1;
  CHECK_THROWS_AS(dpkit::hsgd::ys22_scale(bad), std::domain_error);
  bad = ok;
  bad.noise = 0;
  CHECK_THROWS_AS(dpkit::hsgd::ys22_scale(bad), std::domain_error);
  bad = ok;
  bad.clip = -1;
  CHECK_THROWS_AS(dpkit::hsgd::ys22_scale(bad), std::domain_error);
  bad = ok;
  bad.strong_convexity = 20;  // ηλ = 1
  CHECK_THROWS_AS(dpkit::hsgd::ys22_scale(bad), std::domain_error);
  bad = ok;
  bad.batches = 0;
  CHECK_THROWS_AS(dpkit::hsgd::ys22_scale(bad), std::domain_error);
  CHECK_THROWS_AS(dpkit::hsgd::ys22_one_pass_rdp(ok, 1501), std::domain_error);
  CHECK_THROWS_AS(dpkit::hsgd::ys22_one_pass_rdp(ok, -1), std::domain_error);
  CHECK_THROWS_AS(dpkit::hsgd::ys22_position_rdp(ok, 0), std::domain_error);
}
