// dpkit/core/binomial.hpp — one-sided Clopper–Pearson limits of a binomial proportion.
//
// The one rule every confidence statement about a proportion in dpkit goes through: the
// simulator's two-sided intervals (sim/statistics.hpp, clopper_pearson) and the canary-score
// auditor's one-sided limits (audit/canary_scores.hpp) both call these two functions.
//
// Clopper & Pearson 1934 (Biometrika 26:404): with P(Bin(n, p) ≥ k) = I_p(k, n − k + 1) and
// P(Bin(n, p) ≤ k) = 1 − I_p(k + 1, n − k) (I the regularised incomplete beta function),
//
//     lower = I⁻¹_{a}(k, n − k + 1)       (0 when k = 0)
//     upper = I⁻¹_{1−a}(k + 1, n − k)     (1 when k = n)
//
// satisfy P(p < lower) ≤ a and P(p > upper) ≤ a for every true p and n: each limit is a
// certified one-sided confidence limit at level 1 − a, not an approximation. The upper limit
// is taken from the complement (Boost.Math ibetac_inv) so that a ≪ 1 is not rounded away.
// Bad input throws std::domain_error ("<function>: <name> is <value>, but must be ...").
#pragma once

#include <cstddef>

namespace dpkit {

/// Lower Clopper–Pearson limit of p from k successes in n ≥ 1 trials at one-sided error
/// `tail` ∈ (0, 1): P(p < lower) ≤ tail. 0 when k = 0; (tail)^{1/n} when k = n.
double binomial_lower_limit(std::size_t successes, std::size_t trials, double tail);

/// Upper Clopper–Pearson limit of p from k successes in n ≥ 1 trials at one-sided error
/// `tail` ∈ (0, 1): P(p > upper) ≤ tail. 1 when k = n; 1 − (tail)^{1/n} when k = 0.
double binomial_upper_limit(std::size_t successes, std::size_t trials, double tail);

}  // namespace dpkit
