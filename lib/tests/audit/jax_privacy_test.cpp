// The canary-score auditor against google-deepmind/jax_privacy's CanaryScoreAuditor where the
// two methods coincide (docs/audit.md, "Against jax_privacy"):
//
//   * the one-run p-value, ε and f-DP ε at fixed counts: data/reference/jax_privacy_auditing.csv,
//     written by running jax_privacy's own helpers (data/generators/
//     jax_privacy_auditing_reference.py);
//   * the values jax_privacy's test suite asserts on score arrays it builds deterministically:
//     the Clopper–Pearson bound at an explicit threshold (test_epsilon_clopper_pearson_explicit
//     on its _deterministic_normal scores), tpr_at_given_fpr and attack_auroc examples.
//
// Not compared: Bonferroni results. jax_privacy spreads the error over the Pareto frontier of
// the ROC (a family that depends on the data); dpkit over every distinct score, a larger,
// data-free family — its bounds are slightly lower.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dpkit/audit/canary_scores.hpp"
#include "dpkit/core/csv.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace audit = dpkit::audit;

namespace {

// jax_privacy's test helper _deterministic_normal: Φ⁻¹((i + 1/2)/n)·σ + μ, i = 0..n−1.
std::vector<double> deterministic_normal(double mu, double sigma, std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = dpkit::normal_quantile((static_cast<double>(i) + 0.5) / static_cast<double>(n)) *
               sigma +
           mu;
  return x;
}

}  // namespace

TEST_CASE("one-run helpers agree with jax_privacy's at fixed counts", "[audit][jax_privacy]") {
  std::ifstream in(dpkit::test::reference_path("jax_privacy_auditing.csv"));
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<dpkit::csv_record> records = dpkit::parse_csv(text.str());
  REQUIRE(records.size() > 600);
  REQUIRE(records[0].cells ==
          std::vector<std::string>{"kind", "m", "guesses", "correct", "epsilon", "delta",
                                   "significance", "value"});
  std::size_t p_values = 0, epsilons = 0, fdp = 0;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const std::vector<std::string>& c = records[r].cells;
    INFO("jax_privacy_auditing.csv line " << records[r].line);
    const auto m = std::stoul(c[1]), g = std::stoul(c[2]), k = std::stoul(c[3]);
    const double eps = std::stod(c[4]), delta = std::stod(c[5]), sig = std::stod(c[6]);
    const double expected = std::stod(c[7]);
    if (c[0] == "one_run_p_value") {
      CHECK_THAT(audit::one_run_p_value(m, g, k, eps, delta),
                 WithinRel(expected, 1e-9) || WithinAbs(expected, 1e-15));
      ++p_values;
    } else if (c[0] == "one_run_epsilon") {
      // jax_privacy solves with brentq to xtol = 1e-6 (absolute in ε).
      CHECK_THAT(audit::one_run_epsilon(m, g, k, 1 - sig, delta), WithinAbs(expected, 3e-6));
      ++epsilons;
    } else if (c[0] == "one_run_fdp_epsilon") {
      // dpkit finds μ and converts it (divergence::gdp_epsilon); jax_privacy searches ε with
      // μ(ε) = 1/get_sigma_gaussian(ε, δ) to xtol 1e-6: the same root in another variable.
      const double mu = audit::one_run_gdp_mu(m, g, k, 1 - sig);
      const double mine = mu > 0 ? dpkit::divergence::gdp_epsilon(mu, delta).value : 0.0;
      CHECK_THAT(mine, WithinAbs(expected, 1e-5 * std::max(1.0, expected)));
      ++fdp;
    } else {
      FAIL("unknown kind " << c[0]);
    }
  }
  CHECK(p_values == 345);  // the grid of jax_privacy's test_one_run_p_value
  CHECK(epsilons > 100);
  CHECK(fdp > 50);
}

