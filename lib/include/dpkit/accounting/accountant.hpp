// dpkit/accounting/accountant.hpp — one interface to the accountants, and calibration.
//
//   accountant_type::pld  certified two-sided bounds (pld_accountant.hpp): ε_upper, ε_lower
//   accountant_type::rdp  Rényi DP with the best of four conversions: an upper bound
//   accountant_type::clt  the Gaussian-DP central limit: an approximation, never a bound
//
// Calibration inverts an accountant: the smallest noise multiplier, or the largest number of
// steps, whose *certified* ε (ε_upper for PLD) is within the budget. Both are bracketed searches
// on quantities monotone in the parameter; the returned value is the end of the bracket on
// the safe side, so the budget holds at it (for PLD: certified).
#pragma once

#include <array>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/accounting/training_run.hpp"

namespace dpkit::accounting {

enum class accountant_type { pld, rdp, clt };

/// "pld", "rdp", "clt".
std::string_view to_string(accountant_type a) noexcept;

/// Every accountant's name, as to_string spells it.
inline constexpr std::array<std::string_view, 3> kAccountantNames = {"pld", "rdp", "clt"};

/// The accountant to_string names `name`; std::nullopt for any other text.
std::optional<accountant_type> parse_accountant(std::string_view name) noexcept;

/// One accountant's answer, in the shape the CLI reports (docs/architecture.md, "The command
/// line").
struct privacy_estimate : solver_status {
  accountant_type accountant = accountant_type::pld;
  double value = NAN;  ///< the certified (or approximate) ε, or δ
  double lower = NAN;  ///< the other side of the bracket where one exists (PLD), else NaN
  double upper = NAN;  ///< == value for bounds, NaN for approximations
  bound_kind kind = bound_kind::upper_bound;
  bool tight = false;      ///< value is exact for this mechanism (Gaussian runs)
  std::string method;      ///< e.g. "PLD/FFT, h = 1.6e-4, FFT 131072" or "BBG20 at alpha = 12.3"
  pld_diagnostics pld;     ///< PLD only
  double log_value = NAN;  ///< log δ for δ queries (finite where δ underflows)
  /// An edge value's exact answer (noise multiplier 0, or only phases that release nothing):
  /// `value` may be +inf and is still the answer; `method` says which edge ("edge value: …").
  bool edge_value = false;
};

/// ε at δ ∈ (0, 1).
///
/// Edge values (docs/accounting.md, "Edge values"): here (not in the accountants below the
/// facade) a phase may have sampling rate 0 or noise multiplier +inf — it releases nothing and
/// is left out — or noise multiplier 0. With p = 1 − Π (1 − q)^T over the noise-free phases
/// (the chance that the differing example is in a noiseless batch): ε = +inf exactly for δ < p;
/// for δ ≥ p, ε = 0 exactly when nothing else is released, else the trivial bracket [0, +inf]
/// (tight = false). A run of left-out phases only has ε = 0 exactly. These answers have
/// edge_value = true (and `method` "edge value: …"), whatever the accountant.
privacy_estimate estimate_epsilon(const training_run& run,
                                  double delta,
                                  accountant_type accountant,
                                  const pld_options& options = {});

/// estimate_epsilon for a run whose noise multipliers are derived (from a noise std and a clip
/// norm, say) rather than given, so that one may fall below kSmallestNoiseMultiplier, which
/// estimate_epsilon refuses: such a phase is answered as noise-free (σ = 0, the edge values
/// above), an upper bound since ε does not grow with the noise — +inf where δ is below the
/// chance that the example is in one of its batches, else the run's answer without it (0 when
/// nothing else is released, exactly). Labelled an upper bound with lower end 0, its method
/// saying so. Every other run gets estimate_epsilon's answer.
privacy_estimate estimate_epsilon_any_noise(const training_run& run,
                                            double delta,
                                            accountant_type accountant,
                                            const pld_options& options = {});

/// δ at ε ≥ 0. Edge values as estimate_epsilon: δ = 0 exactly when nothing is released;
/// with noise-free phases δ = p exactly when nothing else is released, else the trivial
/// bracket [p, 1].
privacy_estimate estimate_delta(const training_run& run,
                                double epsilon,
                                accountant_type accountant,
                                const pld_options& options = {});

/// ε at δ for the run with its last phase taking each number of steps in `steps` (each ≥ 1,
/// any order; earlier phases and the Gaussian factor kept): out[i] for steps[i], each what
/// estimate_epsilon gives for that run, computed together — PLD from one grid and one
/// discretisation where the accuracy allows (pld_epsilon_curve: each point is still certified
/// from both sides, its bracket within relative_accuracy), RDP from one set of per-order values
/// (equal to separate calls), CLT point by point.
std::vector<privacy_estimate> estimate_epsilon_curve(const training_run& run,
                                                     std::span<const long long> steps,
                                                     double delta,
                                                     accountant_type accountant,
                                                     const pld_options& options = {},
                                                     const curve_progress& progress = {});

/// δ at ε against the last phase's steps, as estimate_epsilon_curve.
std::vector<privacy_estimate> estimate_delta_curve(const training_run& run,
                                                   std::span<const long long> steps,
                                                   double epsilon,
                                                   accountant_type accountant,
                                                   const pld_options& options = {},
                                                   const curve_progress& progress = {});

/// A training run as a training loop sees it: steps are added as they are taken, and the
/// certified PLD bracket of the run so far is asked for as often as wanted (after every step,
/// every epoch). Adding steps costs nothing; a query composes the run on the grid of the
/// previous query with the steps it already discretised (pld_growth_cache): one composition per
/// adjacency direction and side, typically one pass. The steps are discretised anew only when
/// the grid must be refined or the run outgrows its horizon (a power of two that then doubles):
/// O(log T) times over a run of T steps however often it is queried — not a fresh accounting
/// (several grid passes, each discretising every step) per query. Every answer is the same
/// certified bracket estimate_epsilon gives, within the same relative accuracy.
///
/// The run's last phase is the one that grows; earlier phases and the Gaussian factor are
/// fixed. Runs the PLD engine composes directly (Poisson, without replacement, truncated
/// Poisson for its upper side) use the cache; shuffled and randomly allocated batches and edge
/// values are answered by estimate_epsilon / estimate_delta afresh at each query.
class incremental_accountant {
 public:
  /// `run` with its last phase's steps already taken (0 allowed: none yet). Validated.
  explicit incremental_accountant(training_run run, pld_options options = {});

