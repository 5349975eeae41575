// dpkit calibrate — the smallest noise multiplier for a target (ε, δ).
#include <cmath>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::cli {
namespace {

namespace dv = dpkit::divergence;

struct calibrate_options {
  double epsilon = 0;
  double delta = 0;
  long long steps = 1;
  output_options output;
};

int run(const calibrate_options& o) {
  // T full-batch Gaussian steps with noise multiplier σ are √T/σ-GDP; the largest μ meeting
  // (ε, δ) gives the smallest σ = √T/μ (the analytic Gaussian mechanism, Balle & Wang 2018).
  const double t = static_cast<double>(o.steps);
  const auto mu = dv::gdp_mu(o.epsilon, o.delta);
  const double sigma = std::nextafter(std::sqrt(t) / mu.value, INFINITY);  // round to the safe side
  const auto achieved = dv::gdp_epsilon(std::sqrt(t) / sigma, o.delta);
  report r;
  r.tool = "dpkit calibrate";
  r.parameters = {{"epsilon", o.epsilon}, {"delta", o.delta}, {"steps", o.steps}};
  r.columns = {"accountant", "noise_multiplier", "mu", "epsilon", "kind", "tight"};
  r.title = "smallest noise multiplier for (epsilon, delta) = (" + format_number(o.epsilon) + ", " +
            format_number(o.delta) + ") over " + std::to_string(o.steps) + " full-batch step" +
            (o.steps == 1 ? "" : "s");
  r.results.push_back({{"accountant", "gdp"},
                       {"noise_multiplier", sigma},
                       {"noise_multiplier_lower", std::sqrt(t) / mu.upper},
                       {"mu", std::sqrt(t) / sigma},
                       {"epsilon", achieved.epsilon},
                       {"kind", std::string(to_string(achieved.kind))},
                       {"tight", true},
                       {"delta", o.delta},
                       {"steps", o.steps},
                       {"termination", std::string(to_string(mu.termination))}});
  r.notes = {"The run is (epsilon, delta)-DP with the noise multiplier shown (epsilon is the",
             "achieved value, <= the target); any smaller multiplier breaks the target."};
  emit(r, o.output);
  if (!mu.converged()) {
    std::cerr << "dpkit calibrate: " << mu.message << "\n";
    return kExitNumericalFailure;
  }
  return kExitSuccess;
}

}  // namespace

void register_calibrate(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<calibrate_options>();
  CLI::App* sub = app.add_subcommand("calibrate",
                                     "The smallest noise multiplier for which T full-batch "
                                     "Gaussian steps are (epsilon, delta)-DP");
  add_epsilon_option(sub, o->epsilon);
  add_delta_option(sub, o->delta, /*required=*/true);
  sub->add_option("--steps", o->steps, "Number of full-batch steps T")
      ->check(integer_at_least(1))
      ->type_name("T")
      ->capture_default_str();
  add_output_options(sub, o->output);
  sub->footer("Example:\n  dpkit calibrate --epsilon 2 --delta 1e-5 --steps 400\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
