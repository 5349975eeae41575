#include "dpkit/accounting/clt.hpp"
#include "dpkit/accounting/pld_accountant.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "dpkit/core/normal.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/test_util.hpp"

namespace acc = dpkit::accounting;
using dpkit::test::relative_error;

TEST_CASE("CLT mu: Bu et al. for Poisson, BSA24 Lemma A.5 for C_q", "[accounting][clt]") {
  acc::training_run run;
  run.phases.push_back({1.0, 0.01, acc::sampling_scheme::poisson, 10000});
  CHECK(relative_error(acc::clt_mu(run), 0.01 * std::sqrt(10000 * std::expm1(1.0))) < 1e-15);
  run.phases[0].sampling = acc::sampling_scheme::without_replacement;
  const double mu1 = 2.0;
  const double k =
      std::exp(mu1 * mu1) * dpkit::normal_cdf(1.5 * mu1) + 3 * dpkit::normal_cdf(-0.5 * mu1) - 2;
  CHECK(relative_error(acc::clt_mu(run), std::sqrt(2.0) * 0.01 * 100 * std::sqrt(k)) < 1e-14);
}

TEST_CASE("CLT results are labelled approximations unless exact", "[accounting][clt]") {
  acc::training_run run;
  run.phases.push_back({1.0, 0.01, acc::sampling_scheme::poisson, 1000});
  const auto e = acc::clt_epsilon(run, 1e-5);
  CHECK(e.kind == dpkit::bound_kind::approximation);
  CHECK_FALSE(e.tight);
  CHECK(std::isnan(e.lower));
  CHECK(acc::clt_delta(run, 1.0).kind == dpkit::bound_kind::approximation);
  acc::training_run full;
  full.phases.push_back({20.0, 1.0, acc::sampling_scheme::poisson, 400});
  const auto exact = acc::clt_epsilon(full, 1e-5);
  CHECK(exact.kind == dpkit::bound_kind::upper_bound);
  // μ = √400/20 = 1: the certified closed form, its bracket widened for the rounding of √T/σ,
  // so it encloses the bracket at μ = 1 exactly.
  const auto g = dpkit::divergence::gdp_epsilon(1.0, 1e-5);
  CHECK(exact.lower <= g.lower);
  CHECK(exact.upper >= g.upper);
  CHECK(exact.value == acc::pld_epsilon(full, 1e-5).value);
  CHECK(acc::clt_delta(full, 1.0).kind == dpkit::bound_kind::upper_bound);
}
