// dpkit tradeoff — the (α, β) tradeoff curve of the mechanism (its f-DP guarantee).
#include <cmath>
#include <memory>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/core/grid.hpp"
#include "dpkit/divergence/gaussian_tradeoff.hpp"
#include "dpkit/subsampling/subsampled_tradeoff.hpp"

namespace dpkit::cli {
namespace {

namespace dv = dpkit::divergence;

struct tradeoff_options {
  mechanism_options mechanism;
  long long points = 101;
  output_options output;
};

int run(const tradeoff_options& o) {
  const resolved_mechanism m = resolve_mechanism(o.mechanism);
  std::unique_ptr<dv::tradeoff_function> f;
  std::string source;
  if (m.run.is_gaussian()) {
    // Gaussian mechanisms compose to G(μ) exactly (seed 002 eq. (3.4)).
    f = std::make_unique<dv::gaussian_tradeoff>(m.run.gdp_mu());
    source = "G(mu) = Phi(Phi^-1(1 - alpha) - mu) (seed 002 Def 2.4): exact";
  } else if (m.run.phases.size() == 1 && m.run.phases[0].steps == 1 && m.run.gaussian_mu == 0) {
    // One subsampled step: C_q(G(μ₁)) with μ₁ = 1/σ (Poisson) or 2/σ (replace-one), the
    // symmetrised tradeoff of both neighbouring directions (seed 002 Def 4.7, §C.4.1).
    const accounting::training_phase& p = m.run.phases[0];
    const double mu1 =
        (p.sampling == accounting::sampling_scheme::poisson ? 1.0 : 2.0) / p.noise_multiplier;
    f = std::make_unique<subsampling::cp_gaussian_tradeoff>(mu1, p.sampling_rate);
    source = "C_q(G(mu)) in closed form (seed 002 §C.4.1): exact for one step";
  } else {
    throw usage_error(
        "the composed tradeoff curve of a subsampled run (--steps > 1 with --sampling-rate < 1) is "
        "not "
        "available yet; dpkit delta gives its privacy profile delta(epsilon)");
  }
  report r;
  r.tool = "dpkit tradeoff";
  r.parameters = m.parameters;
  r.parameters["points"] = o.points;
  r.columns = {"alpha", "beta"};
  r.title = "tradeoff curve " + f->describe() + " of " + m.description +
            ": the smallest type II error beta of any test with type I error alpha";
  for (double alpha : linspace(0.0, 1.0, static_cast<std::size_t>(o.points)))
    r.results.push_back({{"alpha", alpha}, {"beta", f->beta(alpha)}});
  r.notes = {source,
             "No membership test distinguishes neighbouring datasets better than this curve."};
  emit(r, o.output);
  return kExitSuccess;
}

}  // namespace

void register_tradeoff(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<tradeoff_options>();
  CLI::App* sub = app.add_subcommand(
      "tradeoff", "The tradeoff curve (alpha, beta) of the mechanism: its exact f-DP guarantee");
  add_mechanism_options(sub, o->mechanism);
  sub->add_option("--points", o->points, "Number of equally spaced alpha in [0, 1]")
      ->check(integer_at_least(2))
      ->type_name("N")
      ->capture_default_str();
  add_output_options(sub, o->output);
  sub->footer(
      "Examples (plot with gnuplot):\n"
      "  dpkit tradeoff --mu 1 --points 201 --format csv --output g1.csv\n"
      "  dpkit tradeoff --noise-multiplier 0.8 --sampling-rate 0.1 --sampling "
      "without-replacement\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
