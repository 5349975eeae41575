// dpkit/core/log_space.hpp — arithmetic on numbers stored as logarithms.
//
// Mixtures, tail products e^ε·Φ(·) and privacy profiles δ(ε) that underflow double are
// carried as logarithms; these helpers add and subtract them without overflow or
// catastrophic cancellation (Mächler 2012, "Accurately computing log(1 − exp(−|a|))").
#pragma once

#include <span>

namespace dpkit {

/// log(1 − e^x) for x ≤ 0: log(−expm1(x)) for x > −log 2, log1p(−e^x) below (Mächler 2012).
/// x = 0 gives −∞; x > 0 throws std::domain_error.
double log1mexp(double x);

/// log(1 + e^x) without overflow.
double log1pexp(double x);

/// log(e^a + e^b). Either argument may be −∞.
double log_sum_exp(double a, double b);

/// log Σ e^{x_i}, shifted by the maximum. An empty span gives −∞.
double log_sum_exp(std::span<const double> x);

/// log(e^a − e^b) for a ≥ b; a = b gives −∞; a < b throws std::domain_error.
double log_diff_exp(double a, double b);

/// An upper bound on e^x as a double, for a quantity carried as an upper bound x on its log
/// (a δ that may underflow): the next double above the computed e^x (exp is within one ulp) —
/// the smallest subnormal, 4.9e-324, where e^x underflows to 0. So an upper bound never shows a
/// positive quantity as 0. x = −∞ gives 0 (the quantity is 0 exactly); NaN gives NaN (as exp:
/// the caller's checks name it). Callers bounding a probability cap it at 1 as
/// std::min(exp_upper(x), 1.0), which keeps a NaN (std::min(1.0, NaN) is 1).
double exp_upper(double x);

/// A lower bound on e^x as a double, for a quantity carried as a lower bound x on its log: the
/// next double below the computed e^x (0 at the bottom; −∞ gives 0, NaN gives NaN). In the
/// subnormal range, where a relative padding rounds back to the same double, this still moves.
double exp_lower(double x);

/// log(e^x − 1) for x ≥ 0 (x = 0 gives −∞), exact for tiny x and without overflow for large x.
double log_expm1(double x);

}  // namespace dpkit
