// Runs whose privacy curve has a closed form (support/exact_curves.hpp, 50 digits): every
// certified end must be on its side of the exact ε — the PLD bracket on both sides, the RDP
// bound above. Each regime here once had false ends (issue "Every number dpkit shows is true"):
// one step at σ ≤ 0.03, where the optimistic side read an underflowed X-mass as a mean loss at
// +∞ (17 of these 105 lower ends above the exact ε); small σ over many steps, where tilts of
// λ ≥ 1e-4 on losses of 1e20 lost the composed masses to rounding (a lower end 14× the exact
// ε); and σ < 7e-10, where the subsampled RDP's fractional orders came out 0.
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>

#include "dpkit/accounting/accountant.hpp"
#include "support/exact_curves.hpp"

namespace acc = dpkit::accounting;
using dpkit::test::at_least;
using dpkit::test::at_most;
using dpkit::test::exact_epsilon;
using dpkit::test::real50;

namespace {

acc::training_run poisson_run(double sigma, double q, long long steps) {
  acc::training_run run;
  run.phases.push_back({sigma, q, acc::sampling_scheme::poisson, steps});
  return run;
}

std::string text(const real50& x) {
  std::ostringstream s;
  s.precision(20);
  s << x;
  return s.str();
}

}  // namespace

TEST_CASE("one Poisson step: the PLD bracket contains the exact epsilon (50 digits)",
          "[accounting][pld][certified]") {
  int checked = 0;
  for (const double sigma : {0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0})
    for (const double q : {0.001, 0.01, 0.1, 0.5})
      for (const double delta : {1e-5, 1e-10, 1e-30}) {
        const real50 exact = exact_epsilon(dpkit::test::poisson_one_step_curve(sigma, q), delta);
        const acc::privacy_estimate e =
            acc::estimate_epsilon(poisson_run(sigma, q, 1), delta, acc::accountant_type::pld);
        INFO("sigma " << sigma << ", q " << q << ", delta " << delta << ": exact " << text(exact)
                      << ", bracket [" << e.lower << ", " << e.upper << "]");
        CHECK(at_most(e.lower, exact));
        CHECK(at_least(e.upper, exact));
        // Tight as asked (relative accuracy 1e-3), whatever the regime.
        CHECK(e.upper - e.lower <= 1e-3 * e.upper);
        ++checked;
      }
  CHECK(checked == 84);
}

TEST_CASE("small noise over many steps: every certified end is on its side (50 digits)",
          "[accounting][pld][rdp][certified]") {
  struct row {
    double sigma, q;
    long long steps;
    double delta;
  };
  // The T = 8 row is the issue's: exact 44265119.8 (the lower end was 44268554.7).
  for (const row r :
       {row{0.0003012909777869213, 0.008544475547808284, 8, 2.526262141672169e-118},
        row{3e-10, 0.01, 100, 1e-5}, row{1e-7, 0.01, 100, 1e-5}, row{1e-4, 0.5, 1000, 1e-10},
        row{0.004, 0.01, 10000, 1e-8}, row{1e-12, 0.3, 10, 1e-100},
        // Losses of 1e156 per step: the first grid's spacing came from their squared moments,
        // which overflowed ("discretize: h is inf"; found by the domain sweep, case 1606).
        row{4.3104562469951379e-79, 0.0036604431576363768, 123, 3.0049683087644162e-06}}) {
    const auto curve = dpkit::test::poisson_small_sigma_curve(r.sigma, r.q, r.steps);
    REQUIRE(curve.has_value());
    const real50 exact = exact_epsilon(*curve, r.delta);
    const acc::training_run run = poisson_run(r.sigma, r.q, r.steps);
    const acc::privacy_estimate pld =
        acc::estimate_epsilon(run, r.delta, acc::accountant_type::pld);
    const acc::privacy_estimate rdp =
        acc::estimate_epsilon(run, r.delta, acc::accountant_type::rdp);
    INFO("sigma " << r.sigma << ", q " << r.q << ", T " << r.steps << ", delta " << r.delta
                  << ": exact " << text(exact) << ", pld [" << pld.lower << ", " << pld.upper
                  << "], rdp " << rdp.value);
    CHECK(at_most(pld.lower, exact));
    CHECK(at_least(pld.upper, exact));
    CHECK(at_least(rdp.value, exact));
    CHECK(pld.upper - pld.lower <= 1e-3 * pld.upper);
  }
}

TEST_CASE("the replace-one Poisson curve resolves a sampling rate below 1e-50",
          "[accounting][pld][certified]") {
  // The 50-digit reference took δ as the difference of two tails near 1/2, which loses any q
  // below 1e-50: at q = 2.26e-104 it read δ(0) = 0 and ε = 0, and the domain sweep (case 24689)
  // failed a correct PLD lower end, 21 906. The exact ε here, 21906.380797450644671, is a
  // 300-digit bisection of the same integral taken directly (mpmath, no decomposition).
  const double sigma = 0.0049755865309765238, q = 2.2625513718597391e-104;
  const double delta = 3.4537430889414394e-126;
  const real50 exact =
      exact_epsilon(dpkit::test::poisson_replace_one_one_step_curve(sigma, q), delta);
  CHECK(abs(exact - real50("21906.380797450644671")) < real50("1e-12"));
  acc::training_run run = poisson_run(sigma, q, 1);
  run.phases[0].neighbours = acc::neighbouring::replace_one;
  const acc::privacy_estimate e = acc::estimate_epsilon(run, delta, acc::accountant_type::pld);
  CHECK(at_most(e.lower, exact));
  CHECK(at_least(e.upper, exact));
  // At a tiny σ the root is astronomically large: e^ε must not be formed (it left even the
  // 50-digit type's range near ε = 1.5e9, where the reference then stopped, case 26848). With
  // the record in, the loss is N(log(q/(1 − q)) + 1/(2σ²), 1/σ²): ε ≈ 1/(2σ²) = 6.1e16 here.
  const double tiny = 2.8594128900682254e-09;
  const real50 large = exact_epsilon(
      dpkit::test::poisson_replace_one_one_step_curve(tiny, 9.521491943719836e-06), 3.7e-12);
  CHECK(large > real50(6.1e16));
  CHECK(large < real50(6.2e16));
}
