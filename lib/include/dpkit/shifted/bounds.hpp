// dpkit/shifted/bounds.hpp — the last-iterate privacy bounds of BSA24 ("Shifted
// Interpolation for Differential Privacy", Bok, Su & Altschuler 2024) for noisy gradient
// descent with full (NoisyGD) and cyclic (NoisyCGD) batches, and for Langevin Monte Carlo.
//
// Setting (BSA24 eq. (2.1)): X_{k+1} = Π_K[X_k − η((1/b) Σ_{i∈B_k} ∇f_i(X_k) + Z_{k+1})],
// Z ~ N(0, σ² I), so the injected noise is N(0, η²σ² I) and one step's sensitivity is ηL/n
// (full batch) or ηL/b (cyclic), L the gradient sensitivity (Def 2.10: sup ‖∇f − ∇g‖ over the
// loss family; an L-Lipschitz family has sensitivity 2L). c = max{|1 − ηm|, |1 − ηM|} is the
// contraction of the gradient step for an m-strongly convex, M-smooth loss (Lemma 2.8).
//
// Every function returns μ with its label: a μ-GDP guarantee (upper bound on privacy loss:
// T(X_t, X′_t) ≥ G(μ)), a lower bound (no better μ can hold: Thm C.17), or an approximation
// (CLT choices of Props C.14/C.15). Corrections of the paper are applied as docs/shifted.md lists
// them and noted at each function.
#pragma once
#include <cmath>
#include <span>
#include <string>

#include "dpkit/core/result.hpp"

