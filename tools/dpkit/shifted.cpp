// dpkit shifted — last-iterate privacy of noisy gradient methods by shifted interpolation
// (BSA24), beside the composition bound and the RDP bound the paper compares with.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/accounting/run_tradeoff.hpp"
#include "dpkit/core/grid.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "dpkit/divergence/rdp.hpp"
#include "dpkit/shifted/bounds.hpp"
#include "dpkit/shifted/noisy_sgd.hpp"

namespace dpkit::cli {
namespace {

struct shifted_options {
  std::string algorithm;
  std::string setting = "strongly-convex";
  std::optional<double> sensitivity;
  std::optional<long long> n;
  std::optional<long long> batch_size;
  std::optional<double> noise;
  std::optional<double> learning_rate;
  std::optional<double> strong_convexity;
  std::optional<double> smoothness;
  std::optional<double> contraction;
  std::optional<double> diameter;
  std::optional<long long> steps;
  std::optional<long long> epochs;
  std::optional<long long> batches_per_epoch;
  std::optional<double> lr_decay;
  double delta = 1e-5;
  long long tradeoff_points = 0;
  bool optimise_split = false;
  bool exhaustive_tau = false;
  std::string shifts;  // Thm C.13: a file or a comma-separated list of a_k/(eta L/b)
  double accuracy = 1e-3;
  output_options output;
};

// --shifts: a file or an inline list of numbers separated by commas, spaces or newlines.
std::vector<double> read_shifts(const std::string& arg) {
  std::string text = arg;
  if (std::filesystem::is_regular_file(arg)) {
    std::ifstream in(arg);
    std::stringstream all;
    all << in.rdbuf();
    text = all.str();
  }
  for (char& ch : text)
    if (ch == ',' || ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
  std::istringstream in(text);
  std::vector<double> out;
  std::string cell;
  while (in >> cell) {
    std::size_t used = 0;
    double v = NAN;
    try {
      v = std::stod(cell, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != cell.size() || !std::isfinite(v))
      throw usage_error("--shifts: '" + cell +
                        "' is not a number (give a file or a list like 0,0,1,1)");
    out.push_back(v);
  }
  return out;
}

template <class T>
T need(const std::optional<T>& v, const std::string& flag, const std::string& why) {
  if (!v) throw usage_error(flag + " is required " + why);
  return *v;
}

// One result row: a bound with its μ (where GDP), ε at δ, label and optimal τ; the run it
// corresponds to (for --tradeoff-points).
struct row {
  std::string bound, source;
  double mu = NAN, epsilon = NAN, epsilon_lower = NAN;
  bound_kind kind = bound_kind::upper_bound;
  long long tau = -1;
  std::string note;
  std::optional<accounting::training_run> run;
};

row gdp_row(const std::string& bound, const shifted::gdp_bound& g, double delta) {
  row r;
  r.bound = bound;
  r.source = g.source;
  r.mu = g.mu;
  r.kind = g.kind;
  r.tau = g.tau;
  r.note = g.note;
  r.epsilon = divergence::gdp_epsilon(g.mu, delta).value;
  accounting::training_run run;
  run.gaussian_mu = g.mu;
  r.run = run;
  return r;
}

row rdp_row(const std::string& source, double rho, double delta, const std::string& note) {
  row r;
  r.bound = "rdp-ys22";
  r.source = source;
  r.epsilon = divergence::rdp_epsilon(divergence::rdp_curve::linear(rho), delta).value;
  r.note = note;
  return r;
}

// The CLT approximation of Props C.14/C.15 as a row, or, where its μ is beyond 1e6 or infinite
// (K(μ) grows like e^{μ²} and overflows a double for large L/(bσ)), a note instead: ε would be
// beyond 5e11, and the approximation says nothing there.
void add_clt_row(std::vector<row>& rows,
                 report& rep,
                 const shifted::clt_choice& clt,
                 double delta) {
  if (!(clt.bound.mu <= 1e6)) {
    rep.notes.push_back(
        "shifted-interpolation (CLT): not shown, the CLT approximation's mu is " +
        format_number(clt.bound.mu) +
        " (beyond 1e6: K(2L/(b sigma)) grows like exp((2L/(b sigma))^2)); the certified rows "
        "stand");
    return;
  }
  row r = gdp_row("shifted-interpolation (CLT)", clt.bound, delta);
  r.note = "CLT choice t - tau = " + format_number(clt.steps_after_tau) + "; an approximation";
  rows.push_back(r);
}

row sgd_row(const std::string& bound, const shifted::sgd_bound& b) {
  row r;
  r.bound = bound;
  r.source = b.source;
  r.epsilon = b.estimate.value;
  r.epsilon_lower = b.estimate.lower;
  r.kind = b.estimate.kind;
  r.tau = b.tau;
  r.note = b.run.describe();
  if (std::isfinite(b.alpha) && std::abs(b.alpha - std::sqrt(2.0)) > 1e-12)
    r.note += "; noise split alpha = " + format_number(b.alpha);
  r.run = b.run;
  return r;
}

int run_shifted(const shifted_options& o) {
  const std::string& a = o.algorithm;
  const bool cyclic = a == "noisy-cgd", stochastic = a == "noisy-sgd", lmc = a == "lmc";
  const std::string& setting = o.setting;
  const bool strongly = setting == "strongly-convex", constrained = setting == "constrained-convex";

  // ---- contraction from (η, m, M) or given
  std::optional<double> c = o.contraction;
  if (!c && strongly && !lmc) {
    if (!o.strong_convexity || !o.smoothness || !o.learning_rate)
      throw usage_error(
          "--setting strongly-convex needs --contraction, or --learning-rate with "
          "--strong-convexity and --smoothness (c = max{|1 - eta m|, |1 - eta M|})");
    c = shifted::contraction(*o.learning_rate, *o.strong_convexity, *o.smoothness);
  }
  if (!c) c = 1.0;
  if (strongly && !lmc && !(*c < 1))
    throw usage_error("--contraction is " + format_number(*c) +
                      ", but must be < 1 for --setting strongly-convex");
  if (constrained && !o.diameter)
    throw usage_error("--setting constrained-convex needs --diameter D");

  report rep;
  rep.tool = "dpkit shifted";
  rep.parameters = {{"algorithm", a}, {"setting", setting}, {"delta", o.delta}};
  std::vector<row> rows;
  const double delta = o.delta;

  if (lmc) {
    const double L = need(o.sensitivity, "--sensitivity", "(F - F' is L-Lipschitz)");
    if (strongly) {
      const double m = need(o.strong_convexity, "--strong-convexity", "for LMC");
      const double eta = need(o.learning_rate, "--learning-rate", "for LMC");
      rows.push_back(gdp_row("shifted-interpolation", shifted::lmc(L, m, eta), delta));
      if (o.steps)
        rows.push_back(gdp_row("shifted-interpolation (t steps)",
                               shifted::lmc_at(L, m, eta, *o.steps), delta));
      rows.push_back(gdp_row("exponential-mechanism", shifted::exponential_mechanism(L, m), delta));
    } else if (constrained) {
      rows.push_back(
          gdp_row("log-concave-mechanism", shifted::log_concave_mechanism(L, *o.diameter), delta));
      if (o.learning_rate)
        rows.push_back(gdp_row("projected-lmc",
                               shifted::projected_lmc(L, *o.diameter, *o.learning_rate), delta));
      row ref;
      ref.bound = "pure-dp (MT07)";
      ref.source = "exponential mechanism, standard analysis";
      ref.epsilon = 2 * L * *o.diameter;
      ref.note =
          "(2LD, 0)-DP. As tradeoff curves, G(2 sqrt(LD)) is not implied by it exactly "
          "when LD > " +
          format_number(shifted::exponential_mechanism_threshold()) +
          " (BSA24 D.4); at one delta either epsilon can be the smaller";
      rows.push_back(ref);
    } else {
      throw usage_error(
          "--setting convex: BSA24 has no LMC bound without strong convexity or a "
          "diameter (use strongly-convex or constrained-convex)");
    }
  } else {
    shifted::noisy_gradient_setting s;
    s.sensitivity = need(o.sensitivity, "--sensitivity", "(gradient sensitivity L)");
    s.noise = need(o.noise, "--noise-std", "(the noise rate sigma of BSA24 (2.1))");
    s.learning_rate = o.learning_rate.value_or(NAN);
    s.contraction = *c;
    s.diameter = o.diameter.value_or(INFINITY);
    if (cyclic || stochastic) s.batch_size = need(o.batch_size, "--batch-size", "for " + a);
    if (o.batches_per_epoch && !cyclic)
      throw usage_error("--batches-per-epoch applies to noisy-cgd only");
    if (cyclic && o.batches_per_epoch && !o.n)
      s.examples = *o.batches_per_epoch * s.batch_size;
    else
      s.examples = need(o.n, "--dataset-size", "(the number of examples)");
    if (cyclic && o.batches_per_epoch && *o.batches_per_epoch * s.batch_size != s.examples)
      throw usage_error(
          "--batches-per-epoch is " + std::to_string(*o.batches_per_epoch) +
          ", but must be n/b = " + format_number(double(s.examples) / double(s.batch_size)));
    if (o.epochs && o.steps) throw usage_error("give --steps or --epochs, not both");
    if (o.epochs) {
      if (!cyclic) throw usage_error("--epochs applies to noisy-cgd (use --steps)");
      if (s.examples % s.batch_size != 0)
        throw usage_error("--dataset-size is " + std::to_string(s.examples) +
                          ", but must be a multiple of --batch-size");
      s.steps = *o.epochs * (s.examples / s.batch_size);
    } else {
      s.steps = need(o.steps, "--steps", "(or --epochs for noisy-cgd)");
    }
    rep.parameters["n"] = s.examples;
    rep.parameters["steps"] = s.steps;
    rep.parameters["contraction"] = s.contraction;
    if (s.batch_size > 0) rep.parameters["batch_size"] = s.batch_size;
    if (constrained || strongly) {
      if (!o.learning_rate && (constrained || stochastic || cyclic || !o.contraction))
        throw usage_error("--learning-rate is required for --setting " + setting);
    }

    if (o.lr_decay && (a != "noisy-gd" || !o.strong_convexity || !o.smoothness || !o.learning_rate))
      throw usage_error(
          "--lr-decay applies to noisy-gd and needs --learning-rate, "
          "--strong-convexity and --smoothness (per-step contractions)");
    if (a == "noisy-gd" && o.lr_decay) {
      // A schedule η_k = η/(1 + k/τ): the optimisation problem with per-step contractions.
      std::vector<double> etas;
      for (long long k = 0; k < s.steps; ++k)
        etas.push_back(*o.learning_rate / (1 + static_cast<double>(k) / *o.lr_decay));
      rows.push_back(gdp_row(
          "shifted-interpolation (schedule)",
          shifted::noisy_gd_shifted_schedule(s, etas, *o.strong_convexity, *o.smoothness), delta));
      rep.parameters["lr_decay"] = *o.lr_decay;
    }
    if (a == "noisy-gd") {
      if (strongly && o.lr_decay) {
        // the constant-η closed forms do not apply to a schedule
      } else if (strongly) {
        const shifted::gdp_bound ours = shifted::noisy_gd_strongly_convex(s);
        rows.push_back(gdp_row("shifted-interpolation", ours, delta));
        rows.push_back(rdp_row("BSA24 Thm 4.2 + Lemma A.4 (RDP, as in its Figure 1)",
                               ours.mu * ours.mu / 2, delta, ""));
        rows.back().bound = "rdp-shifted";
        if (std::isfinite(s.diameter))
          rows.push_back(gdp_row("shifted-interpolation (with diameter)",
                                 shifted::noisy_gd_shifted(s), delta));
        if (o.strong_convexity && o.learning_rate) {
          const double c_ys = 1 - *o.learning_rate * *o.strong_convexity / 2;
          rows.push_back(rdp_row("YS22 Thm D.6 (as in the paper's code)",
                                 shifted::ys22_noisy_gd_rho(s, c_ys), delta,
                                 "c_ys = 1 - eta m/2 (inferred; BSA24 Fig. 1 uses 0.975)"));
        }
      } else if (constrained) {
        const double k = s.diameter * double(s.examples) / (s.learning_rate * s.sensitivity);
        rows.push_back(gdp_row("shifted-interpolation", shifted::noisy_gd_shifted(s), delta));
        if (double(s.steps) >= k)
          rows.push_back(gdp_row("shifted-interpolation (Thm 4.3)",
                                 shifted::noisy_gd_constrained_convex(s), delta));
        rows.push_back(gdp_row("shifted-interpolation (Thm C.7 at best tau)",
                               shifted::noisy_gd_constrained_convex_best_tau(s), delta));
      }
      rows.push_back(gdp_row("composition", shifted::noisy_gd_composition(s), delta));
    } else if (cyclic) {
      if (strongly) {
        rows.push_back(
            gdp_row("shifted-interpolation", shifted::noisy_cgd_strongly_convex(s), delta));
        rows.push_back(gdp_row("lower-bound", shifted::noisy_cgd_strongly_convex_lower(s), delta));
        rows.push_back(rdp_row("YS22 Thm 3.3 (as in the paper's code)",
                               shifted::ys22_noisy_cgd_rho(s), delta, ""));
      } else {
        if (constrained)
          rows.push_back(gdp_row("shifted-interpolation", shifted::noisy_cgd_shifted(s), delta));
        rows.push_back(
            gdp_row("shifted-interpolation (derived c = 1)", shifted::noisy_cgd_convex(s), delta));
        if (constrained) {
          const double k = s.diameter * double(s.batch_size) / (s.learning_rate * s.sensitivity);
          const double E = double(s.steps) / double(s.examples / s.batch_size);
          if (E >= k)
            rows.push_back(gdp_row("shifted-interpolation (Thm 4.6)",
                                   shifted::noisy_cgd_constrained_convex(s), delta));
          rows.push_back(gdp_row("shifted-interpolation (Thm 4.6 at best tau)",
                                 shifted::noisy_cgd_constrained_convex_best_tau(s), delta));
        }
      }
      rows.push_back(gdp_row("composition", shifted::noisy_cgd_composition(s), delta));
    } else {  // noisy-sgd
      shifted::sgd_search_options so;
      so.pld.relative_accuracy = o.accuracy;
      so.optimise_split = o.optimise_split;
      if (o.exhaustive_tau) {
        so.exhaustive_limit = std::numeric_limits<long long>::max();
        if (isatty(2))
          so.progress = [](long long done, long long total) {
            if (done % 16 == 0 || done == total)
              std::cerr << "\rdpkit shifted: tau candidate " << done << "/" << total
                        << (done == total ? "\n" : "") << std::flush;
          };
      }
      if (s.batch_size > s.examples)
        throw usage_error("--batch-size is " + std::to_string(s.batch_size) +
                          ", but must be <= --dataset-size = " + std::to_string(s.examples));
      if (!o.shifts.empty()) {
        if (!strongly)
          throw usage_error("--shifts applies to --setting strongly-convex (Thm C.13)");
        std::vector<double> shifts = read_shifts(o.shifts);
        if (static_cast<long long>(shifts.size()) != s.steps - 1)
          throw usage_error("--shifts has " + std::to_string(shifts.size()) +
                            " values, but must have steps - 1 = " + std::to_string(s.steps - 1));
        const double step = s.learning_rate * s.sensitivity / double(s.batch_size);
        for (double& x : shifts) {
          if (!(x >= 0 && x <= 1))
            throw usage_error("--shifts: each value is a_k/(eta L/b) and must be in [0, 1], not " +
                              format_number(x));
          x *= step;
        }
        shifted::sgd_bound g;
        g.source = "BSA24 Thm C.13 (the given shifts, PLD)";
        g.alpha = std::sqrt(2.0);
        try {
          g.run = shifted::noisy_sgd_general_run(s, shifts);
        } catch (const std::domain_error& e) {
          throw usage_error(std::string("--shifts: ") + e.what());
        }
        g.estimate =
            accounting::estimate_epsilon(g.run, delta, accounting::accountant_type::pld, so.pld);
        rows.push_back(sgd_row("shifted-interpolation (C.13 shifts)", g));
      }
      if (strongly && s.steps < 2) {
        rep.notes.push_back(
            "Thm 4.9 needs t >= 2 (tau in 1..t-1); at t = 1 composition is exact "
            "(BSA24 §C.4.1)");
      } else if (strongly) {
        rows.push_back(
            sgd_row("shifted-interpolation", shifted::noisy_sgd_strongly_convex(s, delta, so)));
        add_clt_row(rows, rep, shifted::noisy_sgd_strongly_convex_clt(s), delta);
      } else if (constrained) {
        rows.push_back(
            sgd_row("shifted-interpolation", shifted::noisy_sgd_constrained_convex(s, delta, so)));
        add_clt_row(rows, rep, shifted::noisy_sgd_constrained_convex_clt(s), delta);
      }
      rows.push_back(sgd_row("composition", shifted::noisy_sgd_composition(s, delta, so)));
    }
  }

  if (!strongly && !constrained)
    rep.notes.push_back("convex without a diameter: BSA24 gives no convergent bound here" +
                        std::string(cyclic ? " except the derived c = 1 bound for cyclic batches"
                                           : "; composition is the bound"));
  const std::string title_alg = lmc ? "LMC" : a;
  rep.title = "privacy of the last iterate of " + title_alg + " (" + setting +
              "), epsilon at delta = " + format_number(delta);
  if (o.tradeoff_points >= 2) {
    const std::vector<double> alphas =
        linspace(0.0, 1.0, static_cast<std::size_t>(o.tradeoff_points));
    accounting::pld_options pld;
    pld.relative_accuracy = o.accuracy;
    rep.columns = {"bound", "alpha", "beta", "beta_upper"};
    for (const row& r : rows) {
      if (!r.run) continue;
      const auto t = accounting::run_tradeoff(*r.run, alphas, pld);
      for (std::size_t i = 0; i < alphas.size(); ++i)
        rep.results.push_back({{"bound", r.bound},
                               {"kind", std::string(to_string(r.kind))},
                               {"alpha", alphas[i]},
                               {"beta", t.beta_lower[i]},
                               {"beta_upper", t.beta_upper[i]}});
    }
    rep.notes.insert(rep.notes.begin(),
                     "beta: the bound's tradeoff curve (for upper bounds on privacy loss, no test "
                     "has a smaller type II error); beta_upper = beta for GDP curves, the "
                     "certified other side for PLD-composed ones");
  } else {
    rep.columns = {"bound", "mu", "epsilon", "kind", "tau", "source"};
    for (const row& r : rows) {
      json j = {{"bound", r.bound}, {"source", r.source}};
      j["mu"] = std::isfinite(r.mu) ? json(r.mu) : json(nullptr);
      j["epsilon"] = std::isfinite(r.epsilon) ? json(r.epsilon) : json(nullptr);
      if (std::isfinite(r.epsilon_lower)) j["epsilon_lower"] = r.epsilon_lower;
      j["kind"] = std::string(to_string(r.kind));
      j["tau"] = r.tau >= 0 ? json(r.tau) : json(nullptr);
      if (!r.note.empty()) j["note"] = r.note;
      rep.results.push_back(j);
    }
    rep.notes.insert(
        rep.notes.begin(),
        {"mu: the Gaussian-DP parameter (T(X_t, X'_t) >= G(mu)); epsilon from mu exactly, "
         "from RDP by the best of four conversions, or certified by PLD for NoisySGD",
         "kind: upper-bound = a guarantee; lower-bound = no better guarantee can hold; "
         "approximation = CLT, no guarantee",
         "tau: where the shifted interpolation starts (noisy-cgd Thm 4.6: in epochs)"});
    for (const row& r : rows)
      if (!r.note.empty()) rep.notes.push_back(r.bound + ": " + r.note);
  }
  emit(rep, o.output);
  return kExitSuccess;
}

}  // namespace

void register_shifted(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<shifted_options>();
  CLI::App* sub = app.add_subcommand(
      "shifted",
      "Last-iterate privacy of noisy gradient descent (full, cyclic or random batches) and "
      "Langevin Monte Carlo by shifted interpolation (BSA24), beside composition and RDP");
  sub->add_option("algorithm", o->algorithm, "noisy-gd, noisy-cgd, noisy-sgd or lmc")
      ->required()
      ->check(CLI::IsMember({"noisy-gd", "noisy-cgd", "noisy-sgd", "lmc"}));
  sub->add_option(
         "--setting", o->setting,
         "strongly-convex (needs --contraction, or --learning-rate, --strong-convexity and "
         "--smoothness), convex, or constrained-convex (needs --diameter)")
      ->check(CLI::IsMember({"strongly-convex", "convex", "constrained-convex"}))
      ->capture_default_str();
  sub->add_option("--sensitivity", o->sensitivity,
                  "Gradient sensitivity L = sup |grad f - grad f'| (an L-Lipschitz loss has 2L)")
      ->check(real_greater_than(0))
      ->type_name("L");
  sub->add_option("--dataset-size", o->n, "Number of examples n")->check(integer_at_least(1));
  sub->add_option("--batch-size", o->batch_size, "Batch size b (noisy-cgd, noisy-sgd)")
      ->check(integer_at_least(1))
      ->type_name("B");
  sub->add_option("--noise-std", o->noise,
                  "Noise rate sigma of BSA24 (2.1): X <- X - eta (grad + N(0, sigma^2 I))")
      ->check(real_greater_than(0))
      ->type_name("SIGMA");
  sub->add_option("--learning-rate", o->learning_rate, "Step size eta")
      ->check(real_greater_than(0))
      ->type_name("ETA");
  sub->add_option("--strong-convexity", o->strong_convexity, "m (strongly convex losses; LMC)")
      ->check(real_greater_than(0))
      ->type_name("M");
  sub->add_option("--smoothness", o->smoothness, "M, the smoothness constant")
      ->check(real_greater_than(0));
  sub->add_option("--contraction", o->contraction,
                  "c in (0, 1]: overrides c = max{|1 - eta m|, |1 - eta M|}")
      ->check(finite_real_in_half_open_unit())
      ->type_name("C");
  sub->add_option("--diameter", o->diameter, "Diameter D of the constraint set")
      ->check(real_greater_than(0))
      ->type_name("D");
  sub->add_option("--steps", o->steps, "Number of steps t")
      ->check(integer_at_least(1))
      ->type_name("T");
  sub->add_option("--epochs", o->epochs, "Epochs E (noisy-cgd; t = E n/b)")
      ->check(integer_at_least(1))
      ->type_name("E");
  sub->add_option("--batches-per-epoch", o->batches_per_epoch,
                  "l = n/b (noisy-cgd); --dataset-size defaults to l b")
      ->check(integer_at_least(1))
      ->type_name("L");
  sub->add_option("--lr-decay", o->lr_decay,
                  "noisy-gd: learning-rate schedule eta_k = eta/(1 + k/TAU), with per-step "
                  "contractions from --strong-convexity and --smoothness (not in the paper)")
      ->check(real_greater_than(0))
      ->type_name("TAU");
  add_delta_option(sub, o->delta, false);
  sub->add_option("--tradeoff-points", o->tradeoff_points,
                  "Emit each bound's tradeoff curve at N equally spaced alpha instead of the table")
      ->check(integer_at_least(2))
      ->type_name("N");
  sub->add_flag("--optimise-split", o->optimise_split,
                "noisy-sgd: also optimise the split of the last step's noise (footnotes 10/11)");
  sub->add_flag("--exhaustive-tau", o->exhaustive_tau,
                "noisy-sgd: certify every tau in 1..t-1 (default: every tau up to t = 64, then a "
                "golden-section search on t - tau, which is a valid bound but may miss the best "
                "tau; one PLD evaluation per tau, ~20 ms each)");
  sub->add_option("--shifts", o->shifts,
                  "noisy-sgd, strongly convex: Thm C.13 with your own shifts — a file or a list of "
                  "t - 1 numbers a_k/(eta L/b) in [0, 1] (Thm 4.9 is 0 before tau, 1 after); the "
                  "running shift z_k = c z_{k-1} + eta L/b - a_k must stay >= 0")
      ->type_name("FILE|LIST");
  sub->add_option("--accuracy", o->accuracy, "PLD relative accuracy (noisy-sgd, curves)")
      ->check(pld_accuracy_validator())
      ->capture_default_str();
  add_output_options(sub, o->output);
  sub->footer(
      "Examples (BSA24's figures and tables):\n"
      "  dpkit shifted noisy-gd --sensitivity 1 --dataset-size 1 --noise-std 1 --contraction 0.95 "
      "--steps 100\n"
      "  dpkit shifted noisy-gd --setting constrained-convex --sensitivity 1 --dataset-size 100 "
      "--noise-std 0.1 "
      "--learning-rate 1 --diameter 1 --steps 1000\n"
      "  dpkit shifted noisy-cgd --sensitivity 1 --batch-size 10 --batches-per-epoch 20 "
      "--noise-std 1 "
      "--learning-rate 0.1 "
      "--contraction 0.99 --epochs 50\n"
      "  dpkit shifted noisy-sgd --sensitivity 1 --dataset-size 1000 --batch-size 100 --noise-std "
      "0.5 "
      "--learning-rate 0.5 --contraction 0.9 --steps 6400\n"
      "  dpkit shifted lmc --sensitivity 2 --strong-convexity 1 --learning-rate 0.1\n"
      "docs/shifted.md has the formulas and sources.");
  sub->callback([o, &exit_code] { exit_code = run_shifted(*o); });
}

}  // namespace dpkit::cli
