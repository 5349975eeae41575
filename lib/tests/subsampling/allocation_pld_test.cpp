#include "dpkit/subsampling/allocation_pld.hpp"

#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <vector>

#include "dpkit/core/csv.hpp"
#include "dpkit/core/normal.hpp"
#include "support/test_util.hpp"

namespace ss = dpkit::subsampling;

namespace {

using law_ptr = std::shared_ptr<const ss::allocation_ratio_law>;

law_ptr law_of(double mu, long long t, long long r, double h, ss::convex_side side) {
  return std::make_shared<const ss::allocation_ratio_law>(
      ss::allocation_epoch_ratio(mu, t, r, h, side));
}

// E_Q[W^a] of a law (a may be negative: an atom at 0 makes it infinite).
double moment(const ss::allocation_ratio_law& l, double a) {
  if (a < 0 && l.zero_mass > 0) return std::numeric_limits<double>::infinity();
  double m = 0;
  for (std::size_t k = 0; k < l.q.size(); ++k) m += l.q[k] * std::exp(a * l.loss[k]);
  return m;
}

// E[(Y − k)₊] and E[(k − Y)₊] for Y = e^{μx − μ²/2}, x ~ N(0, 1) (Black–Scholes).
double call(double mu, double k) {
  if (k <= 0) return 1 - k;
  const double d1 = (-std::log(k) + mu * mu / 2) / mu;
  return dpkit::normal_cdf(d1) - k * dpkit::normal_cdf(d1 - mu);
}
double put(double mu, double k) {
  if (k <= 0) return 0;
  const double d1 = (-std::log(k) + mu * mu / 2) / mu;
  return k * dpkit::normal_cdf(-(d1 - mu)) - dpkit::normal_cdf(-d1);
}

// One epoch of two steps, W = (Y₁ + Y₂)/2, by conditioning on x₁ (closed form in x₂) and
// Gauss–Kronrod in x₁, split where the inner strike crosses 0 (the integrand's kink):
//   remove  E[(W − c)₊] = ∫ φ(x₁) ½ E[(Y₂ − (2c − Y₁))₊] dx₁,
//   add     E[(1 − cW)₊] = ∫ φ(x₁) (c/2) E[(2/c − Y₁ − Y₂)₊] dx₁,   c = e^ε.
double two_step_delta(double mu, double eps, bool remove) {
  const double c = std::exp(eps);
  auto y = [&](double x) { return std::exp(mu * x - mu * mu / 2); };
  auto f = [&](double x) {
    const double w = dpkit::normal_pdf(x);
    return remove ? w * 0.5 * call(mu, 2 * c - y(x)) : w * c / 2 * put(mu, 2 / c - y(x));
  };
  const double kink = (std::log(remove ? 2 * c : 2 / c) + mu * mu / 2) / mu;
  using gk = boost::math::quadrature::gauss_kronrod<double, 61>;
  const double lo = -12, hi = 12, mid = std::clamp(kink, lo, hi);
  return gk::integrate(f, lo, mid, 15, 1e-14) + gk::integrate(f, mid, hi, 15, 1e-14);
}

// Both laws of one epoch of two steps at spacing h bracket two_step_delta at each ε, in both
// directions (a relative 1e-10 for the quadrature), and come within 1e-3 of it.
void check_two_step_profile(double mu, double h, std::initializer_list<double> epsilons) {
  const law_ptr up = law_of(mu, 2, 2, h, ss::convex_side::dominating);
  const law_ptr lo = law_of(mu, 2, 2, h, ss::convex_side::dominated);
  for (const auto d : {ss::adjacency_direction::remove, ss::adjacency_direction::add}) {
    const auto l_up = ss::allocation_ratio_loss(up, d);
    const auto l_lo = ss::allocation_ratio_loss(lo, d);
    for (const double eps : epsilons) {
      const double exact = two_step_delta(mu, eps, d == ss::adjacency_direction::remove);
      if (exact < 1e-12) continue;
      const double du = l_up->delta(eps), dl = l_lo->delta(eps);
      CAPTURE(mu, h, eps, d == ss::adjacency_direction::remove, exact, du, dl);
      CHECK(du >= exact * (1 - 1e-10));
      CHECK(dl <= exact * (1 + 1e-10));
      CHECK(du - dl <= 1e-3 * exact);
    }
  }
}

}  // namespace

