// dpkit/accounting/training_run.hpp — what is being accounted: a DP-SGD training run.
//
// A run is a sequence of phases, each `steps` noisy gradient steps with noise multiplier σ
// (noise standard deviation / clipping norm) and sampling rate q, plus an optional Gaussian
// factor G(μ₀) (a mechanism that is μ₀-GDP on its own; BSA24 Thms 4.9/4.10 compose
// exactly such a factor with subsampled steps). The sampling scheme fixes the neighbouring
// relation, as is standard:
//
//   poisson               each example joins a batch independently with probability q;
//                         add/remove neighbours; one step is the Poisson-subsampled Gaussian
//                         with sensitivity 1 (remove: (1−q)N(0,σ²) + qN(1,σ²) vs N(0,σ²)).
//                         Both directions are accounted and the worse is reported.
//   without_replacement   fixed-size batches of q·n examples drawn without replacement;
//                         replace-one neighbours, so the clipped sum moves by up to 2C and one
//                         step is C_q(G(2/σ)) (DRS22 Thm 4.2; BSA24 Def 4.7). The adversary
//                         may alternate directions between steps, so the symmetric C_q(G(2/σ))
//                         is composed (docs/accounting.md).
//   shuffling             the data shuffled every epoch and cut into t = ⌈1/q⌉ batches, so each
//                         example is used exactly once per epoch; zero-out neighbours (one
//                         example's gradient replaced by 0, sensitivity 1, as Chua et al. 2024
//                         and as the Poisson numbers it is compared with). No
//                         tight accountant is known: the accounting facade reports a certified
//                         bracket [lower, upper] (accounting/shuffling.hpp) — lower from the
//                         epoch maximum of Chua et al. 2024, upper without amplification.
//
//   truncated_poisson     Poisson batches (rate q over a dataset of n examples) cut to at most B
//                         examples (a uniformly random B of them kept), as dp_accounting's
//                         TruncatedSubsampledGaussianDpEvent. One step is a mixture (Ganesh
//                         2025, [Gan25]; dp_accounting's PLD notes §5.3): with probability
//                         t = P(Bin(n−1, q) ≥ B) (the others fill the batch) the record is kept
//                         with probability q′ = B·P(Bin(n, q) ≥ B+1)/(n·t) and then also evicts
//                         another record, so the sum moves by up to 2C: the Poisson pair with
//                         q′ and sensitivity 2; otherwise the plain Poisson pair with q.
//                         n is the size of the dataset that holds the differing record.
//
// Neighbouring relations (training_phase::neighbours): each scheme has its standard one
// (above); Poisson and truncated Poisson batches also take replace-one neighbours: the pair
// (1−q)N(0,σ²) + qN(−1,σ²) vs (1−q)N(0,σ²) + qN(1,σ²), a worst case for every ε (Lebeda et al.
// 2024, [LRKS24]), so composing it is tight (subsampling/privacy_loss.hpp).
//
// q = 1 with Poisson is the full-batch Gaussian mechanism G(1/σ) (G(2/σ) with replace-one);
// without replacement it is G(2/σ) (replace-one).
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dpkit/subsampling/privacy_loss.hpp"

