#include "dpkit/accounting/random_allocation.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "detail/epoch_bracket.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/subsampling/allocation_pld.hpp"
#include "dpkit/subsampling/allocation_rdp.hpp"

namespace dpkit::accounting {
namespace {

namespace ss = subsampling;

allocation_bracket setup(const char* fn, const training_phase& p) {
  const allocation_bracket b = detail::epoch_layout(fn, p, "random allocation");
  if (p.sampling_rate >= 1)
    throw_domain_error(fn, "sampling_rate", p.sampling_rate,
                       "< 1 (the full batch is the Gaussian mechanism)");
  return b;
}

// One epoch's RDP, remembered: it depends on (σ, t) alone and costs ~0.1 s (the add direction's
// quadrature table), while a training loop asks for ε after every epoch and a curve's points
// share it. A small table per process (at most 64 entries, oldest out), under a mutex; the
// values are the function's own, so answers are the same with or without it.
std::vector<double> epoch_rdp(double sigma, long long t) {
  static std::mutex mutex;
  static std::deque<std::pair<std::pair<double, long long>, std::vector<double>>> table;
  const std::pair<double, long long> key{sigma, t};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    for (const auto& [k, v] : table)
      if (k == key) return v;
  }
  std::vector<double> epoch = subsampling::allocation_epoch_rdp(1 / sigma, t, 40);
  const std::lock_guard<std::mutex> lock(mutex);
  if (table.size() == 64) table.pop_front();
  table.emplace_back(key, epoch);
  return epoch;
}

divergence::rdp_curve curve_of(const training_phase& p, const allocation_bracket& b) {
  const std::vector<double> epoch = epoch_rdp(p.noise_multiplier, b.steps_per_epoch);
  std::vector<double> orders, values;
  for (std::size_t i = 0; i < epoch.size(); ++i) {
    orders.push_back(static_cast<double>(i + 2));
    values.push_back(static_cast<double>(b.epochs_begun) * epoch[i]);
  }
  return divergence::rdp_curve::at_orders(std::move(orders), std::move(values));
}

// ---------------------------------------------------------------------------------------------
// The PLD of the run on one side of the convex order (subsampling/allocation_pld.hpp): the
// complete epochs' law composed ⌊T/t⌋ times, the partial last epoch's (its first r = T mod t
// coordinates) once, in each direction.
struct side_run {
  std::vector<loss_factor> remove, add;
  // Every composed mass within relative gamma of the exact law's (expm1 of the sum of the
  // factors' log1p(mass_error) × count); the splits' residual moves δ, in either direction, by
  // at most moved = Σ count × max(mean_error, ratio_error) (allocation_pld.hpp).
  double gamma = 0;
  double moved = 0;
  std::size_t lattice = 0;
};

side_run build_side(const training_phase& p,
                    const allocation_bracket& b,
                    double h,
                    ss::convex_side side) {
  side_run s;
  const double mu = 1 / p.noise_multiplier;
  const long long t = b.steps_per_epoch;
  const long long partial = p.steps - b.complete_epochs * t;
  double log_gamma = 0;
  auto add_factor = [&](long long released, long long count) {
    auto law = std::make_shared<const ss::allocation_ratio_law>(
        ss::allocation_epoch_ratio(mu, t, released, h, side));
    log_gamma += static_cast<double>(count) * std::log1p(law->mass_error);
    s.moved += static_cast<double>(count) * std::max(law->mean_error, law->ratio_error);
    s.lattice = std::max(s.lattice, law->largest_lattice);
    s.remove.push_back({ss::allocation_ratio_loss(law, ss::adjacency_direction::remove), count});
    s.add.push_back({ss::allocation_ratio_loss(law, ss::adjacency_direction::add), count});
  };
  if (b.complete_epochs > 0) add_factor(t, b.complete_epochs);
  if (partial > 0) add_factor(partial, 1);
  s.gamma = std::expm1(log_gamma);
  return s;
}

// The spacing h of log S for a target relative bracket width: the convex-order gap between the
// two sides is second order, measured ≈ 0.35·h²/s² of ε with s² = log(1 + (e^{μ²} − 1)/t) the
// epoch loss's variance scale; h = √(accuracy)·s puts it near a third of the accuracy.
double initial_spacing(const training_phase& p, long long t, double accuracy) {
  const double mu = 1 / p.noise_multiplier;
  const double s =
      std::sqrt(std::log1p(std::expm1(std::min(mu * mu, 700.0)) / static_cast<double>(t)));
  return std::clamp(std::sqrt(accuracy) * s, 2e-5, 0.5);
}

// Both directions on one side: the larger of the two; the composed answer's status kept.
template <class Query>
double both_directions(const side_run& s, allocation_bracket& b, Query&& query) {
  double worst = 0;
  for (const auto* f : {&s.remove, &s.add}) {
    const auto [value, status] = query(std::span<const loss_factor>(*f));
    if (!status.converged()) {
      b.termination = status.termination;
      b.message = status.message;
    }
    worst = std::max(worst, value);
  }
  return worst;
}

pld_options engine_options(const pld_options& options, double h) {
  pld_options o = options;
  o.grid_spacing = h;  // the laws' atoms sit on the lattice kh: the engine rounds nothing
  o.initial_grid_spacing = 0;
  return o;
}

// The certified corrections for what the laws' floating-point arithmetic leaves:
//
// * Mass errors: the laws' P- and Q-masses are within relative Γ of those of an exact bounding
//   law. For discrete pairs δ(ε) = Σ (P − e^ε Q)₊, so with P ≤ P̂/(1 − Γ) and Q ≥ Q̂/(1 + Γ),
//   δ(ε) ≤ δ̂(ε − 2.01Γ)/(1 − Γ) (log((1 + Γ)/(1 − Γ)) ≤ 2.01Γ for Γ ≤ 1e-3), and likewise
//   δ(ε) ≥ δ̂(ε + 2.01Γ)/(1 + Γ).
// * The splits' residual moves δ by at most `moved` (side_run), whatever ε.
constexpr double kShift = 2.01;

// The engine's diagnostics of one composition, gathered into the bracket's.
void note_engine(allocation_bracket& b, const pld_diagnostics& r) {
  b.pld.fft_size = std::max(b.pld.fft_size, r.fft_size);
  b.pld.passes += r.passes;
}

// The upper bound at δ from the dominating laws (both directions).
void epsilon_upper(allocation_bracket& b, const side_run& up, double delta, const pld_options& o) {
  // The laws' splits move δ by an absolute ~1e-15 (`moved`): below δ ≈ 1e-11 that allowance
  // would swamp the answer, and the bracket is refused in terms of δ.
  if (!std::isfinite(up.moved) || !std::isfinite(up.gamma)) {
    // The laws' own rounding allowance could not be formed (its terms overflow at this noise
    // and epoch length; "must be >= nan" was printed): refused in the run's own terms.
    b.upper = std::numeric_limits<double>::infinity();
    b.termination = termination_type::failure;
    b.message =
        "the run (random allocation at this noise multiplier and sampling rate) is beyond what "
        "the PLD accountant bounds: the rounding allowance of its laws is not finite; the RDP "
        "accountant answers";
    return;
  }
  if (!(up.moved <= 1e-4 * delta && up.gamma <= 1e-3)) {
    b.upper = std::numeric_limits<double>::infinity();
    b.termination = termination_type::failure;
    b.message = "delta is " + format_value(delta) +
                ", but must be >= " + format_value(1e4 * up.moved) +
                " for random allocation (10^4 times the certified rounding allowance of its "
                "laws, " +
                format_value(up.moved) +
                " here; the RDP accountant answers smaller "
                "delta)";
    return;
  }
  const double target = delta * (1 - up.gamma) - up.moved;
  b.upper = both_directions(up, b, [&](std::span<const loss_factor> f) {
    const pld_epsilon_result r = pld_epsilon(f, target, o);
    note_engine(b, r);
    return std::pair{r.upper + kShift * up.gamma, static_cast<solver_status>(r)};
  });
}

void epsilon_pass(allocation_bracket& b,
                  const training_phase& p,
                  double delta,
                  double h,
                  const pld_options& options) {
  const pld_options o = engine_options(options, h);
  b.pld = {};
  b.pld.grid_spacing = h;
  epsilon_upper(b, build_side(p, b, h, ss::convex_side::dominating), delta, o);
  if (!std::isfinite(b.upper)) {  // nothing certified above: nothing to bracket
    b.lower = 0;
    return;
  }
  const side_run lo = build_side(p, b, h, ss::convex_side::dominated);
  const double target_lo = std::min(0.5, (delta + lo.moved) * (1 + lo.gamma));
  b.lower = both_directions(lo, b, [&](std::span<const loss_factor> f) {
    const pld_epsilon_result r = pld_epsilon(f, target_lo, o);
    note_engine(b, r);
    return std::pair{std::max(0.0, r.lower - kShift * lo.gamma), static_cast<solver_status>(r)};
  });
  b.lower = std::min(b.lower, b.upper);
}

void delta_pass(allocation_bracket& b,
                const training_phase& p,
                double epsilon,
                double h,
                const pld_options& options) {
  const pld_options o = engine_options(options, h);
  const side_run up = build_side(p, b, h, ss::convex_side::dominating);
  const side_run lo = build_side(p, b, h, ss::convex_side::dominated);
  b.pld = {};
  b.pld.grid_spacing = h;
  const double shifted = epsilon - kShift * up.gamma;
  b.upper = both_directions(up, b, [&](std::span<const loss_factor> f) {
    const pld_delta_result r = pld_delta(f, std::max(0.0, shifted), o);
    note_engine(b, r);
    // Below ε = 0: δ(ε') ≤ δ(0) + (1 − e^{ε'}).
    const double d = r.upper + (shifted < 0 ? -std::expm1(shifted) : 0.0);
    return std::pair{std::min(1.0, (d + up.moved) / (1 - up.gamma)), static_cast<solver_status>(r)};
  });
  b.lower = both_directions(lo, b, [&](std::span<const loss_factor> f) {
    const pld_delta_result r = pld_delta(f, epsilon + kShift * lo.gamma, o);
    note_engine(b, r);
    return std::pair{std::max(0.0, r.lower / (1 + lo.gamma) - lo.moved),
                     static_cast<solver_status>(r)};
  });
  b.lower = std::min(b.lower, b.upper);
}

// Refines h until the bracket is as narrow as asked: the gap is second order in h, so each
// retry scales h by √(accuracy/width) (at least halving it), at most three times.
template <class Pass>
void refine_until_narrow(allocation_bracket& b,
                         const training_phase& p,
                         const pld_options& options,
                         Pass&& pass) {
  const double accuracy = options.relative_accuracy;
  if (options.grid_spacing > 0) {  // a fixed spacing: one pass
    pass(b, options.grid_spacing);
    return;
  }
  double h = initial_spacing(p, b.steps_per_epoch, accuracy);
  for (int tries = 0;; ++tries) {
    b.termination = termination_type::converged;
    b.message.clear();
    pass(b, h);
    const double width = b.upper - b.lower;
    if (!(width > accuracy * b.upper) || !std::isfinite(b.upper) ||
        b.termination != termination_type::converged)
      return;
    if (tries == 3 || h <= 2e-5) {
      b.termination = termination_type::max_iterations;
      b.message = "the bracket is wider than asked after 4 spacings (h = " + format_value(h) + ")";
      return;
    }
    h = allocation_refined_spacing(h, accuracy, b.upper, width);
  }
}

// Where the run is one partial epoch of r < t steps and r/t ≤ δ, ε = 0 holds exactly at every
// noise multiplier: the record is in one of the r released steps with probability p = r/t, and
// otherwise the output's law is the same with or without it, so P = (1 − p)Q + pP′ and, in either
// direction, P(S) − e^0·Q(S) = p(P′(S) − Q(S)) ≤ p ≤ δ for every event S. (At small σ the lattice
// route takes minutes for this answer: t = 254, σ = 0.025.)
bool unused_within_delta(const allocation_bracket& b, const training_phase& p, double delta) {
  const auto t = static_cast<double>(b.steps_per_epoch);
  return b.complete_epochs == 0 &&
         static_cast<double>(p.steps) <= delta * t * (1 - 1e-15);  // r/t ≤ δ, rounding inside
}

void zero_epsilon(allocation_bracket& b) {
  b.lower = b.upper = 0;
  b.termination = termination_type::converged;
  b.message.clear();
  b.pld = {};
}

}  // namespace

