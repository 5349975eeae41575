// Auditing a user's privacy claim (claim_audit.hpp) on the Gaussian mechanism N(0, 1) against
// N(μ, 1), whose exact tradeoff curve is G(μ) and whose exact (ε, δ) profile comes from
// dpkit::divergence::gdp_epsilon — independent of the code under test.
//
// Samples come from dpkit::random_stream with fixed seeds (deterministic). Guaranteed
// assertions (a true claim not reported violated, the ε lower bound below the truth) fail for a
// fresh seed with probability ≤ 1 − confidence = 1e-6; power assertions (a wrong claim caught)
// are argued from the margin in the comment next to them.
#include "dpkit/sim/claim_audit.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "dpkit/core/normal.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/test_util.hpp"

namespace sim = dpkit::sim;

namespace {

using dpkit::test::kStrict;

using samples = dpkit::test::pair_samples;
using dpkit::test::gaussian_mechanism;

}  // namespace

TEST_CASE("privacy claims: the claimed curves", "[audit][sim][claim]") {
  // μ-GDP: G(μ)(α) = Φ(Φ⁻¹(1 − α) − μ); at α = Φ(−1) (Φ⁻¹(1 − α) = 1) it is Φ(1 − μ).
  const auto g = sim::privacy_claim::gdp(0.7);
  CHECK(g(dpkit::normal_cdf(-1.0)) == Approx(dpkit::normal_cdf(0.3)).epsilon(1e-13));
  CHECK(g(0) == 1);
  CHECK(g(1) == 0);
  // (ε, δ): the two lines 1 − δ − e^ε α and e^{−ε}(1 − δ − α), cut at 0.
  const auto ed = sim::privacy_claim::epsilon_delta(std::log(2.0), 0.1);
  CHECK(ed(0.1) == Approx(0.7));  // 1 − 0.1 − 2·0.1
  CHECK(ed(0.5) == Approx(0.2));  // (1 − 0.1 − 0.5)/2
  CHECK(ed(0.95) == 0);           // both lines below 0
  CHECK(ed(0.3) == Approx(0.3));  // the lines cross at α = (1 − δ)/(1 + e^ε) = 0.3
  // A curve: linear between the points, β₁ left of the first point, 0 right of the last.
  const auto c = sim::privacy_claim::tradeoff_curve({0.1, 0.5, 0.9}, {0.8, 0.3, 0.0});
  CHECK(c(0.0) == 0.8);
  CHECK(c(0.3) == Approx(0.55));
  CHECK(c(0.7) == Approx(0.15));
  CHECK(c(0.95) == 0);
  CHECK_THAT(c.describe(), Catch::Matchers::Contains("3 points"));
  // Bad claims name the point.
  CHECK_THROWS_WITH(sim::privacy_claim::tradeoff_curve({0.1, 0.1}, {0.5, 0.4}),
                    Catch::Matchers::Contains("point 2"));
  CHECK_THROWS_WITH(sim::privacy_claim::tradeoff_curve({0.1, 0.2}, {0.5, 0.6}),
                    Catch::Matchers::Contains("non-increasing"));
  CHECK_THROWS_AS(sim::privacy_claim::tradeoff_curve({0.1}, {0.5}), std::domain_error);
  CHECK_THROWS_AS(sim::privacy_claim::tradeoff_curve({0.1, 1.5}, {0.5, 0.1}), std::domain_error);
  CHECK_THROWS_AS(sim::privacy_claim::gdp(-1), std::domain_error);
  CHECK_THROWS_AS(sim::privacy_claim::epsilon_delta(1, 1), std::domain_error);
}