TEST_CASE("allocation PLD: the laws keep the mean, the contraction's moments stay below",
          "[subsampling][allocation_pld]") {
  // data/reference/allocation_rdp.csv (mpmath, 20 digits, 12 trusted): log E_Q[W^α] (remove)
  // and log E_Q[W^{1−α}] (add). Both are convex functions of W, so the contraction's moment
  // must be at most the exact one (a relative allowance of 1e-9 for the sums in double); the
  // spread's are +∞ here (its atoms at 0 and +∞), which the hockey-stick tests below check
  // instead. Both laws keep total mass 1 and E_Q[W] = 1 (the +∞ atom's P-mass included).
  const dpkit::csv_table ref = dpkit::read_csv(dpkit::test::reference_path("allocation_rdp.csv"));
  REQUIRE(ref.rows.size() >= 40);
  int checked = 0;
  for (std::size_t i = 0; i < ref.rows.size(); ++i) {
    const double mu = ref.at(i, "mu"), expected = ref.at(i, "log_moment");
    const auto t = static_cast<long long>(ref.at(i, "steps_per_epoch"));
    const auto alpha = ref.at(i, "alpha");
    const bool add = ref.at(i, "direction") == 1;
    const double a = add ? 1 - alpha : alpha;
    const law_ptr up = law_of(mu, t, t, 0.005, ss::convex_side::dominating);
    const law_ptr lo = law_of(mu, t, t, 0.005, ss::convex_side::dominated);
    for (const law_ptr& l : {up, lo}) {
      double mass = l->zero_mass, mean = l->infinite_mass;
      for (std::size_t k = 0; k < l->q.size(); ++k) {
        mass += l->q[k];
        mean += l->p[k];
      }
      CHECK(std::abs(mass - 1) <= 1e-12);
      CHECK(std::abs(mean - 1) <= 1e-12);
    }
    const double m_lo = std::log(moment(*lo, a));
    CAPTURE(i, mu, t, alpha, add, expected, m_lo);
    CHECK(m_lo <= expected + 1e-9 * std::abs(expected) + 1e-12);
    // Low orders, where the truncated tails weigh nothing: close (the contraction loses about
    // h²/4 of E[W²], so ~α²h² of a log-moment at most).
    if (alpha <= 3 && mu <= 1) CHECK(m_lo >= expected - alpha * alpha * 0.005 * 0.005);
    ++checked;
  }
  CHECK(checked >= 40);
}

TEST_CASE("allocation PLD: one epoch of two steps against its closed-form profile",
          "[subsampling][allocation_pld]") {
  // δ(ε) of the laws' privacy losses (exact sums over their atoms) bracket the profile computed
  // by conditioning and quadrature, in both directions, and come within 1e-3 of it.
  for (double mu : {0.5, 1.0, 2.0}) {
    check_two_step_profile(mu, 0.002, {0.0, 0.1, 0.5, 1.0, 2.0});
  }
}

TEST_CASE("allocation PLD: far pairs, summed by recurrence, on wide lattices",
          "[subsampling][allocation_pld]") {
  // Pairs of lattice points far apart (e^{−dH} below e^H − 1: all but a few hundred of the tens
  // of thousands of offsets on a fine grid at small σ) are summed by a running recurrence
  // (allocation_pld.cpp, add_far) instead of pair by pair — 19 s → 2 s for a δ at σ = 0.11,
  // t = 30. Wide lattices, where they are most of the work, against the quadrature above (two
  // steps, μ = 4 and 6: ~20 000 and ~40 000 points at h = 0.004) and the exact mass and mean of
  // a 30-step epoch at μ = 9 (~40 000 points).
  for (double mu : {4.0, 6.0}) {
    check_two_step_profile(mu, 0.004, {0.0, 1.0, 3.0, 6.0});
  }
  for (const auto side : {ss::convex_side::dominating, ss::convex_side::dominated}) {
    const law_ptr l = law_of(9.0, 30, 30, 0.004, side);
    double mass = l->zero_mass, mean = l->infinite_mass;
    for (std::size_t k = 0; k < l->q.size(); ++k) {
      mass += l->q[k];
      mean += l->p[k];
    }
    CAPTURE(side == ss::convex_side::dominating, l->q.size(), mass, mean);
    CHECK(l->q.size() > 30000);
    CHECK(std::abs(mass - 1) <= 1e-12);
    CHECK(std::abs(mean - 1) <= 1e-12);
  }
}

