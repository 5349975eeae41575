// dpkit epsilon — the smallest ε such that the mechanism is (ε, δ)-DP.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "dpkit/divergence/rdp.hpp"

namespace dpkit::cli {
namespace {

namespace dv = dpkit::divergence;

struct epsilon_options {
  mechanism_options mechanism;
  double delta = 0;
  std::string accountant = "gdp";
  output_options output;
};

json rdp_candidates(const std::array<dv::rdp_candidate, 4>& candidates) {
  json list = json::array();
  for (const auto& c : candidates) {
    if (!c.applicable) continue;
    list.push_back({{"conversion", std::string(dv::to_string(c.conversion))},
                    {"value", c.value},
                    {"alpha", c.alpha}});
  }
  return list;
}

int run(const epsilon_options& o) {
  const resolved_mechanism m = resolve_mechanism(o.mechanism);
  report r;
  r.tool = "dpkit epsilon";
  r.parameters = m.parameters;
  r.parameters["delta"] = o.delta;
  r.parameters["accountant"] = o.accountant;
  r.columns = {"accountant",    "epsilon",       "kind",  "tight",
               "epsilon_lower", "epsilon_upper", "method"};
  r.title = "epsilon at delta = " + format_number(o.delta) + " for " + m.description;
  std::string failure;
  if (o.accountant == "gdp" || o.accountant == "all") {
    const auto e = dv::gdp_epsilon(m.mu, o.delta);
    r.results.push_back({{"accountant", "gdp"},
                         {"epsilon", e.epsilon},
                         {"kind", std::string(to_string(e.kind))},
                         {"tight", e.tight},
                         {"epsilon_lower", e.epsilon_lower},
                         {"epsilon_upper", e.epsilon_upper},
                         {"method", "exact mu-GDP profile (Balle & Wang 2018)"},
                         {"delta", o.delta},
                         {"mu", m.mu},
                         {"termination", std::string(to_string(e.termination))}});
    if (!e.converged()) failure = e.message;
  }
  if (o.accountant == "rdp" || o.accountant == "all") {
    // μ-GDP ⇒ (α, αμ²/2)-RDP (seed 002 Lemma A.4), converted by the best of four bounds.
    const auto e = dv::rdp_epsilon(dv::gdp_rdp_curve(m.mu), o.delta);
    r.results.push_back({{"accountant", "rdp"},
                         {"epsilon", e.epsilon},
                         {"kind", std::string(to_string(e.kind))},
                         {"tight", e.tight},
                         {"epsilon_lower", nullptr},
                         {"epsilon_upper", e.epsilon},
                         {"method", std::string(dv::to_string(e.conversion)) +
                                        " conversion at alpha = " + format_number(e.alpha)},
                         {"delta", o.delta},
                         {"mu", m.mu},
                         {"conversion", std::string(dv::to_string(e.conversion))},
                         {"alpha", e.alpha},
                         {"candidates", rdp_candidates(e.candidates)},
                         {"termination", std::string(to_string(e.termination))}});
    if (!e.converged()) failure = e.message;
  }
  r.notes = {
      "upper-bound: the mechanism is (epsilon, delta)-DP. tight: no smaller epsilon holds for",
      "this mechanism. RDP conversions are valid but loose; the best of BS16, Mir17, BBG20",
      "and ALC21 is shown."};
  emit(r, o.output);
  if (!failure.empty()) {
    std::cerr << "dpkit epsilon: " << failure << "\n";
    return kExitNumericalFailure;
  }
  return kExitSuccess;
}

}  // namespace

void register_epsilon(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<epsilon_options>();
  CLI::App* sub = app.add_subcommand(
      "epsilon", "The smallest epsilon such that the mechanism is (epsilon, delta)-DP");
  add_mechanism_options(sub, o->mechanism);
  add_delta_option(sub, o->delta, /*required=*/true);
  add_accountant_option(sub, o->accountant);
  add_output_options(sub, o->output);
  sub->footer(
      "Examples:\n"
      "  dpkit epsilon --mu 1 --delta 1e-5\n"
      "  dpkit epsilon --noise-multiplier 20 --steps 400 --delta 1e-5 --accountant all --format "
      "json\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
