// Internal: what the facade's translation units share (accountant.cpp: the accountants and
// their curves; edge_values.cpp: sampling rate 0 and noise multipliers 0 and +inf;
// epoch_schemes.cpp: shuffled and allocated epochs; calibration.cpp: the inverse problems).
#pragma once

#include <optional>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/divergence/rdp.hpp"

namespace dpkit::accounting::detail {

/// An RDP accountant's answer in the facade's shape.
privacy_estimate from_rdp(const divergence::rdp_epsilon_result& r);
privacy_estimate from_rdp(const divergence::rdp_delta_result& r);

/// True when some phase has sampling rate 0 or noise multiplier 0 or +inf (validates the
/// phases' ranges, naming `fn`).
bool has_edge_phase(const training_run& run, const char* fn);

/// 1 − Π(1 − q)^T over the run's phases: an upper bound on the chance that the differing example
/// enters any batch of a per-step scheme (truncated Poisson keeps it with at most q).
double participation_probability(const training_run& run);

/// participation_probability where it bounds δ(ε) at every ε — per-step schemes without a
/// G(μ₀) factor (edge_values.cpp) — else std::nullopt.
std::optional<double> participation_cap(const training_run& run);

/// ε = 0 exactly (an edge value, "rare participation") where a per-step run without a G(μ₀)
/// factor has participation_probability ≤ δ; std::nullopt otherwise. Every ε path asks it.
std::optional<privacy_estimate> rare_participation_epsilon(const training_run& run,
                                                           double delta,
                                                           accountant_type a);

/// Caps a certified δ answer of such a run at participation_probability (δ(ε) ≤ it at every ε),
/// saying so in the message; converged where that closes the bracket to the accuracy. Every δ
/// path applies it.
void cap_by_participation(privacy_estimate& e, const training_run& run, const pld_options& options);

/// ε at δ (δ at ε) for a run with an edge phase, or std::nullopt when it has none.
std::optional<privacy_estimate> edge_epsilon(const training_run& run,
                                             double delta,
                                             accountant_type a,
                                             const pld_options& options);
std::optional<privacy_estimate> edge_delta(const training_run& run,
                                           double epsilon,
                                           accountant_type a,
                                           const pld_options& options);

/// ε at δ (δ at ε) for a run of one shuffled or allocated phase (run.has_epoch_sampling()).
privacy_estimate epoch_scheme_epsilon(const training_run& run,
                                      double delta,
                                      accountant_type accountant,
                                      const pld_options& options);
privacy_estimate epoch_scheme_delta(const training_run& run,
                                    double epsilon,
                                    accountant_type accountant,
                                    const pld_options& options);

/// calibrate_noise_multiplier for a run of one shuffled or allocated phase.
noise_calibration calibrate_epoch_scheme(training_run run,
                                         double target_epsilon,
                                         double delta,
                                         const calibration_options& options);

}  // namespace dpkit::accounting::detail
