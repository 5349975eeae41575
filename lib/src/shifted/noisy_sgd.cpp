#include "dpkit/shifted/noisy_sgd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "dpkit/core/check.hpp"
#include "dpkit/core/integer_search.hpp"

namespace dpkit::shifted {
namespace {

struct sgd_parts {
  double L, sigma, b, n, t;
};

sgd_parts parts(const char* fn, const noisy_gradient_setting& s) {
  check_positive(fn, "sensitivity", s.sensitivity);
  check_positive(fn, "noise", s.noise);
  check_at_least(fn, "batch_size", s.batch_size, 1);
  check_at_least(fn, "examples", s.examples, s.batch_size);
  check_at_least(fn, "steps", s.steps, 1);
  return {s.sensitivity, s.noise, static_cast<double>(s.batch_size),
          static_cast<double>(s.examples), static_cast<double>(s.steps)};
}

// C_p(G(μ)) as a without-replacement phase: that phase is C_q(G(2/σ_nm)) (training_run.hpp).
accounting::training_phase subsampled(double p, double mu, long long count) {
  accounting::training_phase ph;
  ph.sampling = accounting::sampling_scheme::without_replacement;
  ph.sampling_rate = p;
  ph.noise_multiplier = 2 / mu;
  ph.steps = count;
  return ph;
}

double beta_of(const char* fn, double alpha) {
  if (!(alpha > 1 && std::isfinite(alpha)))
    throw_domain_error(fn, "alpha", alpha, "finite and > 1 (1/alpha^2 + 1/beta^2 = 1)");
  return alpha / std::sqrt(alpha * alpha - 1);
}

// min over integers k ∈ [lo, hi] of eps(k): exhaustive for small ranges, otherwise a
// golden-section search on the integers followed by a look at the neighbours of the best.
template <class F>
std::pair<long long, double> minimise_over_k(
    F eps,
    long long lo,
    long long hi,
    long long limit,
    const std::function<void(long long, long long)>& progress) {
  std::map<long long, double> cache;
  auto f = [&](long long k) {
    auto it = cache.find(k);
    if (it != cache.end()) return it->second;
    const double v = eps(k);
    cache.emplace(k, v);
    return v;
  };
  if (hi - lo + 1 <= limit) {
    for (long long k = lo; k <= hi; ++k) {
      f(k);
      if (progress) progress(k - lo + 1, hi - lo + 1);
    }
  } else {
    const auto [a, b] = golden_section_bracket(f, lo, hi);
    for (long long k = a; k <= b; ++k) f(k);
    f(lo);
    f(hi);
  }
  auto best = std::min_element(cache.begin(), cache.end(),
                               [](const auto& x, const auto& y) { return x.second < y.second; });
  return {best->first, best->second};
}

// Where the sensitivity is too large for the noise, the runs' G(μ) factor is above μ = 1e6 or
// their noise multiplier below 1e-100, which the accountants refuse (ε is beyond 5e11 there).
// A row then says so instead of the accountants' internal names (a probe's --sensitivity 1e308
// said "noise_multiplier is 2e-308").
const char* const kBeyondAccountants =
    "the run is beyond the accountants' range (a G(mu) factor above mu = 1e6 or a noise "
    "multiplier below 1e-100: too little noise for the sensitivity, diameter or step): no "
    "epsilon";

accounting::privacy_estimate beyond_accountants() {
  accounting::privacy_estimate e;
  e.value = e.upper = std::numeric_limits<double>::infinity();
  e.termination = termination_type::failure;
  e.message = kBeyondAccountants;
  return e;
}

// The PLD estimate of a run, or beyond_accountants() where its validation refuses it.
accounting::privacy_estimate estimate_or_beyond(const accounting::training_run& run,
                                                double delta,
                                                const accounting::pld_options& pld) {
  try {
    run.validate("noisy_sgd", /*edge_values=*/true);  // as estimate_epsilon validates
  } catch (const argument_error&) {
    return beyond_accountants();
  }
  // The PLD engine's own limits refuse a run too (more than 1e8 steps: a golden-section probe
  // at k = 381 966 012 of t = 1e9 failed the whole bound with "--steps is 381966012"): +∞, and
  // the message says which limit.
  try {
    return accounting::estimate_epsilon(run, delta, accounting::accountant_type::pld, pld);
  } catch (const argument_error& a) {
    accounting::privacy_estimate e = beyond_accountants();
    e.message = "the run is beyond what the PLD accountant composes (its " + a.name() + ", " +
                a.value() + ", must be " + a.constraint().substr(0, a.constraint().find(" (")) +
                "): no epsilon";
    return e;
  }
}

template <class Run>
sgd_bound search(const char* source,
                 const noisy_gradient_setting& s,
                 double delta,
                 const sgd_search_options& o,
                 long long k_lo,
                 long long k_hi,
                 Run run_at) {
  // The caller's own inputs are checked first: the refusals caught below are the runs'.
  check_open_probability(source, "delta", delta);
  o.pld.validate(source);
  sgd_bound best;
  best.source = source;
  std::vector<double> alphas = {std::sqrt(2.0)};
  if (o.optimise_split) alphas = {1.05, 1.15, 1.25, std::sqrt(2.0), 1.6, 2.0, 3.0, 5.0};
  double best_eps = INFINITY;
  for (double alpha : alphas) {
    int evaluations = 0;
    auto eps = [&](long long k) {
      ++evaluations;
      // +∞ where the accountants refuse this τ's run: a valid bound; another τ may answer.
      return estimate_or_beyond(run_at(s.steps - k, alpha), delta, o.pld).value;
    };
    const auto [k, e] = minimise_over_k(eps, k_lo, k_hi, o.exhaustive_limit, o.progress);
    best.evaluations += evaluations;
    if (e < best_eps) {
      best_eps = e;
      best.tau = s.steps - k;
      best.alpha = alpha;
    }
  }
  if (!(best_eps < INFINITY)) {
    // No τ gave a run the accountants take (a probe's --sensitivity 1e308 reached run_at(−1)):
    // say so, with the run at the first τ of the range for the record.
    best.tau = s.steps - k_lo;
    best.alpha = alphas.front();
    best.run = run_at(best.tau, best.alpha);
    best.estimate = beyond_accountants();
    best.estimate.message = std::string("at every tau, ") + kBeyondAccountants;
    return best;
  }
  best.run = run_at(best.tau, best.alpha);
  best.estimate =
      accounting::estimate_epsilon(best.run, delta, accounting::accountant_type::pld, o.pld);
  return best;
}

}  // namespace

accounting::training_run noisy_sgd_composition_run(const noisy_gradient_setting& s) {
  const sgd_parts q = parts("noisy_sgd_composition_run", s);
  accounting::training_run run;
  // BSA24 Thm 4.8: C_{b/n}(G(L/(bσ)))^{⊗t}
  run.phases.push_back(subsampled(q.b / q.n, q.L / (q.b * q.sigma), s.steps));
  return run;
}

accounting::training_run noisy_sgd_strongly_convex_run(const noisy_gradient_setting& s,
                                                       long long tau,
                                                       double alpha) {
  constexpr const char* fn = "noisy_sgd_strongly_convex_run";
  const sgd_parts q = parts(fn, s);
  const double c = s.contraction;
  if (!(c > 0 && c < 1)) throw_domain_error(fn, "contraction", c, "in (0, 1) (strongly convex)");
  if (s.steps < 2) throw_domain_error(fn, "steps", format_value(s.steps), ">= 2 (tau in 1..t-1)");
  if (tau < 1 || tau > s.steps - 1)
    throw_domain_error(fn, "tau", format_value(tau),
                       "in {1, ..., t - 1} (Thm 4.9 at tau = 0 is invalid: docs/shifted.md)");
  const double beta = beta_of(fn, alpha), p = q.b / q.n, e = 2 * q.L / (q.b * q.sigma);
  const auto k = s.steps - tau;
  // BSA24 Thm 4.9 with footnote 10's split: G(α e (c^{k+1} − c^t)/(1 − c)) ⊗ C_p(G(βe))
  // ⊗ C_p(G(e))^{⊗k}, e = 2L/(bσ)
  const double ck1 = std::pow(c, static_cast<double>(k + 1)), ct = std::pow(c, q.t);
  accounting::training_run run;
  run.gaussian_mu = alpha * e * (ck1 - ct) / (1 - c);
  run.phases.push_back(subsampled(p, beta * e, 1));
  run.phases.push_back(subsampled(p, e, k));
  return run;
}

accounting::training_run noisy_sgd_general_run(const noisy_gradient_setting& s,
                                               std::span<const double> shifts,
                                               double alpha) {
  constexpr const char* fn = "noisy_sgd_general_run";
  const sgd_parts q = parts(fn, s);
  const double c = s.contraction;
  if (!(c > 0 && c < 1)) throw_domain_error(fn, "contraction", c, "in (0, 1) (strongly convex)");
  check_positive(fn, "learning_rate", s.learning_rate);
  if (shifts.size() + 1 != static_cast<std::size_t>(s.steps))
    throw_domain_error(fn, "shifts.size()", format_value(static_cast<long long>(shifts.size())),
                       "steps - 1 = " + format_value(s.steps - 1));
  const double beta = beta_of(fn, alpha), p = q.b / q.n, eta = s.learning_rate;
  const double step = eta * q.L / q.b;  // ηL/b, the per-step sensitivity
  // BSA24 Thm C.13: z_{k+1} = c z_k + ηL/b − a_{k+1}, z_0 = 0; every z_k ≥ 0, a_k ∈ [0, ηL/b].
  double z = 0;
  for (std::size_t k = 0; k < shifts.size(); ++k) {
    const double a = shifts[k];
    if (!(a >= 0 && a <= step * (1 + 1e-12)))
      throw_domain_error(fn, "shifts[" + std::to_string(k) + "]", a,
                         "in [0, eta L/b] = [0, " + format_value(step) + "]");
    z = c * z + step - a;
    if (z < -1e-12 * step)
      throw_domain_error(fn, "shifts[" + std::to_string(k) + "]", a,
                         "such that z_k = c z_{k-1} + eta L/b - a_k stays >= 0");
  }
  z = std::max(z, 0.0);
  accounting::training_run run;
  run.gaussian_mu = 2 * alpha * c * z / (eta * q.sigma);
  run.phases.push_back(subsampled(p, 2 * beta * q.L / (q.b * q.sigma), 1));
  for (std::size_t k = 0; k < shifts.size();) {
    std::size_t e = k;
    while (e < shifts.size() && shifts[e] == shifts[k]) ++e;
    if (shifts[k] > 0)
      run.phases.push_back(
          subsampled(p, 2 * shifts[k] / (eta * q.sigma), static_cast<long long>(e - k)));
    k = e;
  }
  return run;
}

accounting::training_run noisy_sgd_constrained_convex_run(const noisy_gradient_setting& s,
                                                          long long tau,
                                                          double alpha) {
  constexpr const char* fn = "noisy_sgd_constrained_convex_run";
  const sgd_parts q = parts(fn, s);
  check_positive(fn, "diameter", s.diameter);
  check_positive(fn, "learning_rate", s.learning_rate);
  if (tau < 0 || tau > s.steps - 1)
    throw_domain_error(fn, "tau", format_value(tau), "in {0, ..., t - 1}");
  const double beta = beta_of(fn, alpha), p = q.b / q.n, k = static_cast<double>(s.steps - tau);
  // BSA24 Thm 4.10 with footnote 11's split: per step G(αD/(kησ)) ⊗ C_p(G(2βL/(bσ))),
  // k steps: G(αD/(ησ√k)) ⊗ C_p(G(2βL/(bσ)))^{⊗k}
  accounting::training_run run;
  run.gaussian_mu = alpha * s.diameter / (s.learning_rate * q.sigma * std::sqrt(k));
  run.phases.push_back(subsampled(p, 2 * beta * q.L / (q.b * q.sigma), s.steps - tau));
  return run;
}

sgd_bound noisy_sgd_composition(const noisy_gradient_setting& s,
                                double delta,
                                const sgd_search_options& o) {
  check_open_probability("noisy_sgd_composition", "delta", delta);
  o.pld.validate("noisy_sgd_composition");
  sgd_bound out;
  out.source = "BSA24 Thm 4.8 (composition)";
  out.run = noisy_sgd_composition_run(s);
  out.estimate = estimate_or_beyond(out.run, delta, o.pld);
  out.evaluations = 1;
  return out;
}

sgd_bound noisy_sgd_strongly_convex(const noisy_gradient_setting& s,
                                    double delta,
                                    const sgd_search_options& o) {
  noisy_sgd_strongly_convex_run(s, 1);  // argument checks
  return search(
      "BSA24 Thm 4.9 (tau optimised, PLD)", s, delta, o, 1, s.steps - 1,
      [&](long long tau, double alpha) { return noisy_sgd_strongly_convex_run(s, tau, alpha); });
}

sgd_bound noisy_sgd_constrained_convex(const noisy_gradient_setting& s,
                                       double delta,
                                       const sgd_search_options& o) {
  noisy_sgd_constrained_convex_run(s, 0);  // argument checks
  return search(
      "BSA24 Thm 4.10 (tau optimised, PLD)", s, delta, o, 1, s.steps,
      [&](long long tau, double alpha) { return noisy_sgd_constrained_convex_run(s, tau, alpha); });
}

}  // namespace dpkit::shifted
