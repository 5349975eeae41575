#include "dpkit/accounting/pld_accountant.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "dpkit/accounting/pld.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::accounting {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using subsampling::adjacency_direction;

// The composed distributions of one grid pass: per direction, both sides.
struct pass_result {
  std::vector<composed_pld> pessimistic, optimistic;  // one per direction
  std::size_t fft_size = 0;
};

std::vector<adjacency_direction> directions_of(const training_run& run) {
  if (run.has_poisson_subsampling()) return {adjacency_direction::remove, adjacency_direction::add};
  return {adjacency_direction::remove};  // symmetric factors only
}

// `dominated(pessimistic_d, optimistic_so_far)` says whether a direction's upper bound is
// already below the best lower bound: then its optimistic side cannot raise the lower bound
// (true ε = max over directions) and is not composed.
template <class Dominated>
pass_result evaluate_pass(
    const training_run& run, double h, double tail, std::size_t max_fft, Dominated&& dominated) {
  pass_result out;
  const double total = static_cast<double>(run.total_steps());
  // Per-step truncation: at most tail/T per step, so T steps lose at most `tail` in total.
  const double step_tail = std::max(tail / total, 1e-300);
  for (adjacency_direction d : directions_of(run)) {
    const std::vector<loss_factor> factors = loss_factors(run, d);
    std::vector<discrete_pld> pess, opt;
    pess.reserve(factors.size());
    opt.reserve(factors.size());
    for (const loss_factor& f : factors) {
      auto both = discretize_both(*f.loss, h, step_tail);
      pess.push_back(std::move(both.first));
      opt.push_back(std::move(both.second));
    }
    std::vector<pld_factor> fp, fo;
    for (std::size_t i = 0; i < factors.size(); ++i) {
      fp.push_back({&pess[i], factors[i].count});
      fo.push_back({&opt[i], factors[i].count});
    }
    out.pessimistic.push_back(compose(fp, tail, max_fft));
    out.fft_size = std::max(out.fft_size, out.pessimistic.back().fft_size);
    if (!out.optimistic.empty() && dominated(out.pessimistic.back(), out.optimistic)) continue;
    out.optimistic.push_back(compose(fo, tail, max_fft));
    out.fft_size = std::max(out.fft_size, out.optimistic.back().fft_size);
  }
  return out;
}

// Coarse first grid: 2000 cells across the widest per-step loss range (at tail 1e-12).
double initial_spacing(const training_run& run) {
  double widest = 0;
  for (adjacency_direction d : directions_of(run))
    for (const loss_factor& f : loss_factors(run, d))
      widest = std::max(widest, f.loss->upper_tail_point(1e-12) - f.loss->lower_tail_point(1e-12));
  return widest > 0 ? widest / 2000 : 1e-3;
}

// Next spacing from the measured relative gap: gap ∝ h², with a 0.8 safety factor, between
// 1/8 and 1/1.5 of the current spacing.
double next_spacing(double h, double gap, double target) {
  const double factor = 0.8 * std::sqrt(target / gap);
  return h * std::clamp(factor, 0.125, 1 / 1.5);
}

template <class Result>
void fill_diagnostics(Result& r, double h, const pass_result& p, int passes) {
  r.grid_spacing = h;
  r.fft_size = p.fft_size;
  r.passes = passes;
}

}  // namespace

void pld_options::validate(std::string_view function) const {
  if (!(relative_accuracy > 0 && relative_accuracy < 1))
    throw_domain_error(function, "relative_accuracy", relative_accuracy, "in (0, 1)");
  check_nonnegative(function, "grid_spacing", grid_spacing);
  check_nonnegative(function, "initial_grid_spacing", initial_grid_spacing);
  check_at_least(function, "max_fft_size", static_cast<long long>(max_fft_size), 1024);
  check_at_least(function, "max_refinements", max_refinements, 0);
}

