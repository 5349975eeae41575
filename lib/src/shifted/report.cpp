// The decision tree of BSA24's bounds (dpkit/shifted/report.hpp): for an algorithm and a
// setting, which bounds apply to the inputs given, each as a labelled row with ε at δ.
#include "dpkit/shifted/report.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/parse.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "dpkit/divergence/rdp.hpp"

namespace dpkit::shifted {

std::string_view to_string(algorithm a) noexcept {
  return kAlgorithmNames[static_cast<std::size_t>(a)];
}

std::string_view to_string(convexity c) noexcept {
  return kConvexityNames[static_cast<std::size_t>(c)];
}

namespace {

// Ten significant digits, as the tables print numbers in notes.
std::string ten_digits(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

// "$(name)" and "$(name=value)".
std::string in(std::string_view name) {
  return "$(" + std::string(name) + ")";
}
std::string in(std::string_view name, std::string_view value) {
  return "$(" + std::string(name) + "=" + std::string(value) + ")";
}

[[noreturn]] void refuse(const std::string& text) {
  throw report_error(text);
}

template <class T>
T need(const std::optional<T>& v, std::string_view name, const std::string& why) {
  if (!v) refuse(in(name) + " is required " + why);
  return *v;
}

report_row gdp_row(std::string bound, const gdp_bound& g, double delta) {
  report_row r;
  r.bound = std::move(bound);
  r.source = g.source;
  r.note = g.note;
  r.kind = g.kind;
  r.mu = g.mu;
  r.tau = g.tau;
  // The exact conversion covers μ ≤ 1e6 (ε beyond 5e11 there); a larger μ (composition at a tiny
  // noise, say) is a row without ε that says why, and the other rows stand.
  if (!(g.mu >= 0 && g.mu <= 1e6)) {
    r.termination = termination_type::failure;
    r.message = std::isnan(g.mu) ? "mu could not be computed in double precision at these "
                                   "inputs: no epsilon"
                                 : "mu = " + ten_digits(g.mu) +
                                       " is outside [0, 1e6], the range of the exact GDP "
                                       "conversion: no epsilon";
    return r;
  }
  const divergence::epsilon_result e = divergence::gdp_epsilon(g.mu, delta);
  r.epsilon_lower = e.lower;
  r.epsilon_upper = e.upper;
  // A lower bound on the privacy loss is stated from below, a guarantee from above.
  r.epsilon = g.kind == bound_kind::lower_bound ? e.lower : e.upper;
  r.termination = e.termination;
  r.message = e.message;
  accounting::training_run run;
  run.gaussian_mu = g.mu;
  r.run = run;
  return r;
}

report_row rdp_row(
    std::string bound, std::string source, double rho, double delta, std::string note) {
  report_row r;
  r.bound = std::move(bound);
  r.source = std::move(source);
  r.note = std::move(note);
  r.rho = rho;
  // The same range as gdp_row's μ ≤ 1e6 (ρ = μ²/2): beyond it ε > 5e11, and the order search's
  // ρ·α overflows near ρ = 1e300 (a probe's --sensitivity 1e308 said "rho is inf"). A row
  // without ε that says why; the other rows stand.
  constexpr double kLargestRho = 0.5 * divergence::kLargestGdpMu * divergence::kLargestGdpMu;
  if (!(rho >= 0 && rho <= kLargestRho)) {
    r.termination = termination_type::failure;
    r.message = "rho = " + ten_digits(rho) + " is outside [0, " + format_value(kLargestRho) +
                "] (the range of mu <= 1e6 in rho = mu^2/2): no epsilon";
    return r;
  }
  const divergence::rdp_epsilon_result e =
      divergence::rdp_epsilon(divergence::rdp_curve::linear(rho), delta);
  r.epsilon = r.epsilon_upper = e.value;
  r.rdp_order = e.alpha;
  r.conversion = std::string(divergence::to_string(e.conversion));
  r.termination = e.termination;
  r.message = e.message;
  return r;
}

report_row sgd_row(std::string bound, const sgd_bound& b) {
  report_row r;
  r.bound = std::move(bound);
  r.source = b.source;
  r.kind = b.estimate.kind;
  r.epsilon = b.estimate.value;
  r.epsilon_lower = b.estimate.lower;
  r.epsilon_upper = b.estimate.upper;
  r.tau = b.tau;
  r.termination = b.estimate.termination;
  r.message = b.estimate.message;
  r.note = b.run.describe();
  if (std::isfinite(b.alpha) && std::abs(b.alpha - std::sqrt(2.0)) > 1e-12)
    r.note += "; noise split alpha = " + ten_digits(b.alpha);
  r.run = b.run;
  r.noise_split = b.alpha;
  r.evaluations = b.evaluations;
  r.pld_method = b.estimate.method;
  return r;
}

// The CLT approximation of Props C.14/C.15 as a row, or, where its μ is beyond 1e6 or infinite
// (K(μ) grows like e^{μ²} and overflows a double for large L/(bσ)), a note instead: ε would be
// beyond 5e11, and the approximation says nothing there. Props C.14/C.15 do not depend on t,
// so a choice of t − τ outside this run is said.
void add_clt_row(report_result& out, const clt_choice& clt, long long k_range, double delta) {
  const long long t = out.setting.steps;
  if (std::isnan(clt.bound.mu)) {  // never shown as "mu is nan (beyond 1e6 ...)"
    out.notes.push_back(
        "shifted-interpolation (CLT): not shown, the CLT approximation's mu could not be computed "
        "in double precision at these inputs; the certified rows stand");
    return;
  }
  if (!(clt.bound.mu <= 1e6)) {
    out.notes.push_back(
        "shifted-interpolation (CLT): not shown, the CLT approximation's mu is " +
        ten_digits(clt.bound.mu) +
        " (beyond 1e6, where epsilon would exceed 5e11: K(2L/(b sigma)) grows like "
        "exp((2L/(b sigma))^2), and the diameter's term like D); the certified rows stand");
    return;
  }
  report_row r = gdp_row("shifted-interpolation (CLT)", clt.bound, delta);
  r.steps_after_tau = clt.steps_after_tau;
  r.note = "CLT choice t - tau = " + ten_digits(clt.steps_after_tau) + "; an approximation";
  if (!(clt.steps_after_tau >= 1 && clt.steps_after_tau <= static_cast<double>(k_range)))
    r.note += "; outside this run (t - tau must be in 1.." + std::to_string(k_range) +
              "), so the CLT value describes a longer run, not t = " + std::to_string(t);
  out.rows.push_back(std::move(r));
}

// c from the inputs: given, or max{|1 − ηm|, |1 − ηM|} in the strongly convex setting; 1 else.
double resolve_contraction(const report_inputs& in_, bool strongly, bool lmc) {
  std::optional<double> c = in_.contraction;
  if (!c && strongly && !lmc) {
    if (!in_.strong_convexity || !in_.smoothness || !in_.learning_rate)
      refuse(in("setting", "strongly-convex") + " needs " + in("contraction") + ", or " +
             in("learning_rate") + " with " + in("strong_convexity") + " and " + in("smoothness") +
             " (c = max{|1 - eta m|, |1 - eta M|})");
    c = contraction(*in_.learning_rate, *in_.strong_convexity, *in_.smoothness);
  }
  const bool derived = !in_.contraction.has_value() && c.has_value();
  if (!c) c = 1.0;
  // A c derived from the learning rate is named by what the user gave: a rate too small for
  // 1 − ηm to differ from 1 in double precision said "--contraction is 1" before.
  if (strongly && !lmc && !(*c < 1) && derived)
    refuse(in("learning_rate") + " is " + ten_digits(*in_.learning_rate) +
           ", but must make the contraction max{|1 - eta m|, |1 - eta M|} < 1 (here it is " +
           ten_digits(*c) + ", with " + in("strong_convexity") + " " +
           ten_digits(*in_.strong_convexity) + ")");
  if (strongly && !lmc && !(*c < 1))
    refuse(in("contraction") + " is " + ten_digits(*c) + ", but must be < 1 for " +
           in("setting", "strongly-convex"));
  return *c;
}

void lmc_rows(report_result& out, convexity setting, const report_inputs& in_, double delta) {
  const double L = need(in_.sensitivity, "sensitivity", "(F - F' is L-Lipschitz)");
  out.setting.sensitivity = L;
  if (setting == convexity::strongly_convex) {
    const double m = need(in_.strong_convexity, "strong_convexity", "for LMC");
    const double eta = need(in_.learning_rate, "learning_rate", "for LMC");
    out.rows.push_back(gdp_row("shifted-interpolation", lmc(L, m, eta), delta));
    if (in_.steps)
      out.rows.push_back(
          gdp_row("shifted-interpolation (t steps)", lmc_at(L, m, eta, *in_.steps), delta));
    out.rows.push_back(gdp_row("exponential-mechanism", exponential_mechanism(L, m), delta));
  } else if (setting == convexity::constrained_convex) {
    const double D = *in_.diameter;
    out.rows.push_back(gdp_row("log-concave-mechanism", log_concave_mechanism(L, D), delta));
    if (in_.learning_rate)
      out.rows.push_back(gdp_row("projected-lmc", projected_lmc(L, D, *in_.learning_rate), delta));
    report_row ref;
    ref.bound = "pure-dp (MT07)";
    ref.source = "exponential mechanism, standard analysis";
    ref.epsilon = ref.epsilon_upper = 2 * L * D;
    ref.note =
        "(2LD, 0)-DP. As tradeoff curves, G(2 sqrt(LD)) is not implied by it exactly when LD > " +
        ten_digits(exponential_mechanism_threshold()) +
        " (BSA24 D.4); at one delta either epsilon can be the smaller";
    out.rows.push_back(std::move(ref));
  } else {
    refuse(in("setting", "convex") +
           ": BSA24 has no LMC bound without strong convexity or a diameter (use "
           "strongly-convex or constrained-convex)");
  }
}

// n, b and t from the inputs (t = E·n/b for cyclic batches).
void resolve_lengths(noisy_gradient_setting& s, algorithm a, const report_inputs& in_) {
  const bool cyclic = a == algorithm::noisy_cgd;
  if (cyclic || a == algorithm::noisy_sgd)
    s.batch_size = need(in_.batch_size, "batch_size", "for " + std::string(to_string(a)));
  if (in_.batches_per_epoch && !cyclic)
    refuse(in("batches_per_epoch") + " applies to noisy-cgd only");
  if (cyclic && in_.batches_per_epoch && !in_.dataset_size)
    s.examples = *in_.batches_per_epoch * s.batch_size;
  else
    s.examples = need(in_.dataset_size, "dataset_size", "(the number of examples)");
  if (cyclic && in_.batches_per_epoch && *in_.batches_per_epoch * s.batch_size != s.examples)
    refuse(in("batches_per_epoch") + " is " + std::to_string(*in_.batches_per_epoch) +
           ", but must be n/b = " +
           ten_digits(static_cast<double>(s.examples) / static_cast<double>(s.batch_size)));
  if (in_.epochs && in_.steps) refuse("give " + in("steps") + " or " + in("epochs") + ", not both");
  if (in_.epochs) {
    if (!cyclic) refuse(in("epochs") + " applies to noisy-cgd (use " + in("steps") + ")");
    if (s.examples % s.batch_size != 0)
      refuse(in("dataset_size") + " is " + std::to_string(s.examples) +
             ", but must be a multiple of " + in("batch_size"));
    s.steps = *in_.epochs * (s.examples / s.batch_size);
  } else {
    s.steps = need(in_.steps, "steps", "(or " + in("epochs") + " for noisy-cgd)");
  }
}

// The learning-rate schedule of noisy-gd, from its decay or as given; empty: none.
std::vector<double> schedule_of(algorithm a, const report_inputs& in_, long long steps) {
  if (in_.learning_rates && in_.lr_decay)
    refuse(in("learning_rates") + " must not be given together with " + in("lr_decay"));
  if (!in_.learning_rates && !in_.lr_decay) return {};
  const std::string which = in(in_.lr_decay ? "lr_decay" : "learning_rates");
  if (a != algorithm::noisy_gd || !in_.strong_convexity || !in_.smoothness ||
      (in_.lr_decay && !in_.learning_rate))
    refuse(which + " applies to noisy-gd and needs " +
           (in_.lr_decay ? in("learning_rate") + ", " : std::string()) + in("strong_convexity") +
           " and " + in("smoothness") + " (per-step contractions)");
  if (in_.learning_rates) {
    if (static_cast<long long>(in_.learning_rates->size()) != steps)
      refuse(in("learning_rates") + " has " + std::to_string(in_.learning_rates->size()) +
             " values, but must have " + in("steps") + " = " + std::to_string(steps));
    return *in_.learning_rates;
  }
  std::vector<double> etas;
  etas.reserve(static_cast<std::size_t>(steps));
  for (long long k = 0; k < steps; ++k)
    etas.push_back(*in_.learning_rate / (1 + static_cast<double>(k) / *in_.lr_decay));
  return etas;
}

void noisy_gd_rows(report_result& out,
                   convexity setting,
                   const report_inputs& in_,
                   const std::vector<double>& schedule,
                   double delta) {
  const noisy_gradient_setting& s = out.setting;
  const bool strongly = setting == convexity::strongly_convex;
  if (strongly && !schedule.empty()) {
    // the constant-η closed forms do not apply to a schedule
  } else if (strongly) {
    const gdp_bound ours = noisy_gd_strongly_convex(s);
    out.rows.push_back(gdp_row("shifted-interpolation", ours, delta));
    out.rows.push_back(rdp_row("rdp-shifted", "BSA24 Thm 4.2 + Lemma A.4 (RDP, as in its Figure 1)",
                               ours.mu * ours.mu / 2, delta, ""));
    if (std::isfinite(s.diameter))
      out.rows.push_back(
          gdp_row("shifted-interpolation (with diameter)", noisy_gd_shifted(s), delta));
    if (in_.strong_convexity && in_.learning_rate) {
      const double c_ys = 1 - *in_.learning_rate * *in_.strong_convexity / 2;
      out.rows.push_back(rdp_row("rdp-ys22", "YS22 Thm D.6 (as in the paper's code)",
                                 ys22_noisy_gd_rho(s, c_ys), delta,
                                 "c_ys = 1 - eta m/2 (inferred; BSA24 Fig. 1 uses 0.975)"));
    }
  } else if (setting == convexity::constrained_convex) {
    const double k = s.diameter * double(s.examples) / (s.learning_rate * s.sensitivity);
    out.rows.push_back(gdp_row("shifted-interpolation", noisy_gd_shifted(s), delta));
    if (double(s.steps) >= k)
      out.rows.push_back(
          gdp_row("shifted-interpolation (Thm 4.3)", noisy_gd_constrained_convex(s), delta));
    out.rows.push_back(gdp_row("shifted-interpolation (Thm C.7 at best tau)",
                               noisy_gd_constrained_convex_best_tau(s), delta));
  }
  out.rows.push_back(gdp_row("composition", noisy_gd_composition(s), delta));
}

void noisy_cgd_rows(report_result& out, convexity setting, double delta) {
  const noisy_gradient_setting& s = out.setting;
  if (setting == convexity::strongly_convex) {
    out.rows.push_back(gdp_row("shifted-interpolation", noisy_cgd_strongly_convex(s), delta));
    out.rows.push_back(gdp_row("lower-bound", noisy_cgd_strongly_convex_lower(s), delta));
    out.rows.push_back(rdp_row("rdp-ys22", "YS22 Thm 3.3 (as in the paper's code)",
                               ys22_noisy_cgd_rho(s), delta, ""));
  } else {
    const bool constrained = setting == convexity::constrained_convex;
    if (constrained)
      out.rows.push_back(gdp_row("shifted-interpolation", noisy_cgd_shifted(s), delta));
    out.rows.push_back(
        gdp_row("shifted-interpolation (derived c = 1)", noisy_cgd_convex(s), delta));
    if (constrained) {
      const double k = s.diameter * double(s.batch_size) / (s.learning_rate * s.sensitivity);
      const double E = double(s.steps) / double(s.examples / s.batch_size);
      if (E >= k)
        out.rows.push_back(
            gdp_row("shifted-interpolation (Thm 4.6)", noisy_cgd_constrained_convex(s), delta));
      out.rows.push_back(gdp_row("shifted-interpolation (Thm 4.6 at best tau)",
                                 noisy_cgd_constrained_convex_best_tau(s), delta));
    }
  }
  out.rows.push_back(gdp_row("composition", noisy_cgd_composition(s), delta));
}

void noisy_sgd_rows(report_result& out, convexity setting, const report_inputs& in_, double delta) {
  const noisy_gradient_setting& s = out.setting;
  const bool strongly = setting == convexity::strongly_convex;
  if (s.batch_size > s.examples)
    refuse(in("batch_size") + " is " + std::to_string(s.batch_size) +
           ", but must be <= " + in("dataset_size") + " = " + std::to_string(s.examples));
  const sgd_search_options& so = in_.sgd;
  if (in_.shifts) {
    if (!strongly)
      refuse(in("shifts") + " applies to " + in("setting", "strongly-convex") + " (Thm C.13)");
    std::vector<double> shifts = *in_.shifts;
    if (static_cast<long long>(shifts.size()) != s.steps - 1)
      refuse(in("shifts") + " has " + std::to_string(shifts.size()) +
             " values, but must have steps - 1 = " + std::to_string(s.steps - 1));
    const double step = s.learning_rate * s.sensitivity / double(s.batch_size);
    for (double& x : shifts) {
      if (!(x >= 0 && x <= 1))
        refuse(in("shifts") + ": each value is a_k/(eta L/b) and must be in [0, 1], not " +
               ten_digits(x));
      x *= step;
    }
    sgd_bound g;
    g.source = "BSA24 Thm C.13 (the given shifts, PLD)";
    g.alpha = std::sqrt(2.0);
    try {
      g.run = noisy_sgd_general_run(s, shifts);
    } catch (const argument_error& e) {
      refuse(in("shifts") + ": " + e.name() + " is " + e.value() + ", but must be " +
             e.constraint());
    }
    g.estimate =
        accounting::estimate_epsilon(g.run, delta, accounting::accountant_type::pld, so.pld);
    g.evaluations = 1;
    out.rows.push_back(sgd_row("shifted-interpolation (C.13 shifts)", g));
  }
  if (strongly && s.steps < 2) {
    out.notes.push_back(
        "Thm 4.9 needs t >= 2 (tau in 1..t-1); at t = 1 composition is exact (BSA24 §C.4.1)");
  } else if (strongly || setting == convexity::constrained_convex) {
    const long long k_range = strongly ? s.steps - 1 : s.steps;
    report_row r =
        sgd_row("shifted-interpolation", strongly ? noisy_sgd_strongly_convex(s, delta, so)
                                                  : noisy_sgd_constrained_convex(s, delta, so));
    r.exhaustive = k_range <= so.exhaustive_limit;
    out.rows.push_back(std::move(r));
    add_clt_row(out,
                strongly ? noisy_sgd_strongly_convex_clt(s) : noisy_sgd_constrained_convex_clt(s),
                k_range, delta);
  }
  out.rows.push_back(sgd_row("composition", noisy_sgd_composition(s, delta, so)));
}

}  // namespace

std::optional<algorithm> parse_algorithm(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kAlgorithmNames.size(); ++i)
    if (same_name(name, kAlgorithmNames[i])) return static_cast<algorithm>(i);
  return std::nullopt;
}

std::optional<convexity> parse_convexity(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kConvexityNames.size(); ++i)
    if (same_name(name, kConvexityNames[i])) return static_cast<convexity>(i);
  return std::nullopt;
}

