// Canary-score auditing, independent-runs statistics: counts, ROC statistics against brute
// force, the Clopper–Pearson bound in closed form, and coverage on scores drawn from
// N(0, 1) (held out) and N(μ, 1) (inserted) — exactly μ-GDP, so every lower bound must lie
// below ε_μ(δ) (divergence::gdp_epsilon, independent of the code under test) and μ_lower
// below μ, in all but a fraction ≤ 1 − confidence of the seeds.
//
// Allowances fixed before any run from the binomial law of the exceedances: at confidence
// 0.95 over 200 seeds, more than 20 exceedances has probability < 0.2 % for a sound bound.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <vector>

#include "dpkit/audit/canary_scores.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/divergence/gdp.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace audit = dpkit::audit;

namespace {

struct scores {
  std::vector<double> in, out;
};

// n held-out scores from N(0, 1) and n inserted ones from N(μ, 1), rounded to `grid` when
// positive (to make ties).
scores gaussian_scores(std::size_t n, double mu, std::uint64_t seed, double grid = 0) {
  dpkit::random_stream rng(seed, 0, 1);
  scores s;
  const auto round = [&](double x) { return grid > 0 ? grid * std::round(x / grid) : x; };
  for (std::size_t i = 0; i < n; ++i) s.out.push_back(round(rng.normal()));
  for (std::size_t i = 0; i < n; ++i) s.in.push_back(round(mu + rng.normal()));
  return s;
}

const audit::audit_statistic& row(const audit::canary_audit& a, const char* name) {
  for (const audit::audit_statistic& r : a.rows)
    if (r.statistic == name) return r;
  throw std::logic_error(name);
}

}  // namespace

TEST_CASE("count_scores: the tests at every distinct score", "[audit][canary]") {
  const std::vector<double> in{3, 1, 2}, out{0, 2};
  const audit::score_counts c = audit::count_scores(in, out);
  CHECK(c.thresholds == std::vector<double>{0, 1, 2, 3, std::numeric_limits<double>::infinity()});
  CHECK(c.true_positives == std::vector<std::size_t>{3, 3, 2, 1, 0});
  CHECK(c.false_positives == std::vector<std::size_t>{2, 1, 1, 0, 0});
  CHECK_THROWS_AS(audit::count_scores({}, out), std::domain_error);
  const std::vector<double> bad{1, std::nan("")};
  CHECK_THROWS_AS(audit::count_scores(bad, out), std::domain_error);
}

TEST_CASE("auroc and tpr_at_fpr against brute force", "[audit][canary]") {
  for (const double grid : {0.0, 0.25}) {
    const scores s = gaussian_scores(300, 1.0, 7, grid);
    const audit::score_counts c = audit::count_scores(s.in, s.out);
    // AUROC: P(in > out) + P(in = out)/2 over all pairs.
    double wins = 0;
    for (const double a : s.in)
      for (const double b : s.out) wins += a > b ? 1.0 : (a == b ? 0.5 : 0.0);
    CHECK_THAT(audit::auroc(c), WithinRel(wins / (300.0 * 300.0), 1e-12));
    // TPR at FPR: the best mixture of two thresholds (or one) with FPR ≤ fpr.
    for (const double fpr : {0.0, 0.01, 0.1, 0.37, 1.0}) {
      const double target = fpr * 300;
      double best = 0;
      for (std::size_t a = 0; a < c.thresholds.size(); ++a) {
        const double fa = static_cast<double>(c.false_positives[a]);
        const double ta = static_cast<double>(c.true_positives[a]);
        if (fa <= target) best = std::max(best, ta);
        for (std::size_t b = 0; b < c.thresholds.size(); ++b) {
          const double fb = static_cast<double>(c.false_positives[b]);
          const double tb = static_cast<double>(c.true_positives[b]);
          if (fa < target && target < fb)
            best = std::max(best, ta + (target - fa) / (fb - fa) * (tb - ta));
        }
      }
      const audit::tpr_at_fpr_result t = audit::tpr_at_fpr(c, fpr, 0.95);
      CHECK_THAT(t.tpr, WithinAbs(best / 300, 1e-12));
      CHECK(t.tpr_lower <= t.tpr);
      CHECK(t.tpr <= t.tpr_upper);
    }
  }
}

TEST_CASE("Clopper-Pearson epsilon: the closed form of a perfect separation", "[audit][canary]") {
  // n_in scores 1 and n_out scores 0: at θ = 1 every inserted canary is found and no held-out
  // one: FNR_hi = 1 − t^{1/n_in}, FPR_hi = 1 − t^{1/n_out} (Clopper–Pearson at k = 0), so
  // ε = log((t^{1/n_in} − δ)/(1 − t^{1/n_out})) with t = 0.05/(2·2) (two distinct scores).
  const std::vector<double> in(200, 1.0), out(300, 0.0);
  audit::canary_audit_options o;
  o.delta = 1e-5;
  const audit::canary_audit a = audit::audit_canary_scores(in, out, o);
  const double t = 0.05 / 4;
  const double expected = std::log((std::pow(t, 1.0 / 200) - 1e-5) / (1 - std::pow(t, 1.0 / 300)));
  CHECK_THAT(row(a, "clopper-pearson").epsilon, WithinRel(expected, 1e-10));
  CHECK(row(a, "clopper-pearson").threshold == 1.0);
  CHECK(row(a, "clopper-pearson").kind == dpkit::bound_kind::lower_bound);
  CHECK(row(a, "auroc").auroc == 1.0);
}