double allocation_spacing(const training_phase& phase, double relative_accuracy) {
  const allocation_bracket b = setup("allocation_spacing", phase);
  return initial_spacing(phase, b.steps_per_epoch, relative_accuracy);
}

double allocation_refined_spacing(double h, double relative_accuracy, double upper, double width) {
  return std::max(2e-5, h * std::min(0.5, 0.9 * std::sqrt(relative_accuracy * upper / width)));
}

allocation_bracket allocation_epsilon_upper(const training_phase& phase,
                                            double delta,
                                            const pld_options& options) {
  constexpr const char* kFn = "allocation_epsilon_upper";
  check_open_probability(kFn, "delta", delta);
  options.validate(kFn);
  allocation_bracket b = setup(kFn, phase);
  if (unused_within_delta(b, phase, delta)) {
    zero_epsilon(b);
    return b;
  }
  const double h = options.grid_spacing > 0
                       ? options.grid_spacing
                       : initial_spacing(phase, b.steps_per_epoch, options.relative_accuracy);
  b.pld.grid_spacing = h;
  epsilon_upper(b, build_side(phase, b, h, ss::convex_side::dominating), delta,
                engine_options(options, h));
  b.lower = 0;
  return b;
}

divergence::rdp_curve allocation_rdp_curve(const training_phase& phase) {
  const allocation_bracket b = setup("allocation_rdp_curve", phase);
  return curve_of(phase, b);
}

allocation_bracket allocation_epsilon(const training_phase& phase,
                                      double delta,
                                      const pld_options& options) {
  constexpr const char* kFn = "allocation_epsilon";
  check_open_probability(kFn, "delta", delta);
  options.validate(kFn);
  allocation_bracket b = setup(kFn, phase);
  if (unused_within_delta(b, phase, delta)) {
    zero_epsilon(b);
    return b;
  }
  refine_until_narrow(b, phase, options, [&](allocation_bracket& x, double h) {
    epsilon_pass(x, phase, delta, h, options);
  });
  return b;
}

allocation_bracket allocation_delta(const training_phase& phase,
                                    double epsilon,
                                    const pld_options& options) {
  constexpr const char* kFn = "allocation_delta";
  check_nonnegative(kFn, "epsilon", epsilon);
  options.validate(kFn);
  allocation_bracket b = setup(kFn, phase);
  refine_until_narrow(b, phase, options, [&](allocation_bracket& x, double h) {
    delta_pass(x, phase, epsilon, h, options);
  });
  return b;
}

}  // namespace dpkit::accounting
