// The decision tree of shifted/report.hpp: each row is the bound function it names, evaluated
// at the resolved setting (t = E·n/b, c from (η, m, M)), with ε from the exact GDP conversion;
// the rules refuse inputs that do not fit, by placeholders a front end spells.
#include "dpkit/shifted/report.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <string_view>

#include "dpkit/divergence/gdp.hpp"
#include "dpkit/shifted/bounds.hpp"

namespace sh = dpkit::shifted;

namespace {

const sh::report_row& row(const sh::report_result& r, const std::string& bound) {
  for (const auto& x : r.rows)
    if (x.bound == bound) return x;
  FAIL("no row " << bound);
  return r.rows.front();
}

std::string flags(std::string_view name, std::string_view value) {
  std::string f = "--" + std::string(name);
  for (char& c : f)
    if (c == '_') c = '-';
  return value.empty() ? f : f + " " + std::string(value);
}

}  // namespace

TEST_CASE("report: noisy-gd, strongly convex — the rows are the bound functions at the setting",
          "[shifted][report]") {
  sh::report_inputs in;
  in.sensitivity = 1;
  in.noise = 1;
  in.dataset_size = 10;
  in.steps = 50;
  in.learning_rate = 0.1;
  in.strong_convexity = 1;
  in.smoothness = 5;  // c = max{|1 − 0.1|, |1 − 0.5|} = 0.9
  const auto r = sh::report(sh::algorithm::noisy_gd, sh::convexity::strongly_convex, in, 1e-5);
  CHECK(r.setting.contraction == Approx(0.9).epsilon(1e-15));
  REQUIRE(r.rows.size() == 4);
  CHECK(r.rows[0].bound == "shifted-interpolation");
  CHECK(r.rows[1].bound == "rdp-shifted");
  CHECK(r.rows[2].bound == "rdp-ys22");
  CHECK(r.rows[3].bound == "composition");
  const sh::gdp_bound ours = sh::noisy_gd_strongly_convex(r.setting);
  CHECK(r.rows[0].mu == ours.mu);
  CHECK(r.rows[0].epsilon == dpkit::divergence::gdp_epsilon(ours.mu, 1e-5).upper);
  CHECK(r.rows[1].rho == Approx(ours.mu * ours.mu / 2).epsilon(1e-15));
  CHECK(row(r, "composition").mu == sh::noisy_gd_composition(r.setting).mu);
  REQUIRE(r.rows[0].run);
  CHECK(r.rows[0].run->gaussian_mu == ours.mu);
  CHECK_FALSE(r.rows[1].run);  // RDP rows have no tradeoff curve here
}

TEST_CASE("report: noisy-cgd from epochs, the lower bound stated from below", "[shifted][report]") {
  sh::report_inputs in;
  in.sensitivity = 2;
  in.noise = 0.5;
  in.batch_size = 10;
  in.batches_per_epoch = 20;  // n = 200
  in.epochs = 10;             // t = 200
  in.learning_rate = 0.1;
  in.contraction = 0.95;
  const auto r = sh::report(sh::algorithm::noisy_cgd, sh::convexity::strongly_convex, in, 1e-5);
  CHECK(r.setting.examples == 200);
  CHECK(r.setting.steps == 200);
  const auto& lower = row(r, "lower-bound");
  CHECK(lower.kind == dpkit::bound_kind::lower_bound);
  CHECK(lower.epsilon == lower.epsilon_lower);
  CHECK(lower.epsilon_lower <= lower.epsilon_upper);
  CHECK(row(r, "shifted-interpolation").epsilon >= lower.epsilon);
}

TEST_CASE("report: the CLT row says when its choice of t - tau lies outside the run",
          "[shifted][report]") {
  sh::report_inputs in;
  in.sensitivity = 1;
  in.noise = 1;
  in.dataset_size = 1000;
  in.batch_size = 100;
  in.steps = 5;
  in.learning_rate = 0.1;
  in.contraction = 0.95;
  const auto r = sh::report(sh::algorithm::noisy_sgd, sh::convexity::strongly_convex, in, 1e-5);
  const auto& clt = row(r, "shifted-interpolation (CLT)");
  CHECK(clt.kind == dpkit::bound_kind::approximation);
  REQUIRE(clt.steps_after_tau > 4);
  CHECK_THAT(clt.note, Catch::Matchers::Contains("outside this run (t - tau must be in 1..4)"));
  const auto& si = row(r, "shifted-interpolation");
  CHECK(si.exhaustive.value_or(false));
  CHECK(si.epsilon_lower <= si.epsilon);
}