namespace dpkit::accounting {

enum class sampling_scheme {
  poisson,
  without_replacement,
  shuffling,
  random_allocation,
  truncated_poisson
};

/// "poisson", "without-replacement", "shuffling", "random-allocation" or "truncated-poisson"
/// (the CLI spelling).
std::string_view to_string(sampling_scheme s) noexcept;

/// Every scheme's name, as to_string spells it, in the order users are shown them.
inline constexpr std::array<std::string_view, 5> kSamplingSchemeNames = {
    "poisson", "truncated-poisson", "without-replacement", "shuffling", "random-allocation"};

/// The scheme to_string names `name` ('_' read as '-', so Python's "without_replacement" too);
/// std::nullopt for any other text.
std::optional<sampling_scheme> parse_sampling_scheme(std::string_view name) noexcept;

/// The neighbouring relation of a phase; `standard` is the scheme's own (header comment).
enum class neighbouring { standard, add_remove, replace_one, zero_out };

/// "standard", "add-remove", "replace-one" or "zero-out" (the CLI spelling).
std::string_view to_string(neighbouring n) noexcept;

/// The relations a user may ask for (the others are a scheme's own: `standard`, and zero-out for
/// shuffling).
inline constexpr std::array<std::string_view, 2> kNeighbouringNames = {"add-remove",
                                                                        "replace-one"};

/// add_remove or replace_one from their names ('_' read as '-'); std::nullopt otherwise.
std::optional<neighbouring> parse_neighbouring(std::string_view name) noexcept;

/// The smallest positive noise multiplier the accountants take: below it one step's ε exceeds
/// 1e200 (the privacy loss is ~1/(2σ²)), and with up to 2^53 steps the composed losses would leave
/// the double range. 0 (no noise) is an edge value (accountant.hpp).
inline constexpr double kSmallestNoiseMultiplier = 1e-100;
/// The smallest positive sampling rate: the smallest normal double (a subnormal rate's square and
/// logarithm lose their precision). 0 (never sampled) is an edge value.
inline constexpr double kSmallestSamplingRate = 2.2250738585072014e-308;
/// The smallest target δ the command line and the Python package take (`--delta`, `delta=`):
/// below it the accountants' certified tail corrections (at least 1e-300) swamp δ, and a PLD
/// answer is ∞ after its whole refinement. The library's own functions take δ ∈ (0, 1).
inline constexpr double kSmallestDelta = 1e-290;

struct training_phase {
  double noise_multiplier = 1.0;  ///< σ > 0
  double sampling_rate = 1.0;     ///< q ∈ (0, 1]
  sampling_scheme sampling = sampling_scheme::poisson;
  long long steps = 1;  ///< ≥ 1
  neighbouring neighbours = neighbouring::standard;
  long long dataset_size = 0;    ///< n, truncated Poisson only (≥ 1 there)
  long long max_batch_size = 0;  ///< B, truncated Poisson only (≥ 1 there)
  /// Shuffling and random allocation: the steps t of one epoch; 0 for the accountants' own
  /// t = ⌈1/q⌉. derive_phase gives a data loader's ⌈N/B⌉ here, exact from the counts. Shuffling
  /// also takes a t with t·q < 1: a loader that drops the last, incomplete batch (t = ⌊N/B⌋),
  /// which uses an example in an epoch only with probability t·q (accounting/shuffling.hpp; a t·q
  /// within 2^-50 of 1 is read as 1, a loader with t·B = N up to rounding).
  long long steps_per_epoch = 0;
  /// Random allocation: the steps k of every epoch each example is used in, chosen uniformly
  /// among the C(t, k) sets (k of t; 1 is balls in bins). q = k/t: without steps_per_epoch the
  /// accountants take t = ⌈k/q⌉. 1 for every other scheme.
  long long selected = 1;
};

/// A scheme's own relation: add/remove for Poisson, truncated Poisson and random allocation;
/// replace-one without replacement; zero-out for shuffling.
neighbouring standard_relation(sampling_scheme s) noexcept;

/// The relation a phase is accounted under: its `neighbours`, or the scheme's standard one
/// (add/remove for Poisson, truncated Poisson and random allocation; replace-one without
/// replacement; zero-out for shuffling).
neighbouring relation(const training_phase& p) noexcept;

/// The clipped sum's largest change between the phase's neighbours, in clipping norms: 2 for
/// replace-one, 1 otherwise.
double sensitivity(const training_phase& p) noexcept;

/// Truncated Poisson batches (training_run.hpp header): t = P(Bin(n−1, q) ≥ B), the chance that
/// the other records fill the batch, and q′ = B·P(Bin(n, q) ≥ B+1)/(n·t), the chance that the
/// differing record is kept when they do (0 when t = 0). Both are rounded up by 8 ulp (a
/// larger t or q′ only adds privacy loss).
struct truncation_weights {
  double t = 0;
  double q_kept = 0;
};
truncation_weights truncated_poisson_weights(long long n, double q, long long max_batch);

struct training_run {
  std::vector<training_phase> phases;
  double gaussian_mu = 0.0;  ///< an extra G(μ₀) factor; 0 for none

