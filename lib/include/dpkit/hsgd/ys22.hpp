// dpkit/hsgd/ys22.hpp — Ye & Shokri's last-iterate Rényi DP bound for one shuffled pass of
// noisy (clipped) mini-batch gradient descent on strongly convex smooth losses [YS22], the
// comparison curve of LKSP25 Fig. 3(b).
//
// SETTING (dpkit's conventions). x ← x − η(ḡ + σZ), Z ~ N(0, I), ḡ the mean of b per-example
// gradients clipped at C, one pass over m = n/b disjoint batches in a uniformly random order;
// each per-example loss λ-strongly convex and β-smooth with η < 2/(λ + β). The record in which
// the neighbouring datasets differ sits in a uniformly random batch.
//
// THE BOUND (as the authors' released code evaluates it — privacytrustlab/dp_dynamics,
// dp_utils.py, first_epoch_guarantee and shuffle_guarantee; the theorem's text, [YS22]
// Thm 3.3, was not available to this project, docs/hsgd.md). With c = 1 − ηλ and
//   A = 2αC²/(σ²b²)
// (YS22 write A = αηS_g²/(4σ_YS²b²) with the replace-one sensitivity S_g = 2C and the noise
// √(2ησ_YS²)·N(0, I) per step, so σ_YS² = ησ²/2 here), the record used j steps before the
// release (j = 1: in the last step) costs
//   ε_j(α) = A·c^{2(j−1)}(1 − c²)/(1 − c^{2j})     (→ A/j as λ → 0),
// and the release after k ≤ m steps of the pass, with the record's batch uniform over the m
// (batches not yet used cost nothing), is
//   ε(α; k) = 1/(α−1) · log( ((m − k) + Σ_{j=1}^{k} e^{(α−1)ε_j}) / m ).
// At k = m this is the authors' one-epoch bound (the first term of their several-epoch bound
// vanishes); several epochs are not implemented.
//
// NUMERICS. c² = e^{−u} with u = −2 log1p(−ηλ), so (1 − c²)/(1 − c^{2j}) = expm1(−u)/expm1(−uj)
// without cancellation for small ηλ; the sum is a log-sum-exp (no overflow for large (α−1)A).
// Relative error a few ulps times k (measured against 50-digit mpmath values in ys22_test).
#pragma once

namespace dpkit::hsgd {

/// The parameters of [YS22]'s bound in dpkit's conventions (file comment).
struct ys22_setting {
  double alpha = 2;             ///< Rényi order α > 1
  double clip = 1;              ///< per-example clipping threshold C > 0
  double noise = 1;             ///< σ > 0 of x ← x − η(ḡ + σZ)
  double step = 0.1;            ///< η > 0
  double strong_convexity = 0;  ///< λ ≥ 0 of each per-example loss (ηλ < 1)
  long long batch_size = 1;     ///< b ≥ 1
  long long batches = 1;        ///< m = n/b ≥ 1 batches in the pass
};

/// A = 2αC²/(σ²b²). Throws std::domain_error on parameters outside the documented ranges.
double ys22_scale(const ys22_setting& s);

/// ε_j(α) of the record used j ≥ 1 steps before the release.
double ys22_position_rdp(const ys22_setting& s, long long j);

/// ε(α; k) of the last iterate after k steps of the pass, 0 ≤ k ≤ m (0 at k = 0). A Rényi DP
/// upper bound under [YS22]'s assumptions (file comment); the smoothness condition
/// η < 2/(λ + β) is the caller's to check (ys22_step_ok).
double ys22_one_pass_rdp(const ys22_setting& s, long long k);

/// Whether η < 2/(λ + β), the step-size condition of the bound.
bool ys22_step_ok(double step, double strong_convexity, double smoothness);

}  // namespace dpkit::hsgd