TEST_CASE("allocation PLD: a partial epoch and the convergence in h",
          "[subsampling][allocation_pld]") {
  // The first r of t coordinates: W_r = (S_r + t − r)/t has E[W_r] = 1 and
  // E[W_r²] = 1 + r(e^{μ²} − 1)/t²; the spread is above, the contraction below.
  const double mu = 1.0;
  const long long t = 50;
  // The rounding adds about h²/4 of E[W²] (the spread) or takes it away (the contraction).
  const double h = 0.004;
  for (long long r : {1LL, 7LL, 49LL, 50LL}) {
    const double exact =
        1 + static_cast<double>(r) * std::expm1(mu * mu) / static_cast<double>(t * t);
    const double up = moment(*law_of(mu, t, r, h, ss::convex_side::dominating), 2);
    const double lo = moment(*law_of(mu, t, r, h, ss::convex_side::dominated), 2);
    CAPTURE(r, exact, up, lo);
    CHECK(up >= exact * (1 - 1e-12));
    CHECK(lo <= exact * (1 + 1e-12));
    CHECK(up - lo <= h * h * exact);
  }
  // Second order in h: the spread's excess E[W²] (its finite atoms; the +∞ atom holds a P-mass
  // ~1e-17) shrinks 4-fold when h halves; the contraction's deficit stays below h²·E[W²].
  const double exact = 1 + std::expm1(mu * mu) / 100;
  auto excess = [&](double hh) {
    return moment(*law_of(mu, 100, 100, hh, ss::convex_side::dominating), 2) - exact;
  };
  const double e1 = excess(0.008), e2 = excess(0.004);
  CAPTURE(e1, e2);
  CHECK(e2 > 0);
  CHECK(e1 / e2 >= 3.5);
  CHECK(e1 / e2 <= 4.5);
  for (double hh : {0.016, 0.008, 0.004, 0.002}) {
    const double deficit = exact - moment(*law_of(mu, 100, 100, hh, ss::convex_side::dominated), 2);
    CAPTURE(hh, deficit);
    CHECK(deficit >= 0);
    CHECK(deficit <= hh * hh * exact);
  }
}

TEST_CASE("allocation PLD: the rounding allowance of a long epoch on a fine lattice",
          "[subsampling][allocation_pld]") {
  // t = 9 392 steps (σ = 1.139, full-tier case 17 247) at h = 3.5e-4: ~9 000 lattice points. The
  // products' sums were bounded as naive sums of two terms per offset, ~2n·u per entry, and a
  // law's mass error doubles with each doubling of its sum: 3.1e-8 and 3.7e-8, a multiple that
  // grew ∝ 1/h and stopped the accountant's refinement (random_allocation_test.cpp). Gathered in
  // blocks of √n offsets (and the tails and cells in long double), ~3√n·u per doubling: ≤ 1e-9
  // (measured 2.9e-10). The allowance must still cover what the rounding does: the exact law
  // has Q-mass 1 and mean E_Q[W] = 1 (each side keeps both; the spread's splits move the mean by
  // at most mean_error), so the computed totals, each mass within relative mass_error, lie within
  // it — summed here in long double, whose rounding is below 1e-15 of the total.
  const double mu = 1 / 1.1393384332809393;
  for (const auto side : {ss::convex_side::dominating, ss::convex_side::dominated}) {
    const law_ptr l = law_of(mu, 9392, 9392, 3.5e-4, side);
    long double mass = l->zero_mass, mean = l->infinite_mass;
    for (std::size_t k = 0; k < l->q.size(); ++k) {
      mass += l->q[k];
      mean += l->p[k];
    }
    const auto mass_gap = static_cast<double>(std::abs(mass - 1.0L));
    const auto mean_gap = static_cast<double>(std::abs(mean - 1.0L));
    CAPTURE(side == ss::convex_side::dominating, l->largest_lattice, l->mass_error, mass_gap,
            mean_gap);
    CHECK(l->largest_lattice > 8000);
    CHECK(l->mass_error <= 1e-9);
    CHECK(mass_gap <= l->mass_error + 1e-15);
    CHECK(mean_gap <= l->mass_error + l->mean_error + 1e-15);
  }
}

TEST_CASE("allocation PLD: inputs", "[subsampling][allocation_pld]") {
  using ss::convex_side;
  CHECK_THROWS_AS(ss::allocation_epoch_ratio(0, 10, 10, 0.01, convex_side::dominating),
                  std::domain_error);
  CHECK_THROWS_AS(ss::allocation_epoch_ratio(41, 10, 10, 0.01, convex_side::dominating),
                  std::domain_error);
  CHECK_THROWS_AS(ss::allocation_epoch_ratio(1, 10, 11, 0.01, convex_side::dominating),
                  std::domain_error);
  CHECK_THROWS_AS(ss::allocation_epoch_ratio(1, 10, 0, 0.01, convex_side::dominating),
                  std::domain_error);
  CHECK_THROWS_AS(ss::allocation_epoch_ratio(1, 10, 10, 2, convex_side::dominated),
                  std::domain_error);
  CHECK_THROWS_AS(ss::allocation_ratio_loss(nullptr, ss::adjacency_direction::add),
                  std::domain_error);
}