  /// Throws std::domain_error (check_* message) unless every phase has σ finite and ≥
  /// kSmallestNoiseMultiplier, q ∈ [kSmallestSamplingRate, 1], steps ≥ 1, and μ₀ ∈ [0, 1e6]. (A run
  /// without phases and μ₀ = 0 is perfectly private: ε = 0.) With edge_values, σ ∈ [0, +inf] and q
  /// ∈ [0, 1] are accepted: the edge values that estimate_epsilon and estimate_delta answer
  /// (accountant.hpp). Also: each phase's neighbours are ones its scheme takes (replace-one or
  /// add/remove for Poisson and truncated Poisson; replace-one without replacement; add/remove for
  /// random allocation; zero-out for shuffling); truncated Poisson has n ≥ 1, B ≥ 1, and q < 1
  /// unless B ≥ n (with q = 1 and B < n every batch is B records drawn without replacement); a
  /// steps_per_epoch t other than 0 only with shuffling (1 ≤ t ≤ ⌈1/q⌉: (t − 1)·q < 1) or random
  /// allocation (t = ⌈1/q⌉: (t − 1)·q < 1 ≤ t·q, within 1e-9 relative).
  void validate(std::string_view function, bool edge_values = false) const;

  /// Total number of steps (Σ steps; +1 for the Gaussian factor).
  [[nodiscard]] long long total_steps() const;

  /// True when every factor is a Gaussian mechanism (all q = 1): then the run is exactly
  /// μ-GDP with μ = gdp_mu() and every accountant has a closed form.
  [[nodiscard]] bool is_gaussian() const;
  /// √(μ₀² + Σ steps·μ_phase²), μ_phase = 1/σ (Poisson) or 2/σ (without replacement); only
  /// meaningful when is_gaussian().
  [[nodiscard]] double gdp_mu() const;

  /// True when some phase has two adjacency directions to account: Poisson or truncated Poisson
  /// subsampling with q < 1 under add/remove neighbours (replace-one pairs are symmetric).
  [[nodiscard]] bool has_poisson_subsampling() const;

  /// True when some phase shuffles with q < 1 (accounted by accounting/shuffling.hpp only).
  [[nodiscard]] bool has_shuffling() const;
  /// True when some phase samples per epoch with q < 1 — shuffling or random allocation —
  /// (accounted alone, by accounting/shuffling.hpp and accounting/random_allocation.hpp).
  [[nodiscard]] bool has_epoch_sampling() const;

  /// True when some truncated Poisson phase can truncate (q < 1, B < n): its pair dominates
  /// the mechanism without being attained, so the PLD accountant's lower side comes from
  /// lower_bound_run() instead (pld_accountant.hpp).
  [[nodiscard]] bool has_truncation() const;
  /// The run with each truncated Poisson phase replaced by plain Poisson batches with rate
  /// q̄ = (1 − t)q + t·q′, the chance that the differing record is in the final batch (rounded
  /// down): attained by the datasets whose other records have gradient 0 (the record alone moves
  /// the sum, by 1, or from −1 to +1 for replace-one), so its privacy curve is a lower bound on
  /// the truncated run's.
  [[nodiscard]] training_run lower_bound_run() const;

  [[nodiscard]] std::string describe() const;
};

/// Progress of a curve over the steps (estimate_epsilon_curve and its kin): called after each
/// point with (points done, points in all). Optional.
using curve_progress = std::function<void(std::size_t done, std::size_t total)>;

/// One factor of the composition in one direction: a per-step privacy loss and its count.
struct loss_factor {
  std::shared_ptr<const subsampling::privacy_loss> loss;
  long long count = 1;
};

/// The factors of the run for one adjacency direction (remove or add; for runs without
/// Poisson subsampling both directions give the same symmetric factors).
std::vector<loss_factor> loss_factors(const training_run& run, subsampling::adjacency_direction d);

}  // namespace dpkit::accounting