namespace dpkit::shifted {

/// The parameters of a noisy gradient run, named as in BSA24.
struct noisy_gradient_setting {
  double sensitivity = NAN;    ///< L, gradient sensitivity (Def 2.10)
  long long examples = 0;      ///< n
  long long batch_size = 0;    ///< b (NoisyCGD, NoisySGD); l = n/b batches per epoch
  double noise = NAN;          ///< σ, the noise rate of (2.1)
  double learning_rate = NAN;  ///< η
  long long steps = 0;         ///< t (NoisyCGD: t = l·E, E epochs)
  double contraction = NAN;    ///< c ∈ (0, 1] (1: convex, not strongly convex)
  double diameter = INFINITY;  ///< D of the constraint set K (inf: unconstrained)
};

/// A GDP parameter with its label and provenance.
struct gdp_bound {
  double mu = NAN;
  bound_kind kind = bound_kind::upper_bound;
  long long tau = -1;  ///< the optimal τ (or E − τ … see `note`) where the bound optimises one
  std::string source;  ///< e.g. "BSA24 Thm 4.2"
  std::string note;    ///< corrections, what was derived rather than stated, …
};

/// c = max{|1 − ηm|, |1 − ηM|} (BSA24 Lemma 2.8), for 0 ≤ m ≤ M, M > 0 and η ∈ (0, 2/M]
/// (η = 2/M gives c = 1 unless m = M). Throws std::domain_error otherwise.
double contraction(double learning_rate, double strong_convexity, double smoothness);

// ---- NoisyGD (full batch, sensitivity ηL/n per step) -------------------------------------

/// Thm 4.1 (composition; tight without further assumptions): μ = (L/(nσ))·√t. Needs L, n, σ, t.
gdp_bound noisy_gd_composition(const noisy_gradient_setting& s);

/// Thm 4.2 (strongly convex; exactly tight for η ≤ 2/(M + m), Thm C.5):
/// μ = √((1 − c^t)/(1 + c^t) · (1 + c)/(1 − c)) · L/(nσ), c ∈ (0, 1). Valid with a projection
/// too (the CNI proof, Thm C.5, covers any K; docs/shifted.md).
gdp_bound noisy_gd_strongly_convex(const noisy_gradient_setting& s);

/// Thm 4.3 (constrained convex, the paper's closed form):
/// μ = (1/σ)√(3LD/(ηn) + (L/n)²⌈Dn/(ηL)⌉), stated for t ≥ Dn/(ηL) (throws otherwise).
gdp_bound noisy_gd_constrained_convex(const noisy_gradient_setting& s);

/// Thm C.7's general form behind Thm 4.3 at one τ ∈ {0, …, t − 1}:
/// μ(τ) = (1/σ)(L√(t − τ)/n + D/(η√(t − τ))).
gdp_bound noisy_gd_constrained_convex_at(const noisy_gradient_setting& s, long long tau);

/// The same minimised over the integers τ ∈ {0, …, t − 1}; any t ≥ 1. Never above Thm 4.3's
/// value.
gdp_bound noisy_gd_constrained_convex_best_tau(const noisy_gradient_setting& s);

/// The optimisation problem itself (interpolation.hpp) with s_k ≡ ηL/n and σ ← ησ: the best
/// bound Thm C.3 gives for any c ∈ (0, 1] and optional diameter (τ = 0 from equal starts, or
/// any τ with z_τ = D). Reproduces Thms 4.2 and 4.3 (general τ) and covers what the paper
/// omits: constrained strongly convex (c < 1 and D < ∞).
gdp_bound noisy_gd_shifted(const noisy_gradient_setting& s);

/// NoisyGD with a learning-rate schedule η_1, …, η_t (BSA24 treats a constant η): Thm C.3
/// with per-step contractions c_k = max{|1 − η_k m|, |1 − η_k M|}, sensitivities η_k L/n and
/// noise η_k σ, solved exactly (interpolation.hpp; with the setting's diameter, windows from any
/// τ with z_τ = D). `s.learning_rate` and `s.contraction` are ignored; s.steps must equal the
/// schedule's length. Needs 0 ≤ m ≤ M and 0 < η_k ≤ 2/M. Not in the paper.
gdp_bound noisy_gd_shifted_schedule(const noisy_gradient_setting& s,
                                    std::span<const double> learning_rates,
                                    double strong_convexity,
                                    double smoothness);

// ---- NoisyCGD (cyclic batches: l = n/b per epoch, E = t/l epochs, sensitivity ηL/b) -------

/// Thm 4.4 (composition): μ = (L/(bσ))·√E.
gdp_bound noisy_cgd_composition(const noisy_gradient_setting& s);

/// Thm 4.5 (strongly convex): μ = (L/(bσ))·√(1 + c^{2l−2}(1 − c²)/(1 − c^l)² ·
/// (1 − c^{l(E−1)})/(1 + c^{l(E−1)})), c ∈ (0, 1). (Lemma C.10's proof has 1 + c^{E(l−1)} in a
/// denominator: a typo for 1 + c^{l(E−1)}; the theorem is right.)
gdp_bound noisy_cgd_strongly_convex(const noisy_gradient_setting& s);

/// Thm 4.6 (constrained convex, closed form), stated for E ≥ Db/(ηL) (throws otherwise):
/// μ = (1/σ)√((L/b)² + 3LD/(ηbl) + (L²/(b²l))⌈Db/(ηL)⌉).
gdp_bound noisy_cgd_constrained_convex(const noisy_gradient_setting& s);

/// Thm 4.6's general form at one τ ∈ {0, …, E − 1} (in epochs):
/// μ(τ) = (1/σ)√((L/b)² + (D/η + L(E − τ)/b)²/(l(E − τ))).
gdp_bound noisy_cgd_constrained_convex_at(const noisy_gradient_setting& s, long long tau);

/// The same minimised over τ ∈ {0, …, E − 1}; any E ≥ 1.
gdp_bound noisy_cgd_constrained_convex_best_tau(const noisy_gradient_setting& s);

/// Convex NoisyCGD without using a diameter: μ = (L/(bσ))·√(1 + (E − 1)/l). Derived from
/// Thm C.3 with c = 1 (docs/shifted-noisy-cgd.md), NOT stated in the paper; it is the c → 1 limit
/// of Thm 4.5 and about √l times below Thm 4.4.
gdp_bound noisy_cgd_convex(const noisy_gradient_setting& s);

/// Thm C.17 (a LOWER bound: NoisyCGD on the quadratic construction is not μ′-GDP for any
/// μ′ < μ): μ = (L/(bσ))·√((1 − c^{lE})/(1 + c^{lE}) · (1 − c²)/(1 − c^l)²), c ∈ (0, 1).
gdp_bound noisy_cgd_strongly_convex_lower(const noisy_gradient_setting& s);

/// The optimisation problem for cyclic batches (proof of Thm 4.5): for the batch j* ∈ [l]
/// holding the differing example, μ² = (L/(bσ))² + OPT/(ησ)², OPT the optimum of the
/// problem on steps 1..t* = t + j* − l − 1 with s_{k+1} = (ηL/b)·1{batch of step k = j*}
/// (z_0 = 0, or any τ with z_τ = D when a diameter is given). The result is the worst case
/// over j*. Any c ∈ (0, 1].
gdp_bound noisy_cgd_shifted(const noisy_gradient_setting& s);

// ---- Langevin Monte Carlo and exponential mechanisms (BSA24 §5) ------------------------

/// Prop 5.1 / Cor 5.2: LMC with step η ∈ (0, 2/(M + m)] on m-strongly convex, M-smooth
/// F, F′ with F − F′ L-Lipschitz is μ-GDP for every t with μ = √((2 − ηm)/2)·L/√m; so are
/// its stationary laws. Tight (Remark 5.3).
gdp_bound lmc(double sensitivity, double strong_convexity, double learning_rate);

/// The same at a finite t (Thm 4.2 with n = 1, σ = √(2/η), c = 1 − ηm; derived, not stated in
/// BSA24): μ = √((1 − c^t)/(1 + c^t) · (2 − ηm)/(ηm)) · L√(η/2).
gdp_bound lmc_at(double sensitivity, double strong_convexity, double learning_rate, long long t);

/// Cor 5.2: the exponential mechanisms π ∝ e^{−F}, π′ ∝ e^{−F′}: μ = L/√m.
gdp_bound exponential_mechanism(double sensitivity, double strong_convexity);

/// Cor 5.4 (log-concave, convex body of diameter D): μ = 2√(LD).
gdp_bound log_concave_mechanism(double sensitivity, double diameter);

/// Cor 5.4 for projected LMC's stationary law, η ∈ (0, 2/M]: μ = √(4LD + 2ηL²).
gdp_bound projected_lmc(double sensitivity, double diameter, double learning_rate);

/// BSA24 §D.4: Cor 5.4's G(2√(LD)) improves on the standard (2LD, 0)-DP of the exponential
/// mechanism exactly when LD > c*, the root of e^{2x} = (1 − Φ(−√x))/Φ(−√x): c* ≈ 0.67639
/// (the paper prints 0.676 in D.4 and 0.677 in §5.2).
double exponential_mechanism_threshold();

// ---- CLT choices of t − τ for NoisySGD (approximations) -----------------------------------

/// K(μ) = e^{μ²}Φ(1.5μ) + 3Φ(−0.5μ) − 2 (BSA24 Lemma A.5): C_p(G(μ))^{⊗t} → G(√2·p√t·√K(μ)).
/// μ ∈ [0, √ln(DBL_MAX) ≈ 26.64]; beyond, e^{μ²} overflows and argument_error is thrown.
double clt_k(double mu);

/// Prop C.14 (strongly convex NoisySGD, Thm 4.9): the real-valued CLT-optimal t − τ (at least 1:
/// where the formula gives less, as it does for large L/(bσ), the choice is 1) and the CLT μ (C.6)
/// there, +∞ where K(2L/(bσ)) overflows a double. An approximation, not a bound (BSA24 §D.5 says
/// so).
struct clt_choice {
  double steps_after_tau = NAN;  ///< the optimal t − τ (real)
  gdp_bound bound;               ///< μ of (C.6)/(C.7) at that t − τ; kind approximation
};
clt_choice noisy_sgd_strongly_convex_clt(const noisy_gradient_setting& s);

/// Prop C.15 (constrained convex NoisySGD, Thm 4.10): t − τ = Dn/(bησ√K₂) (at least 1), μ (C.7)
/// there (+∞ where K₂ overflows).
clt_choice noisy_sgd_constrained_convex_clt(const noisy_gradient_setting& s);

// ---- Rényi-DP bounds the paper compares with (BSA24 Fig. 1, Tables 1, 4) -------------------

/// (α, ρα)-RDP of NoisyGD, strongly convex, by YS22 Thm D.6 as the authors' code evaluates it:
/// ρ = (1 + c)/(1 − c)·(1 − c_ys^t)·(L/(nσ))². The paper's Figure 1 uses c_ys = 0.975 with
/// c = 0.95 (plausibly c_ys = 1 − ηm/2); the formula is not in BSA24.
double ys22_noisy_gd_rho(const noisy_gradient_setting& s, double c_ys);

/// (α, ρα)-RDP of NoisyCGD, strongly convex, by YS22 Thm 3.3 as the authors' code evaluates it:
/// ρ = ½(L/(bσ))²(1 + c^{l−2}(1 − c²)/(1 − c^l)²·(1 − c^{l(E−1)})). Not in BSA24.
double ys22_noisy_cgd_rho(const noisy_gradient_setting& s);

}  // namespace dpkit::shifted
