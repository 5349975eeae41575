// incremental_accountant (accountant.hpp): a run queried as it grows, as a training loop does.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/csv.hpp"
#include "support/test_util.hpp"

namespace acc = dpkit::accounting;

namespace {
acc::training_run poisson(double sigma, double q, long long steps) {
  acc::training_run run;
  run.phases.push_back({sigma, q, acc::sampling_scheme::poisson, steps});
  return run;
}
}  // namespace

TEST_CASE("incremental accounting brackets the high-precision profiles step by step",
          "[accounting][incremental][reference]") {
  // data/reference/pld_poisson_delta.csv: δ_T(ε) per direction (mpmath, ≥ 24 digits); the run's
  // δ is the larger direction. The accountant grows from 0 steps and is asked after each one.
  const dpkit::csv_table t = dpkit::read_csv(dpkit::test::reference_path("pld_poisson_delta.csv"));
  std::map<std::tuple<double, double, double, long long>, double> ref;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    double& d = ref[{t.at(i, "q"), t.at(i, "sigma"), t.at(i, "epsilon"),
                     static_cast<long long>(t.at(i, "steps"))}];
    d = std::max(d, t.at(i, "delta"));
  }
  int checked = 0;
  for (const auto& [q, sigma, eps] : std::vector<std::tuple<double, double, double>>{
           {0.01, 1.0, 0.1}, {0.1, 1.0, 0.5}, {0.5, 0.8, 1.0}, {0.01, 0.5, 2.0}}) {
    acc::incremental_accountant a(poisson(sigma, q, 0));
    CHECK(a.delta(eps).value == 0);  // no step yet: nothing released
    for (long long step = 1; step <= 3; ++step) {
      a.add_steps();
      const acc::privacy_estimate d = a.delta(eps);
      const double r = ref.at({q, sigma, eps, step});
      INFO("q = " << q << ", sigma = " << sigma << ", T = " << step << ", eps = " << eps
                  << ": reference " << r << " in [" << d.lower << ", " << d.upper << "]");
      CHECK(d.kind == dpkit::bound_kind::upper_bound);
      CHECK(d.lower <= r);
      CHECK(r <= d.upper);
      CHECK(d.upper - d.lower <= 1.05e-3 * d.upper);
      ++checked;
    }
  }
  CHECK(checked == 12);
}

TEST_CASE("incremental accounting: each answer is certified, discretising O(log T) times",
          "[accounting][incremental]") {
  // Queried after every 25 steps up to T = 3000 (120 queries): each bracket must intersect the
  // fresh accounting's (both contain the exact ε) and meet the accuracy; the steps are
  // discretised only when the horizon doubles or the grid is refined.
  acc::incremental_accountant a(poisson(1.0, 0.01, 0));
  long long queries = 0;
  for (long long t = 25; t <= 3000; t += 25) {
    a.add_steps(25);
    REQUIRE(a.steps() == t);
    const acc::privacy_estimate e = a.epsilon(1e-5);
    ++queries;
    CAPTURE(t, e.lower, e.upper, e.method);
    REQUIRE(e.converged());
    CHECK(e.upper - e.lower <= 1e-3 * e.upper);
    if (t % 500 == 0) {
      const acc::privacy_estimate fresh =
          acc::estimate_epsilon(poisson(1.0, 0.01, t), 1e-5, acc::accountant_type::pld);
      CHECK(e.lower <= fresh.upper);
      CHECK(fresh.lower <= e.upper);
    }
  }
  // Horizons 32, 64, …, 4096 (8 doublings) plus a few grid refinements, against 120 queries.
  CAPTURE(a.discretisations());
  CHECK(a.discretisations() <= 20);
  CHECK(queries == 120);
}

TEST_CASE("incremental accounting keeps earlier phases and answers every scheme",
          "[accounting][incremental]") {
  // Two phases: the first fixed, the second growing; the answer is the whole run's.
  acc::training_run run = poisson(2.0, 0.02, 400);
  run.phases.push_back({1.0, 0.01, acc::sampling_scheme::without_replacement, 0});
  acc::incremental_accountant a(run);
  const acc::privacy_estimate first = a.epsilon(1e-5);
  const acc::privacy_estimate only =
      acc::estimate_epsilon(poisson(2.0, 0.02, 400), 1e-5, acc::accountant_type::pld);
  CHECK(first.lower <= only.upper);
  CHECK(only.lower <= first.upper);
  a.add_steps(300);
  run.phases.back().steps = 300;
  const acc::privacy_estimate both = a.epsilon(1e-5);
  const acc::privacy_estimate fresh = acc::estimate_epsilon(run, 1e-5, acc::accountant_type::pld);
  CHECK(both.lower <= fresh.upper);
  CHECK(fresh.lower <= both.upper);
  CHECK(both.lower > first.upper);  // the second phase costs privacy
  // Gaussian steps: exact, as estimate_epsilon. Shuffled batches: the facade's bracket.
  acc::incremental_accountant g(poisson(2.0, 1.0, 0));
  g.add_steps(16);
  const acc::privacy_estimate ge = g.epsilon(1e-5);
  CHECK(ge.tight);
  CHECK(ge.value ==
        acc::estimate_epsilon(poisson(2.0, 1.0, 16), 1e-5, acc::accountant_type::pld).value);
  acc::training_run shuffled = poisson(1.0, 0.1, 0);
  shuffled.phases[0].sampling = acc::sampling_scheme::shuffling;
  acc::incremental_accountant s(shuffled);
  s.add_steps(20);
  shuffled.phases[0].steps = 20;
  const acc::privacy_estimate se = s.epsilon(1e-5);
  const acc::privacy_estimate sf = acc::estimate_epsilon(shuffled, 1e-5, acc::accountant_type::pld);
  CHECK(se.value == sf.value);
  CHECK(se.lower == sf.lower);
  // Bad input.
  CHECK_THROWS_AS(a.add_steps(-1), std::domain_error);
  CHECK_THROWS_AS(acc::incremental_accountant(acc::training_run{}), std::domain_error);
  CHECK_THROWS_AS(acc::incremental_accountant(poisson(-1.0, 0.1, 0)), std::domain_error);
  CHECK_THROWS_AS(a.epsilon(0.0), std::domain_error);
}
