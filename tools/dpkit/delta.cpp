// dpkit delta — the δ for which the mechanism is (ε, δ)-DP at a given ε (privacy profile).
#include <cmath>
#include <memory>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "dpkit/divergence/rdp.hpp"

namespace dpkit::cli {
namespace {

namespace dv = dpkit::divergence;

struct delta_options {
  mechanism_options mechanism;
  double epsilon = 0;
  std::string accountant = "gdp";
  output_options output;
};

int run(const delta_options& o) {
  const resolved_mechanism m = resolve_mechanism(o.mechanism);
  report r;
  r.tool = "dpkit delta";
  r.parameters = m.parameters;
  r.parameters["epsilon"] = o.epsilon;
  r.parameters["accountant"] = o.accountant;
  r.columns = {"accountant", "delta", "log_delta", "kind", "tight", "method"};
  r.title = "delta at epsilon = " + format_number(o.epsilon) + " for " + m.description;
  if (o.accountant == "gdp" || o.accountant == "all") {
    // seed 002 Lemma A.3 (Balle & Wang 2018 Thm 8), evaluated in log space.
    const double log_delta = dv::gdp_log_delta(m.mu, o.epsilon);
    r.results.push_back({{"accountant", "gdp"},
                         {"delta", std::exp(log_delta)},
                         {"log_delta", log_delta},
                         {"kind", std::string(to_string(bound_kind::upper_bound))},
                         {"tight", true},
                         {"method", "exact mu-GDP profile (Balle & Wang 2018)"},
                         {"epsilon", o.epsilon},
                         {"mu", m.mu}});
  }
  if (o.accountant == "rdp" || o.accountant == "all") {
    const auto d = dv::rdp_delta(dv::gdp_rdp_curve(m.mu), o.epsilon);
    r.results.push_back({{"accountant", "rdp"},
                         {"delta", d.delta},
                         {"log_delta", d.log_delta},
                         {"kind", std::string(to_string(d.kind))},
                         {"tight", d.tight},
                         {"method", std::string(dv::to_string(d.conversion)) +
                                        " conversion at alpha = " + format_number(d.alpha)},
                         {"epsilon", o.epsilon},
                         {"mu", m.mu},
                         {"conversion", std::string(dv::to_string(d.conversion))},
                         {"alpha", d.alpha}});
  }
  r.notes = {"upper-bound: the mechanism is (epsilon, delta)-DP with this delta; log_delta stays",
             "finite where delta underflows."};
  emit(r, o.output);
  return kExitSuccess;
}

}  // namespace

void register_delta(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<delta_options>();
  CLI::App* sub = app.add_subcommand(
      "delta", "The delta such that the mechanism is (epsilon, delta)-DP (its privacy profile)");
  add_mechanism_options(sub, o->mechanism);
  add_epsilon_option(sub, o->epsilon);
  add_accountant_option(sub, o->accountant);
  add_output_options(sub, o->output);
  sub->footer("Example:\n  dpkit delta --mu 1 --epsilon 2\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