  /// Adds `count` ≥ 0 steps to the last phase.
  void add_steps(long long count = 1);
  /// The last phase's steps so far.
  [[nodiscard]] long long steps() const;
  /// The run so far (its last phase with steps()).
  [[nodiscard]] training_run run() const;

  /// The certified PLD bracket on ε at δ ∈ (0, 1) of the run so far (ε = 0 exactly before any
  /// step of any phase).
  privacy_estimate epsilon(double delta);
  /// The certified PLD bracket on δ at ε ≥ 0 of the run so far.
  privacy_estimate delta(double epsilon);

  /// How many times the steps were discretised so far (pld_growth_cache::discretisations).
  [[nodiscard]] long long discretisations() const { return cache_.discretisations(); }

 private:
  training_run run_;  // the last phase's steps: steps_
  long long steps_ = 0;
  pld_options options_;
  pld_growth_cache cache_;
};

struct calibration_options {
  accountant_type accountant = accountant_type::pld;
  pld_options pld;  ///< accuracy of the PLD evaluations
  /// The noise search also stops when its bracket on σ is this narrow (relative, in (0, 1)):
  /// where the accountant's certified ε jumps across the target between two noise multipliers
  /// this close, the budget tolerance cannot be met and the result says so. The steps search
  /// ignores it. Default 1e-9.
  double relative_tolerance = 1e-9;
  /// It stops as soon as the certified ε at a noise multiplier lies within this fraction
  /// below the target: at most this share of the budget is left unused (in
  /// [1e-12, 0.5)). Default 2e-4. Not used by calibrate_steps (steps are whole numbers).
  double budget_tolerance = 2e-4;
};

struct noise_calibration : solver_status {
  double noise_multiplier = NAN;  ///< safe: the budget holds here
  double noise_multiplier_lower =
      NAN;  ///< the largest σ evaluated below noise_multiplier whose ε was not certified
  privacy_estimate estimate;  ///< the accountant's answer at noise_multiplier
};

/// The smallest noise multiplier σ, common to all phases of `run` (their σ are replaced), for
/// which the accountant's ε at δ is ≤ target_epsilon. target_epsilon > 0, δ ∈ (0, 1).
/// Converged: the certified ε at noise_multiplier lies in [(1 − budget_tolerance)·target,
/// target]. Where the σ bracket closes first, the termination is max_iterations and the message
/// says how much of the budget is left unused (the answer is still certified within it).
noise_calibration calibrate_noise_multiplier(training_run run,
                                             double target_epsilon,
                                             double delta,
                                             const calibration_options& options = {});

/// Whether a calibration's answer leaves budget beyond what its search could resolve: a fresh
/// PLD evaluation at the returned σ, converged at options.pld.relative_accuracy (a), certifies
/// ε ≤ fresh_upper, below (1 − options.budget_tolerance)(1 − 2a)·target_epsilon. A search
/// evaluation within the budget tolerance at accuracy a puts ε at or above
/// (1 − budget_tolerance)(1 − a)·target, so such a fresh upper end says the search's bracket at
/// its answer was wider than it claimed, and a smaller σ may hold the budget
/// (calibrate_noise_multiplier then does not report convergence). NaN: false.
[[nodiscard]] bool calibration_leaves_room(double fresh_upper,
                                           double target_epsilon,
                                           const calibration_options& options);

struct steps_calibration : solver_status {
  long long steps = 0;        ///< the largest number of steps within the budget (0: none)
  privacy_estimate estimate;  ///< at `steps` (when ≥ 1)
};

/// The largest number of steps of the run's last phase within target_epsilon at δ, searched up
/// to max_steps (≥ 1). Where the budget still holds at max_steps, the termination is
/// max_iterations and the message says so (more steps may hold it too).
steps_calibration calibrate_steps(training_run run,
                                  double target_epsilon,
                                  double delta,
                                  long long max_steps,
                                  const calibration_options& options = {});

}  // namespace dpkit::accounting
