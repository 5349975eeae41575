// dpkit/accounting/pld_accountant.hpp — certified two-sided (ε, δ) of a training run by
// privacy-loss-distribution composition (pld.hpp).
//
// The grid spacing h is chosen automatically: a first pass on a coarse grid measures the gap
// ε_upper − ε_lower, which shrinks like h² (both discretisations are second order); h is
// then reduced by √(target/gap) until (ε_upper − ε_lower) ≤ relative_accuracy·ε_upper. If
// the FFT would exceed max_fft_size first, the result keeps the last certified bracket and
// says so (termination max_iterations). Runs of Gaussian mechanisms only (all q = 1) use
// the exact closed form instead (tight).
#pragma once

#include <cmath>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "dpkit/accounting/training_run.hpp"
#include "dpkit/divergence/result.hpp"

namespace dpkit::accounting {

/// The finest grid spacing the PLD engine takes (pld_options::grid_spacing): below it the
/// rounding of the cell masses, not the grid, would set the bracket (pld_accountant.cpp).
inline constexpr double kSmallestGridSpacing = 1e-10;

struct pld_options {
  /// Target relative width (ε_upper − ε_lower)/ε_upper (or of the δ bracket). Default: 1e-3.
  double relative_accuracy = 1e-3;
  /// Grid spacing h of the privacy-loss axis, ≥ 1e-10 (the automatic grid never goes finer:
  /// below, rounding dominates the discretisation); 0 chooses it from relative_accuracy.
  /// Default: 0.
  double grid_spacing = 0;
  /// A grid_spacing below the run's lattice floor (the finest spacing at which its composed
  /// lattice indices stay exact in double precision) is raised to that floor instead of
  /// refused. Calibration sets it: the spacing it carries between noise multipliers can fall
  /// below the floor of another σ (full-tier cases 47 105 and 47 980 were refused in words
  /// naming `grid_spacing`, which the caller never gave). Default: false.
  bool raise_to_lattice_floor = false;
  /// With grid_spacing = 0: the spacing of the first pass (0: 1/2000 of the widest per-step
  /// loss range). Calibration passes the previous evaluation's spacing here. Default: 0.
  double initial_grid_spacing = 0;
  /// Largest FFT, in points (≈ 40 bytes each at peak). Default: 2^24 (≈ 0.7 GiB).
  std::size_t max_fft_size = std::size_t{1} << 24;
  /// Grid refinements after the first pass. Default: 6.
  int max_refinements = 6;
  /// δ queries: the smallest δ worth resolving. δ is truncated first at 1e-20; where it lies
  /// below, later rounds truncate lower, but not below 1e-6 × this (pld_accountant.cpp,
  /// delta_of). Callers that add a larger δ anyway raise it (conditional composition: 1e-14).
  /// In (0, 1); default: 1e-294, δ down to where the doubles end.
  double delta_floor = 1e-294;

  /// Throws std::domain_error naming the violated constraint (Ceres Options::validate style).
  void validate(std::string_view function) const;
};

struct pld_diagnostics {
  double grid_spacing = NAN;  ///< h of the final pass
  std::size_t fft_size = 0;   ///< largest FFT of the final pass
  int passes = 0;             ///< grid passes evaluated
  /// The bracket stopped narrowing as the grid was refined: its width is the certified FFT
  /// round-off's, not the grid's, so finer grids (or a larger FFT limit) would not narrow it.
  bool roundoff_limited = false;
};

/// `value` = `upper` (certified upper bound on ε); `lower` a certified lower bound.
struct pld_epsilon_result : divergence::epsilon_result, pld_diagnostics {};

/// `value` = `upper` (certified upper bound on δ); `lower` a certified lower bound.
struct pld_delta_result : divergence::delta_result, pld_diagnostics {
  double lower = NAN;
  double upper = NAN;
};

/// What repeated queries of one growing run keep between them (incremental_accountant,
/// accountant.hpp): the grid spacing, the discretised steps, and the horizon — a power of two
/// at least the run's total steps — that their per-step truncation was chosen for. A query of
/// a run with the same phases (the last one's steps aside) and no more steps than the horizon
/// starts on the last grid and composes the steps already discretised: one composition per
/// direction and side when that grid still meets the accuracy. The steps are discretised anew
/// only when the grid is refined or the run outgrows the horizon (which then doubles), so a
/// run queried after every step is discretised O(log T) times. Any other run resets it.
class pld_growth_cache {
 public:
  pld_growth_cache();
  ~pld_growth_cache();
  pld_growth_cache(pld_growth_cache&&) noexcept;
  pld_growth_cache& operator=(pld_growth_cache&&) noexcept;
  pld_growth_cache(const pld_growth_cache&) = delete;
  pld_growth_cache& operator=(const pld_growth_cache&) = delete;

