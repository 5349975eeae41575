// validation/sweep/sweep_cases.hpp — the domain sweep's cases: seeded runs over the whole
// accepted domain of the accountants (docs/guarantees.md, "The domain sweep").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "dpkit/accounting/training_run.hpp"
#include "support/exact_curves.hpp"

namespace dpkit::sweep {

/// Where the tier draws from. Both cover the whole accepted domain of σ, q and δ; the quick tier
/// (CI) keeps runs to ≤ 1e4 steps so that its cases fit in a minute or two on two cores, the
/// full tier reaches the PLD engine's 1e8.
enum class tier { quick, full };

/// The closed form that a case's exact ε has, if any (support/exact_curves.hpp).
enum class regime {
  none,
  gaussian,
  poisson_one_step,
  poisson_replace_one_one_step,
  wor_one_step,
  poisson_small_sigma
};

/// A second run whose exact ε is at least the case's (monotone in σ, T and, for per-step
/// schemes, q): the case's certified lower ends must not exceed its certified upper ends.
enum class perturbation { noise, steps, rate };

struct sweep_case {
  std::uint64_t index = 0;
  accounting::training_run run;
  double delta = 0.5;
  regime exact = regime::none;
  perturbation moved = perturbation::noise;
  accounting::training_run larger;  ///< the run with the larger (or equal) exact ε
  double accuracy = 1e-3;           ///< the PLD accountant's relative accuracy
  std::size_t max_fft_size = 0;     ///< and its FFT limit
  bool calibrate = false;           ///< also calibrate the noise multiplier
  double target_epsilon = 1;        ///< the calibration's budget
  [[nodiscard]] std::string describe() const;
};

/// Case `index` of the sweep under `seed`: a pure function of the three (counter-based draws).
sweep_case make_case(std::uint64_t seed, std::uint64_t index, tier t);

/// The 50-digit curve of a case whose regime has one (nullopt for regime::none, or where the
/// regime's sum is too long).
std::optional<test::delta_curve> exact_curve(const sweep_case& c);

/// The smallest noise multiplier the accountants accept (training_run::validate).
double smallest_noise_multiplier();

}  // namespace dpkit::sweep