TEST_CASE("explicit-threshold Clopper-Pearson: jax_privacy's test values", "[audit][jax_privacy]") {
  // test_epsilon_clopper_pearson_explicit: in-scores _deterministic_normal(1, 1, n_in), out
  // _deterministic_normal(0, 1, n_out), significance 0.1 (0.05 for each one-sided limit), δ = 0,
  // one-sided; the values its assertion compares with (rtol 1e-7), per (n_in, ratio) and
  // threshold 0, 0.5, 1.
  struct row {
    std::size_t n_in;
    double ratio;
    double eps[3];
  };
  const row rows[] = {{100, 0.5, {0.206970649, 0.356667570, 0.425715094}},
                      {100, 1.0, {0.268761764, 0.427716868, 0.574704090}},
                      {100, 1.5, {0.297049332, 0.480304792, 0.642419025}},
                      {1000, 0.5, {0.422888285, 0.661481878, 0.927331513}},
                      {1000, 1.0, {0.443985718, 0.690453134, 0.971338353}},
                      {1000, 1.5, {0.453389181, 0.705681683, 0.995341996}}};
  const double thresholds[] = {0, 0.5, 1.0};
  for (const row& r : rows) {
    const auto n_out = static_cast<std::size_t>(static_cast<double>(r.n_in) * r.ratio);
    const std::vector<double> in = deterministic_normal(1, 1, r.n_in);
    const std::vector<double> out = deterministic_normal(0, 1, n_out);
    for (int j = 0; j < 3; ++j) {
      audit::score_counts c;
      c.n_in = in.size();
      c.n_out = out.size();
      c.thresholds = {thresholds[j]};
      std::size_t tp = 0, fp = 0;
      for (const double x : in) tp += x >= thresholds[j] ? 1 : 0;
      for (const double x : out) fp += x >= thresholds[j] ? 1 : 0;
      c.true_positives = {tp};
      c.false_positives = {fp};
      INFO("n_in " << r.n_in << ", ratio " << r.ratio << ", threshold " << thresholds[j]);
      // The table has 9 digits: agreement to 5e-9 relative.
      CHECK_THAT(audit::clopper_pearson_epsilon(c, 0.05, 0, false).value,
                 WithinRel(r.eps[j], 5e-9));
    }
  }
}

TEST_CASE("TPR at FPR and the hull's AUROC: jax_privacy's examples", "[audit][jax_privacy]") {
  // test_tpr_at_given_fpr_simple: in [1, 3], out [0, 2].
  const std::vector<double> in{1, 3}, out{0, 2};
  const audit::score_counts c = audit::count_scores(in, out);
  const double fprs[] = {0, 0.25, 0.5, 0.75, 1}, tprs[] = {0.5, 0.75, 1, 1, 1};
  for (int i = 0; i < 5; ++i)
    CHECK_THAT(audit::tpr_at_fpr(c, fprs[i], 0.95).tpr, WithinAbs(tprs[i], 1e-12));
  // test_attack_auroc_simple: [0, 4, 6, 7] vs [1, 2, 3, 5]: 13/16 on the hull (Mann–Whitney,
  // dpkit's auroc: 11/16).
  const std::vector<double> in2{0, 4, 6, 7}, out2{1, 2, 3, 5};
  const audit::score_counts c2 = audit::count_scores(in2, out2);
  CHECK_THAT(audit::auroc_hull(c2), WithinAbs(13.0 / 16, 1e-12));
  CHECK_THAT(audit::auroc(c2), WithinAbs(11.0 / 16, 1e-12));
  // The CanaryScoreAuditor docstring: in arange(100) + 9.5, out arange(100): TPR at FPR 0.01
  // rounds to 0.11, AUROC 0.595.
  std::vector<double> in3, out3;
  for (int i = 0; i < 100; ++i) {
    in3.push_back(i + 9.5);
    out3.push_back(i);
  }
  const audit::score_counts c3 = audit::count_scores(in3, out3);
  CHECK(std::round(100 * audit::tpr_at_fpr(c3, 0.01, 0.95).tpr) == 11);
  CHECK_THAT(audit::auroc_hull(c3), WithinAbs(0.595, 1e-12));
}