TEST_CASE("privacy claims: true claims stand, wrong ones are caught", "[audit][sim][claim]") {
  // N(0, 1) vs N(μ, 1), μ = 1, 100 000 samples per side: exactly 1-GDP.
  const double mu = 1.0;
  const samples s = gaussian_mechanism(mu, 100000, 20261124);
  sim::claim_audit_options o;
  o.confidence = kStrict;

  // The exact claim is not violated (guaranteed), and its boxes straddle it: inconclusive.
  const auto exact = sim::audit_privacy_claim(s.d, s.dprime, sim::privacy_claim::gdp(mu), o);
  CHECK(exact.verdict != sim::verdict::violated);
  CHECK(exact.min_gap_lo <= 0);
  CHECK(exact.min_gap_hi >= 0);
  // μ̂ within its interval of the truth, tightness ~1.
  CHECK(exact.mu_lo <= mu);
  CHECK(exact.mu_hi >= mu);
  CHECK(exact.tightness == Approx(1).margin(0.05));
  // The certified ε lower bound stays below the exact ε(δ) of 1-GDP.
  CHECK(exact.epsilon_lower.epsilon <= dpkit::divergence::gdp_epsilon(mu, 1e-5).value);
  CHECK(exact.epsilon_lower.epsilon > 0);

  // A much weaker claim holds: 2-GDP, whose curve G(2) lies up to ~0.2 below G(1), far beyond
  // the resolution (~0.005 here), so every box lies above it.
  const auto weak = sim::audit_privacy_claim(s.d, s.dprime, sim::privacy_claim::gdp(2), o);
  CHECK(weak.verdict == sim::verdict::holds);
  CHECK(weak.resolution < 0.01);

  // A claim of half the true μ (more privacy than there is) is caught: 1-GDP claimed for a
  // 2-GDP pair, G(1) − G(2) reaches ~0.2.
  const samples s_true2 = gaussian_mechanism(2 * mu, 100000, 20261125);
  const auto halved =
      sim::audit_privacy_claim(s_true2.d, s_true2.dprime, sim::privacy_claim::gdp(mu), o);
  CHECK(halved.verdict == sim::verdict::violated);
  CHECK(halved.audit.violation_margin > 0);

  // (ε, δ): the exact ε of 1-GDP at δ = 1e-3 is not violated; a third of it is.
  const double eps = dpkit::divergence::gdp_epsilon(mu, 1e-3).value;
  const auto ed =
      sim::audit_privacy_claim(s.d, s.dprime, sim::privacy_claim::epsilon_delta(eps, 1e-3), o);
  CHECK(ed.verdict != sim::verdict::violated);
  CHECK(ed.epsilon_lower.delta == 1e-3);
  const auto ed_wrong =
      sim::audit_privacy_claim(s.d, s.dprime, sim::privacy_claim::epsilon_delta(eps / 3, 1e-3), o);
  CHECK(ed_wrong.verdict == sim::verdict::violated);

  // A curve through points of the true G(1) is not violated; the same points lifted by 0.05
  // (well above the resolution) are.
  std::vector<double> a, b, b_lifted;
  for (double x = 0.05; x < 0.96; x += 0.1) {
    a.push_back(x);
    b.push_back(dpkit::normal_cdf(dpkit::normal_quantile_complement(x) - mu));
    b_lifted.push_back(std::min(1.0, b.back() + 0.05));
  }
  // (keep the lifted curve non-increasing: it is, being the true one plus a constant)
  const auto curve =
      sim::audit_privacy_claim(s.d, s.dprime, sim::privacy_claim::tradeoff_curve(a, b), o);
  CHECK(curve.verdict != sim::verdict::violated);
  const auto lifted =
      sim::audit_privacy_claim(s.d, s.dprime, sim::privacy_claim::tradeoff_curve(a, b_lifted), o);
  CHECK(lifted.verdict == sim::verdict::violated);
}

TEST_CASE("privacy claims: inputs", "[audit][sim][claim]") {
  const samples s = gaussian_mechanism(1, 100, 7);
  const auto c = sim::privacy_claim::gdp(1);
  sim::claim_audit_options o;
  o.confidence = 1;
  CHECK_THROWS_AS(sim::audit_privacy_claim(s.d, s.dprime, c, o), std::domain_error);
  o = {};
  o.pilot_fraction = 0;
  CHECK_THROWS_AS(sim::audit_privacy_claim(s.d, s.dprime, c, o), std::domain_error);
  const std::vector<double> few(10, 0.0);
  CHECK_THROWS_AS(sim::audit_privacy_claim(few, s.dprime, c), std::domain_error);
}