namespace {

using speller = std::function<std::string(std::string_view name, std::string_view value)>;

// The text with each "$(name)" / "$(name=value)" replaced by spell(name, value).
std::string spelled(const std::string& text, const speller& spell) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find("$(", i);
    const std::size_t close = open == std::string::npos ? open : text.find(')', open);
    if (close == std::string::npos) {
      out.append(text, i, std::string::npos);
      break;
    }
    out.append(text, i, open - i);
    const std::string_view inner(text.data() + open + 2, close - open - 2);
    const std::size_t eq = inner.find('=');
    out += eq == std::string_view::npos ? spell(inner, {})
                                        : spell(inner.substr(0, eq), inner.substr(eq + 1));
    i = close + 1;
  }
  return out;
}

std::string library_spelling(std::string_view name, std::string_view value) {
  return value.empty() ? std::string(name) : std::string(name) + " " + std::string(value);
}

}  // namespace

report_error::report_error(std::string text)
    : std::invalid_argument(spelled(text, library_spelling)), text_(std::move(text)) {}

std::string report_error::render(const speller& spell) const {
  return spelled(text_, spell);
}

report_result report(algorithm a, convexity setting, const report_inputs& in_, double delta) {
  constexpr const char* kFn = "shifted::report";
  check_open_probability(kFn, "delta", delta);
  // A setting's own inputs given to an algorithm that does not use them are refused, not
  // ignored (as batches_per_epoch and epochs below).
  if (in_.shifts && a != algorithm::noisy_sgd)
    refuse(in("shifts") + " applies to noisy-sgd only (Thm C.13)");
  const bool lmc_ = a == algorithm::lmc;
  const bool strongly = setting == convexity::strongly_convex;
  const bool constrained = setting == convexity::constrained_convex;
  report_result out;
  const double c = resolve_contraction(in_, strongly, lmc_);
  if (constrained && !in_.diameter)
    refuse(in("setting", "constrained-convex") + " needs " + in("diameter") + " D");
  if (lmc_) {
    lmc_rows(out, setting, in_, delta);
    return out;
  }
  noisy_gradient_setting& s = out.setting;
  s.sensitivity = need(in_.sensitivity, "sensitivity", "(gradient sensitivity L)");
  s.noise = need(in_.noise, "noise", "(the noise rate sigma of BSA24 (2.1))");
  s.learning_rate = in_.learning_rate.value_or(NAN);
  s.contraction = c;
  s.diameter = in_.diameter.value_or(INFINITY);
  resolve_lengths(s, a, in_);
  if ((constrained || strongly) && !in_.learning_rate &&
      (constrained || a != algorithm::noisy_gd || !in_.contraction))
    refuse(in("learning_rate") + " is required for " + in("setting", to_string(setting)));
  const std::vector<double> schedule = schedule_of(a, in_, s.steps);
  if (!schedule.empty())
    out.rows.push_back(gdp_row(
        "shifted-interpolation (schedule)",
        noisy_gd_shifted_schedule(s, schedule, *in_.strong_convexity, *in_.smoothness), delta));
  switch (a) {
    case algorithm::noisy_gd:
      noisy_gd_rows(out, setting, in_, schedule, delta);
      break;
    case algorithm::noisy_cgd:
      noisy_cgd_rows(out, setting, delta);
      break;
    case algorithm::noisy_sgd:
      noisy_sgd_rows(out, setting, in_, delta);
      break;
    case algorithm::lmc:
      break;
  }
  if (!strongly && !constrained)
    out.notes.push_back(std::string("convex without a diameter: BSA24 gives no convergent bound "
                                    "here") +
                        (a == algorithm::noisy_cgd
                             ? " except the derived c = 1 bound for cyclic batches"
                             : "; composition is the bound"));
  return out;
}

}  // namespace dpkit::shifted