TEST_CASE("independent-runs bounds: coverage on N(0,1) vs N(mu,1)", "[audit][canary]") {
  const double mu = 2.0, delta = 1e-5;
  const double exact = dpkit::divergence::gdp_epsilon(mu, delta).upper;
  for (const audit::threshold_strategy strategy :
       {audit::threshold_strategy::bonferroni, audit::threshold_strategy::split}) {
    const std::size_t seeds = 200;
    std::size_t exceed_cp = 0, exceed_mu = 0;
    for (std::size_t seed = 0; seed < seeds; ++seed) {
      const scores s = gaussian_scores(500, mu, 1000 + seed);
      audit::canary_audit_options o;
      o.delta = delta;
      o.strategy = strategy;
      o.seed = seed;
      o.two_sided = true;
      const audit::canary_audit a = audit::audit_canary_scores(s.in, s.out, o);
      exceed_cp += row(a, "clopper-pearson").epsilon > exact ? 1 : 0;
      exceed_mu += row(a, "gdp").mu_lower > mu ? 1 : 0;
    }
    INFO("strategy " << audit::to_string(strategy));
    CHECK(exceed_cp <= 20);
    CHECK(exceed_mu <= 20);
  }
}

TEST_CASE("independent-runs bounds approach the truth as the sample grows", "[audit][canary]") {
  // μ = 2: at n = 10 000 per side the GDP route's limits at a middle threshold (FPR ≈ FNR ≈
  // 0.16) are ~4.7 standard errors (0.0037) wide at the Bonferroni level 0.05/(4·10⁴): about
  // 0.177, so μ_lower ≈ 2·(Φ⁻¹(0.823)) ≈ 1.85. Asserted before the run: the median over 11
  // seeds ≥ 0.85·μ, and the medians of both bounds increase with n.
  const double mu = 2.0;
  double previous_cp = -1, previous_mu = -1;
  for (const std::size_t n : {100u, 1000u, 10000u}) {
    std::vector<double> cps, mus;
    for (std::uint64_t seed = 0; seed < 11; ++seed) {
      const scores s = gaussian_scores(n, mu, 5000 + seed);
      const audit::canary_audit a = audit::audit_canary_scores(s.in, s.out);
      cps.push_back(row(a, "clopper-pearson").epsilon);
      mus.push_back(row(a, "gdp").mu_lower);
    }
    std::nth_element(cps.begin(), cps.begin() + 5, cps.end());
    std::nth_element(mus.begin(), mus.begin() + 5, mus.end());
    CHECK(cps[5] > previous_cp);
    CHECK(mus[5] > previous_mu);
    previous_cp = cps[5];
    previous_mu = mus[5];
    if (n == 10000) CHECK(mus[5] >= 0.85 * mu);
  }
}

TEST_CASE("the audit's verdict on a claimed epsilon", "[audit][canary]") {
  // μ = 4 scores, n = 2000: the Clopper–Pearson bound is well above 1 (a threshold at 2 has
  // FPR ≈ 0.023, TPR ≈ 0.977: log(0.95/0.035) ≈ 3.3 even with wide limits), so a claim of
  // ε = 1 is violated and one at the exact ε_4(1e-5) ≈ 16 is not.
  const scores s = gaussian_scores(2000, 4.0, 99);
  audit::canary_audit_options o;
  o.claim_epsilon = 1;
  CHECK(audit::audit_canary_scores(s.in, s.out, o).verdict == "violated");
  o.claim_epsilon = dpkit::divergence::gdp_epsilon(4.0, o.delta).upper;
  CHECK(audit::audit_canary_scores(s.in, s.out, o).verdict == "inconclusive");
  o.claim_epsilon = std::numeric_limits<double>::quiet_NaN();
  CHECK(audit::audit_canary_scores(s.in, s.out, o).verdict.empty());
}

TEST_CASE("audit_canary_scores refuses bad options in its own words", "[audit][canary]") {
  const std::vector<double> in{1, 2}, out{0, 1};
  audit::canary_audit_options o;
  o.delta = 1;
  CHECK_THROWS_AS(audit::audit_canary_scores(in, out, o), std::domain_error);
  o = {};
  o.confidence = 0.4;
  CHECK_THROWS_AS(audit::audit_canary_scores(in, out, o), std::domain_error);
  o = {};
  o.guesses = 1;  // without one_run
  CHECK_THROWS_AS(audit::audit_canary_scores(in, out, o), std::domain_error);
  o.one_run = true;
  o.guesses = 5;  // more than the canaries
  CHECK_THROWS_AS(audit::audit_canary_scores(in, out, o), std::domain_error);
  o = {};
  o.strategy = audit::threshold_strategy::split;
  const std::vector<double> one{1};
  CHECK_THROWS_AS(audit::audit_canary_scores(one, out, o), std::domain_error);
}