TEST_CASE("risk claims: verdicts from simultaneous intervals", "[audit][sim][claim]") {
  // Exact construction: estimates with mean 1, sd 2 from 10 000 replicates at three steps; the
  // simultaneous 95 % intervals (Bonferroni over 3: each at 1 − 0.05/3, t ≈ 2.394) have
  // half-width 2.394·2/100 = 0.0479.
  const std::vector<sim::risk_estimate> e(3, {1.0, 2.0, 10000});
  const auto verdict_of = [&](double b) {
    return sim::audit_risk_claim(sim::risk_claim::at_steps({1, 5, 10}, {b, b, b}), e).verdict;
  };
  CHECK(verdict_of(1.0) == sim::verdict::inconclusive);    // tight
  CHECK(verdict_of(1.047) == sim::verdict::inconclusive);  // just inside the half-width
  CHECK(verdict_of(1.049) == sim::verdict::holds);
  CHECK(verdict_of(0.953) == sim::verdict::inconclusive);
  CHECK(verdict_of(0.951) == sim::verdict::violated);
  const auto r = sim::audit_risk_claim(sim::risk_claim::at_steps({1, 5, 10}, {2, 2, 0.5}), e);
  CHECK(r.verdict == sim::verdict::violated);
  CHECK_THAT(r.reason, Catch::Matchers::Contains("step 10"));
  CHECK(r.rows[0].tightness == Approx(2));
  CHECK(r.resolution == Approx(0.0479).epsilon(2e-3));
  // One step alone: the plain 95 % interval (t ≈ 1.960, half-width 0.0392).
  const std::vector<sim::risk_estimate> one(1, {1.0, 2.0, 10000});
  CHECK(sim::audit_risk_claim(sim::risk_claim::at_steps({3}, {1.041}), one).verdict ==
        sim::verdict::holds);
  // Bad claims and estimates.
  CHECK_THROWS_WITH(sim::risk_claim::at_steps({5, 5}, {1, 1}),
                    Catch::Matchers::Contains("point 2"));
  CHECK_THROWS_AS(sim::risk_claim::at_steps({-1}, {1}), std::domain_error);
  CHECK_THROWS_AS(sim::risk_claim::at_steps({}, {}), std::domain_error);
  CHECK_THROWS_AS(sim::audit_risk_claim(sim::risk_claim::at_steps({1}, {1}), e), std::domain_error);
  const std::vector<sim::risk_estimate> bad(1, {1.0, 2.0, 1});
  CHECK_THROWS_AS(sim::audit_risk_claim(sim::risk_claim::at_steps({1}, {1}), bad),
                  std::domain_error);
}

TEST_CASE("privacy claims: Renyi DP through data processing", "[audit][sim][claim]") {
  // The Gaussian pair N(0, 1), N(μ, 1) has D_a = aμ²/2 in both orders. Every test of it obeys
  // the RDP constraints, so the curve they imply lies at or below the true G(μ) everywhere, and
  // with many orders comes close to it.
  const double mu = 1.0;
  std::vector<double> orders, eps, half_eps;
  for (double a : {1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0}) {
    orders.push_back(a);
    eps.push_back(a * mu * mu / 2);
    half_eps.push_back(a * mu * mu / 4);
  }
  const auto rdp = sim::privacy_claim::renyi(orders, eps);
  double closest = 1;
  for (double x = 0.01; x < 1; x += 0.01) {
    const double g = dpkit::normal_cdf(dpkit::normal_quantile_complement(x) - mu);
    CHECK(rdp(x) <= g + 1e-12);
    CHECK(rdp(x) >= 0);
    closest = std::min(closest, g - rdp(x));
  }
  CHECK(closest < 0.05);  // not a vacuous curve
  CHECK(rdp(0.5) > 0.1);
  // Monte Carlo: the exact RDP stands; half of it is caught (at the middle, the halved curve
  // is ~0.15 above G(1), far beyond the ~0.005 resolution).
  const samples s = gaussian_mechanism(mu, 100000, 20261126);
  sim::claim_audit_options o;
  o.confidence = kStrict;
  CHECK(sim::audit_privacy_claim(s.d, s.dprime, rdp, o).verdict != sim::verdict::violated);
  CHECK(sim::audit_privacy_claim(s.d, s.dprime, sim::privacy_claim::renyi(orders, half_eps), o)
            .verdict == sim::verdict::violated);
  CHECK_THROWS_WITH(sim::privacy_claim::renyi({2, 1.5}, {1, 1}),
                    Catch::Matchers::Contains("point 2"));
  CHECK_THROWS_AS(sim::privacy_claim::renyi({1}, {1}), std::domain_error);
  CHECK_THROWS_AS(sim::privacy_claim::renyi({2}, {-1}), std::domain_error);
}