pld_epsilon_result pld_epsilon(const training_run& run, double delta, const pld_options& options) {
  constexpr const char* kFn = "pld_epsilon";
  run.validate(kFn);
  check_open_probability(kFn, "delta", delta);
  options.validate(kFn);
  pld_epsilon_result r;
  r.kind = bound_kind::upper_bound;
  if (run.is_gaussian()) {
    // All factors Gaussian: the composition is exactly G(μ) (seed 002 eq. (3.4)).
    const divergence::epsilon_result e = divergence::gdp_epsilon(run.gdp_mu(), delta);
    static_cast<divergence::epsilon_result&>(r) = e;
    r.passes = 0;
    return r;
  }
  // Truncation and aliasing may cost at most ~1e-6·δ: negligible next to the grid's gap, and
  // cheap (the window grows like √log(1/τ)).
  const double tail = std::clamp(1e-6 * delta, 1e-300, 1e-3);
  double h = options.grid_spacing > 0 ? options.grid_spacing : initial_spacing(run);
  bool have = false;
  for (int pass = 1; pass <= options.max_refinements + 1; ++pass) {
    pass_result p;
    try {
      p = evaluate_pass(run, h, tail, options.max_fft_size,
                        [&](const composed_pld& pess, const std::vector<composed_pld>& opts) {
                          double lower = 0;
                          for (const composed_pld& o : opts)
                            lower = std::max(lower, o.epsilon(delta));
                          return pess.epsilon(delta) <= lower;
                        });
    } catch (const std::length_error& e) {
      if (!have) throw;
      r.termination = termination_type::max_iterations;
      r.message = std::string("pld_epsilon: relative accuracy ") +
                  format_value(options.relative_accuracy) +
                  " not reached within max_fft_size; the bracket of the previous grid is kept (" +
                  e.what() + ")";
      return r;
    }
    double upper = 0, lower = 0;
    for (const composed_pld& c : p.pessimistic) upper = std::max(upper, c.epsilon(delta));
    for (const composed_pld& c : p.optimistic) lower = std::max(lower, c.epsilon(delta));
    r.epsilon = r.epsilon_upper = upper;
    r.epsilon_lower = std::min(lower, upper);
    fill_diagnostics(r, h, p, pass);
    have = true;
    if (!std::isfinite(upper)) {
      r.termination = termination_type::failure;
      r.message = "pld_epsilon: the truncation corrections alone exceed delta";
      return r;
    }
    const double gap = upper - lower;
    if (options.grid_spacing > 0 || upper == 0 || gap <= options.relative_accuracy * upper) {
      r.termination = termination_type::converged;
      r.message.clear();
      return r;
    }
    r.termination = termination_type::max_iterations;
    r.message = "pld_epsilon: relative gap " + format_value(gap / upper) + " above the target " +
                format_value(options.relative_accuracy) + " after " + std::to_string(pass) +
                " grid passes";
    h = next_spacing(h, gap / upper, options.relative_accuracy);
  }
  return r;
}

pld_delta_result pld_delta(const training_run& run, double epsilon, const pld_options& options) {
  constexpr const char* kFn = "pld_delta";
  run.validate(kFn);
  check_nonnegative(kFn, "epsilon", epsilon);
  options.validate(kFn);
  pld_delta_result r;
  r.kind = bound_kind::upper_bound;
  if (run.is_gaussian()) {
    r.log_delta = divergence::gdp_log_delta(run.gdp_mu(), epsilon);
    r.delta = r.delta_upper = r.delta_lower = std::exp(r.log_delta);
    r.tight = true;
    return r;
  }
  const double tail = 1e-20;  // absolute: δ itself is not known in advance
  double h = options.grid_spacing > 0           ? options.grid_spacing
             : options.initial_grid_spacing > 0 ? options.initial_grid_spacing
                                                : initial_spacing(run);
  bool have = false;
  for (int pass = 1; pass <= options.max_refinements + 1; ++pass) {
    pass_result p;
    try {
      p = evaluate_pass(run, h, tail, options.max_fft_size,
                        [&](const composed_pld& pess, const std::vector<composed_pld>& opts) {
                          double lower = 0;
                          for (const composed_pld& o : opts)
                            lower = std::max(lower, o.delta(epsilon));
                          return pess.delta(epsilon) <= lower;
                        });
    } catch (const std::length_error& e) {
      if (!have) throw;
      r.termination = termination_type::max_iterations;
      r.message = std::string("pld_delta: relative accuracy not reached within max_fft_size (") +
                  e.what() + ")";
      return r;
    }
    double upper = 0, lower = 0;
    for (const composed_pld& c : p.pessimistic) upper = std::max(upper, c.delta(epsilon));
    for (const composed_pld& c : p.optimistic) lower = std::max(lower, c.delta(epsilon));
    r.delta = r.delta_upper = upper;
    r.delta_lower = std::min(lower, upper);
    r.log_delta = std::log(upper);
    fill_diagnostics(r, h, p, pass);
    have = true;
    const double gap = upper - lower;
    if (options.grid_spacing > 0 || upper == 0 || gap <= options.relative_accuracy * upper) {
      r.termination = termination_type::converged;
      r.message.clear();
      return r;
    }
    r.termination = termination_type::max_iterations;
    r.message = "pld_delta: relative gap " + format_value(gap / upper) +
                " above the target after " + std::to_string(pass) + " grid passes";
    // δ's relative gap is roughly (dδ/dε)·(ε gap)/δ: also ∝ h².
    h = next_spacing(h, gap / upper, options.relative_accuracy);
  }
  return r;
}

}  // namespace dpkit::accounting