  /// How many times the steps were discretised (one per grid and horizon; both directions).
  [[nodiscard]] long long discretisations() const;
  /// The horizon in steps (0 before the first query).
  [[nodiscard]] long long horizon() const;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
  friend impl& growth_state(pld_growth_cache& c);
};

/// ε bounds at δ ∈ (0, 1) for the run (validated). Poisson phases: both adjacency directions
/// are composed and the larger ε is reported (true ε = max over directions). With a cache, the
/// grid and the discretised steps of the previous query are reused where they apply (above);
/// the bracket is the same certified one either way, within relative_accuracy.
pld_epsilon_result pld_epsilon(const training_run& run,
                               double delta,
                               const pld_options& options = {},
                               pld_growth_cache* cache = nullptr);

/// δ bounds at ε ≥ 0 for the run.
pld_delta_result pld_delta(const training_run& run,
                           double epsilon,
                           const pld_options& options = {},
                           pld_growth_cache* cache = nullptr);

/// The same brackets as pld_epsilon for the run with its last phase taking each number of
/// steps in `steps` (each ≥ 1, any order; the earlier phases and the Gaussian factor are kept):
/// an ε-against-steps curve, out[i] for steps[i]. Computed from the most steps down, every
/// point starting on the grid of the one before and composing the steps that grid already
/// discretised (one discretisation and, typically, one composition per point); a point whose
/// bracket is wider than relative_accuracy on that grid refines it as pld_epsilon does.
std::vector<pld_epsilon_result> pld_epsilon_curve(const training_run& run,
                                                  std::span<const long long> steps,
                                                  double delta,
                                                  const pld_options& options = {},
                                                  const curve_progress& progress = {});

/// δ at ε ≥ 0 against the last phase's steps, as pld_epsilon_curve.
std::vector<pld_delta_result> pld_delta_curve(const training_run& run,
                                              std::span<const long long> steps,
                                              double epsilon,
                                              const pld_options& options = {},
                                              const curve_progress& progress = {});

/// Certified bounds on the privacy profile δ(ε) (max over adjacency directions) at every ε of
/// an ascending list of ε ≥ 0, from one grid. The grid is refined until
/// max(δ_upper − δ_lower) ≤ relative_accuracy · max(δ_upper): accuracy relative to the
/// largest δ on the list (the total-variation distance when the list starts at 0).
struct pld_profile_result : solver_status, pld_diagnostics {
  std::vector<double> epsilon, lower, upper;  ///< at epsilon[i], δ lies in [lower[i], upper[i]]
  bool tight = false;                         ///< exact (Gaussian runs: δ_lower == δ_upper)
};

pld_profile_result pld_delta_profile(const training_run& run,
                                     std::span<const double> ascending_epsilons,
                                     const pld_options& options = {});

/// ε bounds at δ for the composition of `factors` in one adjacency direction (one ordered
/// pair of neighbouring datasets): the building block for custom compositions and for
/// checking the engine against references. The caller takes the max over directions.
pld_epsilon_result pld_epsilon(std::span<const loss_factor> factors,
                               double delta,
                               const pld_options& options = {});

/// δ bounds at ε ≥ 0 for the composition of `factors` in one direction.
pld_delta_result pld_delta(std::span<const loss_factor> factors,
                           double epsilon,
                           const pld_options& options = {});

}  // namespace dpkit::accounting
