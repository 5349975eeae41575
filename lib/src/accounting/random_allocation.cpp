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
#include "dpkit/divergence/gdp.hpp"
#include "dpkit/subsampling/allocation_pld.hpp"
#include "dpkit/subsampling/allocation_rdp.hpp"
#include "dpkit/subsampling/epoch_max_loss.hpp"
#include "dpkit/subsampling/privacy_loss.hpp"

namespace dpkit::accounting {
namespace {

namespace ss = subsampling;

allocation_bracket setup(const char* fn, const training_phase& p) {
  const allocation_bracket b = detail::epoch_layout(fn, p, "random allocation");
  if (p.sampling_rate >= 1)
    throw_domain_error(fn, "sampling_rate", p.sampling_rate,
                       "< 1 (the full batch is the Gaussian mechanism)");
  if (p.selected >= b.steps_per_epoch)
    throw_domain_error(fn, "selected", format_value(p.selected),
                       "< t = " + format_value(b.steps_per_epoch) +
                           " steps per epoch (an example in every step is the Gaussian "
                           "mechanism: the full batch)");
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

// k of t (k > 1): the epoch's RDP through the composition route (header), (k − r)·ρ(σ, m) +
// r·ρ(σ, m + 1) with m = ⌊t/k⌋, r = t − km — at every order at most the convex-order route's.
std::vector<double> many_epoch_rdp(double sigma, long long t, long long k) {
  const long long m = t / k, r = t - k * m;
  std::vector<double> epoch = epoch_rdp(sigma, m);
  for (double& v : epoch) v *= static_cast<double>(k - r);
  if (r > 0) {
    const std::vector<double> longer = epoch_rdp(sigma, m + 1);
    epoch.resize(std::min(epoch.size(), longer.size()));
    for (std::size_t i = 0; i < epoch.size(); ++i) epoch[i] += static_cast<double>(r) * longer[i];
  }
  return epoch;
}

divergence::rdp_curve curve_of(const training_phase& p, const allocation_bracket& b) {
  const std::vector<double> epoch =
      b.selected > 1 ? many_epoch_rdp(p.noise_multiplier, b.steps_per_epoch, b.selected)
                     : epoch_rdp(p.noise_multiplier, b.steps_per_epoch);
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

// `count` epochs whose ratio is that of an allocation of 1 of `t` steps at μ = 1/σ, of which
// the first `released` steps are released.
struct epoch_factor {
  double mu = 0;
  long long t = 1;
  long long released = 1;
  long long count = 0;
};

// k = 1: the ⌊T/t⌋ complete epochs and the partial one.
std::vector<epoch_factor> single_factors(const training_phase& p, const allocation_bracket& b) {
  const double mu = 1 / p.noise_multiplier;
  const long long t = b.steps_per_epoch;
  const long long partial = p.steps - b.complete_epochs * t;
  std::vector<epoch_factor> f;
  if (b.complete_epochs > 0) f.push_back({mu, t, t, b.complete_epochs});
  if (partial > 0) f.push_back({mu, t, partial, 1});
  return f;
}

side_run build_side(std::span<const epoch_factor> factors, double h, ss::convex_side side) {
  side_run s;
  double log_gamma = 0;
  for (const epoch_factor& e : factors) {
    if (e.released == 1 && e.t > 1) {
      // One released step of an epoch of t: the record is in it with probability 1/t, whatever
      // the other records' allocations, so its release is exactly one step of the
      // Poisson-subsampled Gaussian at rate 1/t — on both sides of the convex order, with no
      // lattice error. (As a lattice law the one-step run took 1.1 s at q = 0.001, σ = 0.5, and
      // was refused for its memory under a 2^16 FFT limit at q = 2.7e-4, σ = 0.2.)
      const double sigma = 1 / e.mu, q = 1 / static_cast<double>(e.t);
      s.remove.push_back(
          {ss::poisson_gaussian_loss(sigma, q, ss::adjacency_direction::remove), e.count});
      s.add.push_back({ss::poisson_gaussian_loss(sigma, q, ss::adjacency_direction::add), e.count});
      continue;
    }
    auto law = std::make_shared<const ss::allocation_ratio_law>(
        ss::allocation_epoch_ratio(e.mu, e.t, e.released, h, side));
    const auto count = static_cast<double>(e.count);
    log_gamma += count * std::log1p(law->mass_error);
    s.moved += count * std::max(law->mean_error, law->ratio_error);
    s.lattice = std::max(s.lattice, law->largest_lattice);
    s.remove.push_back({ss::allocation_ratio_loss(law, ss::adjacency_direction::remove), e.count});
    s.add.push_back({ss::allocation_ratio_loss(law, ss::adjacency_direction::add), e.count});
  }
  s.gamma = std::expm1(log_gamma);
  return s;
}

// The spacing h of log S for a target relative bracket width: the convex-order gap between the
// two sides is second order, measured ≈ 0.35·h²/s² of ε with s² = log(1 + (e^{μ²} − 1)/t) the
// epoch loss's variance scale; h = √(accuracy)·s puts it near a third of the accuracy.
double initial_spacing(double mu, long long t, double accuracy) {
  const double s =
      std::sqrt(std::log1p(std::expm1(std::min(mu * mu, 700.0)) / static_cast<double>(t)));
  return std::clamp(std::sqrt(accuracy) * s, 2e-5, 0.5);
}

double initial_spacing(const training_phase& p, long long t, double accuracy) {
  return initial_spacing(1 / p.noise_multiplier, t, accuracy);
}

// k of t (k > 1): the upper bound's route (header), as a composition of 1-of-m epochs.
struct route {
  const char* name;
  std::vector<epoch_factor> factors;
};

// The composition route where the engine can compose it (at most 1e8 factors: k·epochs), else
// the convex-order route (its laws take μ√k ≤ 40); neither: refused. Never both: the composition
// is at least as tight. Its ratio Π_i (1/m)Σ_j Y_ij averages the block mean (1/m)Σ_j Π_i Y_ij
// over independent permutations of each block's steps, which leave the law of Y unchanged, so it
// lies below the block mean in the convex order (Jensen, as Hoeffding's argument); with r > 0
// the composition's blocks of m + 1 steps only help. (Measured on the k-of-t grid: tighter in
// all 56 cases where both apply, by 7-600 %.)
route upper_route(const char* fn, const training_phase& p, const allocation_bracket& b) {
  const double mu = 1 / p.noise_multiplier;
  const long long k = b.selected, t = b.steps_per_epoch, e = b.epochs_begun;
  const long long m = t / k, r = t - k * m;
  // Composition: k blocks per epoch, k − r of m steps and r of m + 1 (a partial epoch counted
  // whole).
  if (static_cast<double>(k) * static_cast<double>(e) <= 1e8) {
    route c{"composition", {{mu, m, m, (k - r) * e}}};
    if (r > 0) c.factors.push_back({mu, m + 1, m + 1, r * e});
    return c;
  }
  // Convex order: one allocation of 1 of m at μ√k per epoch.
  const double convex_mu = mu * std::sqrt(static_cast<double>(k));
  if (convex_mu <= 40) return {"convex order", {{convex_mu, m, m, e}}};
  throw_domain_error(fn, "selected", format_value(p.selected),
                     "at most 1e8 / epochs where the noise multiplier is below "
                     "0.025*sqrt(selected) (neither upper-bound route of k of t steps applies)");
}

double route_spacing(const route& r, double accuracy) {
  return initial_spacing(r.factors.front().mu, r.factors.front().t, accuracy);
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

// Why a bracket has no upper end, in the words of both its message and the facade's refusal.
constexpr const char* kAllowanceOverflows =
    "beyond what the PLD accountant bounds: the rounding allowance of its laws is not finite; "
    "the RDP accountant answers";

std::string delta_floor_constraint(double floor) {
  return ">= " + format_value(floor) +
         " for random allocation (10^4 times the certified rounding allowance of its laws at "
         "this run; the RDP accountant answers smaller delta)";
}

// allocation_epsilon where its bracket has no upper end (epsilon_upper's two cases): refused in
// the user's words — δ below the bracket's floor, or a noise multiplier at which the laws'
// allowance overflows — instead of a failure with ε = +inf, which the CLI showed as
// "unavailable" with exit 1 (a numerical failure) although nothing failed to converge.
// Calibration reads the failure itself, through allocation_epsilon_upper.
void refuse_if_unanswered(const char* fn,
                          const allocation_bracket& b,
                          const training_phase& phase,
                          double delta) {
  if (b.termination != termination_type::failure) return;
  if (b.delta_floor > 0)
    throw_domain_error(fn, "delta", delta, delta_floor_constraint(b.delta_floor));
  if (b.allowance_overflows)
    throw_domain_error(fn, "noise_multiplier", phase.noise_multiplier,
                       std::string("larger for random allocation at this sampling rate: the run "
                                   "is ") +
                           kAllowanceOverflows);
}

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
    b.allowance_overflows = true;
    b.message = "the run (random allocation at this noise multiplier and sampling rate) is " +
                std::string(kAllowanceOverflows);
    return;
  }
  if (!(up.moved <= 1e-4 * delta && up.gamma <= 1e-3)) {
    b.upper = std::numeric_limits<double>::infinity();
    b.termination = termination_type::failure;
    b.delta_floor = 1e4 * up.moved;
    b.message = "delta is " + format_value(delta) + ", but must be " +
                delta_floor_constraint(b.delta_floor);
    return;
  }
  const double target = delta * (1 - up.gamma) - up.moved;
  b.upper = both_directions(up, b, [&](std::span<const loss_factor> f) {
    const pld_epsilon_result r = pld_epsilon(f, target, o);
    note_engine(b, r);
    return std::pair{r.upper + kShift * up.gamma, static_cast<solver_status>(r)};
  });
}

// The passes return the width below which a finer lattice would not narrow the bracket
// (refine_until_narrow).
double epsilon_pass(allocation_bracket& b,
                    std::span<const epoch_factor> factors,
                    double delta,
                    double h,
                    const pld_options& options) {
  const pld_options o = engine_options(options, h);
  b.pld = {};
  b.pld.grid_spacing = h;
  const double floor = 1e-6 * options.relative_accuracy;
  epsilon_upper(b, build_side(factors, h, ss::convex_side::dominating), delta, o);
  if (!std::isfinite(b.upper)) {  // nothing certified above: nothing to bracket
    b.lower = 0;
    return floor;
  }
  const side_run lo = build_side(factors, h, ss::convex_side::dominated);
  const double target_lo = std::min(0.5, (delta + lo.moved) * (1 + lo.gamma));
  b.lower = both_directions(lo, b, [&](std::span<const loss_factor> f) {
    const pld_epsilon_result r = pld_epsilon(f, target_lo, o);
    note_engine(b, r);
    return std::pair{std::max(0.0, r.lower - kShift * lo.gamma), static_cast<solver_status>(r)};
  });
  b.lower = std::min(b.lower, b.upper);
  // ε below the finest spacing the accountant uses with a lower end of 0: no lattice resolves it
  // to a relative accuracy, and refining to h = 2e-5 took 165 s (case 3658): said, not refined.
  if (b.lower == 0 && b.upper < 2e-5 && b.termination == termination_type::converged) {
    b.termination = termination_type::max_iterations;
    b.message = "epsilon is below 2e-05, the finest lattice spacing of the accountant: the "
                "bracket [0, upper] is certified, and no lattice resolves it further";
  }
  return floor;
}

double delta_pass(allocation_bracket& b,
                  std::span<const epoch_factor> factors,
                  double epsilon,
                  double h,
                  const pld_options& options) {
  const pld_options o = engine_options(options, h);
  const side_run up = build_side(factors, h, ss::convex_side::dominating);
  const side_run lo = build_side(factors, h, ss::convex_side::dominated);
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
  return 2 * (up.moved / (1 - up.gamma) + lo.moved);
}

// Refines h until the bracket is as narrow as asked: the gap is second order in h, so each
// retry scales h by √(accuracy/width) (at least halving it), at most three times.
//
// `pass` returns the width below which no finer lattice narrows the bracket: for an ε, 1e-6 of
// the accuracy — where the target δ sits in ε's fall to 0 (δ(0) ≈ δ: a partial epoch used with
// probability just above δ) the lower end is 0 and the upper one tiny, and no lattice resolves
// such an ε to a relative accuracy (h = 2e-5 took 35 s for a bracket [0, 5e-10]); for a δ, twice
// the absolute allowance for the laws' rounding (`moved`, ~1e-15), which does not shrink with h
// (a δ of 1e-20 asked to 0.1 % refined to h = 2e-5 for 160 s, no narrower).
template <class Pass>
void refine_until_narrow(allocation_bracket& b,
                         double initial_h,
                         const pld_options& options,
                         Pass&& pass) {
  const double accuracy = options.relative_accuracy;
  if (options.grid_spacing > 0) {  // a fixed spacing: one pass
    pass(b, options.grid_spacing);
    return;
  }
  double h = initial_h;
  // Every pass certifies its bracket, so the intersection over passes is kept (where δ sits in
  // ε's fall to 0 the upper end is lattice noise that grows as h shrinks: [0, 5.6e-10] at
  // h = 0.003, [0, 1.7e-8] at 1e-4 — domain-sweep case 3658 kept its last pass's 8.3e-8).
  double best_lower = 0, best_upper = INFINITY;
  for (int tries = 0;; ++tries) {
    b.termination = termination_type::converged;
    b.message.clear();
    const double floor = pass(b, h);
    b.upper = std::min(b.upper, best_upper);
    b.lower = std::min(std::max(b.lower, best_lower), b.upper);
    best_upper = b.upper;
    best_lower = b.lower;
    const double width = b.upper - b.lower;
    if (!(width > accuracy * b.upper) || !std::isfinite(b.upper) ||
        b.termination != termination_type::converged)
      return;
    if (!(width > floor)) {
      if (floor > 1e-6 * accuracy) {  // a δ bracket the allowance fills: said, not refined
        b.termination = termination_type::max_iterations;
        b.message = "the bracket is wider than asked: its certified allowance for the laws' "
                    "rounding, " + format_value(floor / 2) +
                    ", fills it at this epsilon (a finer lattice would not narrow it)";
      }
      return;
    }
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
// With k > 1 selected steps the record is in one of the r released ones with probability at most
// k·r/t (a union bound), and the same argument holds with p = k·r/t.
bool unused_within_delta(const allocation_bracket& b, const training_phase& p, double delta) {
  const auto t = static_cast<double>(b.steps_per_epoch);
  return b.complete_epochs == 0 &&
         static_cast<double>(p.steps) * static_cast<double>(b.selected) <=
             delta * t * (1 - 1e-15);  // k·r/t ≤ δ, rounding inside
}

void zero_epsilon(allocation_bracket& b) {
  b.lower = b.upper = 0;
  b.termination = termination_type::converged;
  b.message.clear();
  b.pld = {};
}

// ---------------------------------------------------------------------------------------------
// k of t (k > 1): the epoch sums' Gaussian or the sliced epoch maxima below, the upper route
// above (header).

// μ of the epoch sums: k/(σ√t) per complete epoch, √(⌊T/t⌋) of them composed; rounded down
// (a smaller μ is still below the run) and kept within gdp's range.
double sum_mu(const training_phase& p, const allocation_bracket& b) {
  const double mu = static_cast<double>(b.selected) *
                    std::sqrt(static_cast<double>(b.complete_epochs)) /
                    (p.noise_multiplier * std::sqrt(static_cast<double>(b.steps_per_epoch)));
  return std::min(mu * (1 - 1e-14), 1e6);
}

// The sliced largest coordinate of each complete epoch (a post-processing: Φ(m − μ)^k Φ(m)^{t−k}
// against Φ(m)^t, subsampling/epoch_max_loss.hpp), composed: a second certified lower bound,
// far above the sums' where the noise is small (the sums forget which steps stand out). On a
// copy: the route's diagnostics stay the bracket's.
template <class Composed>
double epoch_max_lower(const allocation_bracket& b, const training_phase& p, Composed&& composed) {
  allocation_bracket m = b;
  detail::epoch_max_lower_bound(m, p, subsampling::epoch_pair::allocated, composed);
  return m.termination == termination_type::converged ? m.lower : 0.0;
}

// One query (ε at δ, or δ at ε) of an allocated phase: k = 1, both laws refined together; k > 1,
// the route above and, below, the larger of the two post-processings of the complete epochs —
// the sums (`sums(μ)`: the Gaussian mechanism's certified lower end) and the sliced maxima
// (`composed`: one direction's PLD answer).
template <class Pass, class Sums, class Composed>
void query(const char* fn,
           allocation_bracket& b,
           const training_phase& p,
           const pld_options& options,
           Pass&& pass,
           Sums&& sums,
           Composed&& composed) {
  if (b.selected == 1) {
    const std::vector<epoch_factor> f = single_factors(p, b);
    refine_until_narrow(b, initial_spacing(p, b.steps_per_epoch, options.relative_accuracy),
                        options, [&](allocation_bracket& x, double h) { return pass(x, f, h); });
    return;
  }
  // The upper route, refined as for k = 1 on its own lattice; its dominated side bounds the
  // route's mechanism, not the run's, so the lower end comes from the post-processings.
  const route r = upper_route(fn, p, b);
  refine_until_narrow(b, route_spacing(r, options.relative_accuracy), options,
                      [&](allocation_bracket& y, double h) { return pass(y, r.factors, h); });
  b.route = r.name;
  b.lower = 0;
  if (!std::isfinite(b.upper) || b.complete_epochs == 0) return;
  const double by_sums = sums(sum_mu(p, b));
  const double by_maxima = epoch_max_lower(b, p, composed);
  b.lower_route = by_maxima > by_sums ? "largest coordinates" : "sums";
  b.lower = std::min(b.upper, std::max(by_sums, by_maxima));
}

}  // namespace

long long allocation_steps_per_epoch(double sampling_rate, long long selected) {
  constexpr const char* kFn = "allocation_steps_per_epoch";
  if (!(sampling_rate > 0 && sampling_rate <= 1))
    throw_domain_error(kFn, "sampling_rate", sampling_rate, "in (0, 1]");
  check_at_least(kFn, "selected", selected, 1);
  const double t = std::ceil(static_cast<double>(selected) / sampling_rate * (1 - 1e-9));
  if (!(t <= 9007199254740992.0))
    throw_domain_error(kFn, "sampling_rate", sampling_rate,
                       ">= selected * 2^-53 (at most 2^53 steps per epoch)");
  return static_cast<long long>(t);
}

double allocation_spacing(const training_phase& phase, double relative_accuracy) {
  const allocation_bracket b = setup("allocation_spacing", phase);
  if (b.selected == 1) return initial_spacing(phase, b.steps_per_epoch, relative_accuracy);
  return std::min(0.5, route_spacing(upper_route("allocation_spacing", phase, b),
                                     relative_accuracy));
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
  const double h = options.grid_spacing > 0 ? options.grid_spacing
                                            : allocation_spacing(phase, options.relative_accuracy);
  const pld_options o = engine_options(options, h);
  if (b.selected == 1) {
    b.pld.grid_spacing = h;
    epsilon_upper(b, build_side(single_factors(phase, b), h, ss::convex_side::dominating), delta,
                  o);
  } else {
    const route r = upper_route(kFn, phase, b);
    b.pld.grid_spacing = h;
    epsilon_upper(b, build_side(r.factors, h, ss::convex_side::dominating), delta, o);
    b.route = r.name;
  }
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
  query(kFn, b, phase, options,
        [&](allocation_bracket& x, std::span<const epoch_factor> f, double h) {
          return epsilon_pass(x, f, delta, h, options);
        },
        [&](double mu) { return divergence::gdp_epsilon_bounds(mu, mu, delta).lower; },
        [&](std::span<const loss_factor> f) { return pld_epsilon(f, delta, options); });
  refuse_if_unanswered(kFn, b, phase, delta);
  return b;
}

allocation_bracket allocation_delta(const training_phase& phase,
                                    double epsilon,
                                    const pld_options& options) {
  constexpr const char* kFn = "allocation_delta";
  check_nonnegative(kFn, "epsilon", epsilon);
  options.validate(kFn);
  allocation_bracket b = setup(kFn, phase);
  query(kFn, b, phase, options,
        [&](allocation_bracket& x, std::span<const epoch_factor> f, double h) {
          return delta_pass(x, f, epsilon, h, options);
        },
        [&](double mu) { return divergence::gdp_delta_bounds(mu, mu, epsilon).lower; },
        [&](std::span<const loss_factor> f) { return pld_delta(f, epsilon, options); });
  return b;
}

}  // namespace dpkit::accounting
