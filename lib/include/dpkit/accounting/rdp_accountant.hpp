// dpkit/accounting/rdp_accountant.hpp — the Rényi-DP accountant for a training run.
//
// RDP composes additively: ε_run(α) = Σ_phases steps·ε_phase(α) + αμ₀²/2, with
//   Poisson phases:             poisson_gaussian_rdp (Mironov, Talwar & Zhang 2019; exact),
//   without-replacement phases: wor_gaussian_rdp (Wang, Balle & Kasiviswanathan 2019; a bound),
//   full-batch phases:          α/(2σ²) (Poisson convention) or 2α/σ² (replace-one),
// and converts to (ε, δ) with the best of the four conversions of divergence/rdp.hpp. The
// orders are adaptive: 32 integer orders from 2 to 10⁴ (exact sums) and 1.1, 1.25, 1.5,
// 1.75, then a golden-section refinement over fractional α (quadrature) around the best one.
// The result is a valid upper bound (kind upper_bound, tight = false).
#pragma once

#include "dpkit/accounting/training_run.hpp"
#include "dpkit/divergence/rdp.hpp"

namespace dpkit::accounting {

/// ε_run(α) for α ∈ (1, 1e6] (the run is validated).
double run_rdp(const training_run& run, double alpha);

/// The RDP accountant at δ ∈ (0, 1).
divergence::rdp_epsilon_result rdp_epsilon(const training_run& run, double delta);

/// δ at ε ≥ 0 from the same orders.
divergence::rdp_delta_result rdp_delta(const training_run& run, double epsilon);

}  // namespace dpkit::accounting