TEST_CASE("report: inputs that do not fit are refused by placeholders", "[shifted][report]") {
  sh::report_inputs in;
  in.sensitivity = 1;
  in.noise = 1;
  in.dataset_size = 10;
  in.steps = 5;
  try {
    (void)sh::report(sh::algorithm::noisy_gd, sh::convexity::strongly_convex, in, 1e-5);
    FAIL("no error");
  } catch (const sh::report_error& e) {
    CHECK(e.render(flags).rfind("--setting strongly-convex needs --contraction, or "
                                "--learning-rate with --strong-convexity and --smoothness",
                                0) == 0);
    CHECK(std::string(e.what()).rfind("setting strongly-convex needs contraction", 0) == 0);
  }
  in.contraction = 1;
  CHECK_THROWS_AS(sh::report(sh::algorithm::noisy_gd, sh::convexity::strongly_convex, in, 1e-5),
                  sh::report_error);
  in.contraction = 0.9;
  in.epochs = 2;
  CHECK_THROWS_WITH(sh::report(sh::algorithm::noisy_gd, sh::convexity::strongly_convex, in, 1e-5),
                    "give steps or epochs, not both");
  in.epochs.reset();
  in.batch_size = 20;
  CHECK_THROWS_WITH(sh::report(sh::algorithm::noisy_sgd, sh::convexity::convex, in, 1e-5),
                    "batch_size is 20, but must be <= dataset_size = 10");
  CHECK_THROWS_AS(sh::report(sh::algorithm::lmc, sh::convexity::convex, in, 1e-5),
                  sh::report_error);
  // Shifts are noisy-sgd's (Thm C.13): given to another algorithm, refused, not ignored.
  in.batch_size.reset();
  in.shifts = std::vector<double>{1, 1, 1, 1};
  for (auto a : {sh::algorithm::noisy_gd, sh::algorithm::noisy_cgd, sh::algorithm::lmc})
    CHECK_THROWS_WITH(sh::report(a, sh::convexity::strongly_convex, in, 1e-5),
                      "shifts applies to noisy-sgd only (Thm C.13)");
  CHECK(sh::parse_algorithm("noisy_sgd") == sh::algorithm::noisy_sgd);
  CHECK(sh::parse_convexity("constrained-convex") == sh::convexity::constrained_convex);
  CHECK_FALSE(sh::parse_algorithm("sgd"));
}

TEST_CASE("report: a GDP row beyond the exact conversion's range says so, the others stand",
          "[shifted][report]") {
  // Composition mu = L sqrt(t)/(n sigma) = 1e7 (Thm 4.1) at sigma = 1e-4, t = 1e6: beyond 1e6,
  // where the exact conversion stops; shifted interpolation (Thm 4.2) does not grow with t and
  // stays near L/(n sigma) = 1e4.
  sh::report_inputs in;
  in.sensitivity = 1;
  in.noise = 1e-4;
  in.dataset_size = 1;
  in.steps = 1'000'000;
  in.contraction = 0.5;
  in.learning_rate = 0.1;
  const auto r = sh::report(sh::algorithm::noisy_gd, sh::convexity::strongly_convex, in, 1e-5);
  const auto& comp = row(r, "composition");
  CHECK(comp.mu == Approx(1e7).epsilon(1e-12));
  CHECK(std::isnan(comp.epsilon));
  CHECK(comp.termination == dpkit::termination_type::failure);
  CHECK_THAT(comp.message, Catch::Matchers::Contains("outside [0, 1e6]"));
  CHECK_FALSE(comp.run);
  CHECK(row(r, "shifted-interpolation").termination == dpkit::termination_type::converged);
}
