// dpkit/accounting/rdp_accountant.hpp — the Rényi-DP accountant for a training run.
//
// RDP composes additively: ε_run(α) = Σ_phases steps·ε_phase(α) + αμ₀²/2, with
//   Poisson phases:             poisson_gaussian_rdp (Mironov, Talwar & Zhang 2019; exact),
//   without-replacement phases: wor_gaussian_rdp (Wang, Balle & Kasiviswanathan 2019; a bound),
//   full-batch phases:          α/(2σ²) (Poisson convention) or 2α/σ² (replace-one),
// and converts to (ε, δ) with the best of the four conversions of divergence/rdp.hpp. The
// orders are adaptive: 32 integer orders from 2 to 10⁴ (exact sums) and 1.1, 1.25, 1.5,
// 1.75, then a Brent refinement (boost::math::tools::brent_find_minima) over fractional α (quadrature) around the best one.
// The result is a valid upper bound (kind upper_bound, tight = false).
#pragma once

#include <span>
#include <vector>

#include "dpkit/accounting/training_run.hpp"
#include "dpkit/divergence/rdp.hpp"

namespace dpkit::accounting {

/// ε_run(α) for α ∈ (1, 1e6] (the run is validated).
double run_rdp(const training_run& run, double alpha);

/// run_rdp raised by the accountant's allowance for the rounding of the RDP values (1e-10
/// relative, measured against the 50-digit tables with a 50× margin: docs/guarantees.md): the
/// value every conversion of this accountant uses, an upper bound on the exact ε_run(α).
double run_rdp_upper(const training_run& run, double alpha);

/// The RDP accountant at δ ∈ (0, 1).
divergence::rdp_epsilon_result rdp_epsilon(const training_run& run, double delta);

/// δ at ε ≥ 0 from the same orders.
divergence::rdp_delta_result rdp_delta(const training_run& run, double epsilon);

/// The RDP accountant restricted to the given orders (each in (1, 1e6]), as accountants with a
/// fixed order list compute it: the best of the three general conversions over these orders
/// only, every value rounded outward as rdp_epsilon rounds it (an upper bound).
divergence::rdp_epsilon_result rdp_epsilon_at_orders(const training_run& run,
                                                     double delta,
                                                     std::span<const double> orders);

/// δ at ε ≥ 0 from the given orders only, as rdp_epsilon_at_orders.
divergence::rdp_delta_result rdp_delta_at_orders(const training_run& run,
                                                 double epsilon,
                                                 std::span<const double> orders);

/// rdp_epsilon for the run with its last phase taking each number of steps in `steps` (each
/// ≥ 1, any order): out[i] for steps[i], equal to a separate rdp_epsilon call on that run (the
/// phases' one-step RDP at each order is computed once for the whole curve).
std::vector<divergence::rdp_epsilon_result> rdp_epsilon_curve(const training_run& run,
                                                              std::span<const long long> steps,
                                                              double delta,
                                                              const curve_progress& progress = {});

/// rdp_delta against the last phase's steps, as rdp_epsilon_curve.
std::vector<divergence::rdp_delta_result> rdp_delta_curve(const training_run& run,
                                                          std::span<const long long> steps,
                                                          double epsilon,
                                                          const curve_progress& progress = {});

}  // namespace dpkit::accounting
