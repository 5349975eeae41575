// dpkit/subsampling/privacy_loss.hpp — privacy-loss distributions (PLDs) of one mechanism step.
//
// For a dominating pair (P, Q) of a mechanism, the privacy loss is Y = log(dP/dQ) and
//
//     δ(ε) = sup_E P(E) − e^ε Q(E) = E_P[(1 − e^{ε−Y})₊]                (BSA24 §D.5)
//
// A `privacy_loss` exposes the law of Y under P *and* under Q on intervals of the loss axis:
// the PLD composition engine (accounting/pld.hpp) needs both to discretise with certified
// pessimistic and optimistic rounding (the Q-mass of an interval is E_P[e^{−Y}; interval]).
//
// Mechanisms (σ = noise multiplier, i.e. noise std / ℓ₂ sensitivity; q = sampling rate):
//
//   gaussian_loss(μ)                 G(μ): Y ~ N(μ²/2, μ²) under P, N(−μ²/2, μ²) under Q.
//   poisson_gaussian_loss(σ, q, d)   Poisson subsampling, add/remove adjacency, sensitivity 1:
//                                    remove: P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²);
//                                    add:    the reverse pair (N(0,σ²), (1−q)N(0,σ²) + qN(1,σ²)).
//   symmetric_subsampled_gaussian_loss(μ, p)
//                                    the symmetric C_p(G(μ)) of BSA24 Def 4.7, with the CDF of
//                                    its privacy loss from BSA24 Prop D.4 (atom at 0 kept).
//                                    Sampling without replacement (fixed batch size) with
//                                    replace-one adjacency is C_q(G(2/σ)): the replaced record
//                                    changes the clipped sum by up to 2C (docs/accounting.md).
//   poisson_replace_one_gaussian_loss(σ, q)
//                                    Poisson subsampling, replace-one adjacency (the replaced
//                                    record's clipped gradient −e in one dataset, +e in the
//                                    other): P = (1−q)N(0,σ²) + qN(−1,σ²),
//                                    Q = (1−q)N(0,σ²) + qN(1,σ²). A worst case for every ε, so
//                                    composing it is tight (Lebeda et al. 2024, [LRKS24]);
//                                    symmetric (x ↦ −x swaps P and Q).
//   mixture_loss(w, A, B)            the pair that shows A with probability w and B otherwise,
//                                    and says which: PLD w·A + (1−w)·B (how truncated Poisson
//                                    batches are accounted, training_run.hpp).
//   gaussian_mixture_loss(μ, w, d)   a mixture of unit-variance Gaussians against N(0, 1):
//                                    remove: P = Σ_m w_m N(μ_m, 1), Q = N(0, 1); add: the
//                                    reverse pair (one row of the conditional-composition bound
//                                    for matrix mechanisms, accounting/matrix_mechanism.hpp).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace dpkit::subsampling {

/// P- and Q-probabilities of an interval of the loss axis.
struct loss_mass {
  double p = 0;
  double q = 0;
};

class privacy_loss {
 public:
  virtual ~privacy_loss() = default;

  /// P(a < Y ≤ b) and Q(a < Y ≤ b) for a ≤ b (a may be −∞, b may be +∞). Both are computed
  /// without cancellation (differences taken in the small tail).
  [[nodiscard]] virtual loss_mass mass(double a, double b) const = 0;

  /// Masses of the consecutive intervals (cuts[k], cuts[k+1]], k = 0 … n−2, of increasing
  /// finite cuts, written to `cells` (size n − 1), and of (−∞, cuts[0]] and (cuts[n−1], ∞).
  /// Same values as mass() on each interval, but each CDF is evaluated once per cut point
  /// (the PLD discretisation calls this on ~10⁴–10⁶ cuts). The default loops over mass().
  virtual void interval_masses(std::span<const double> cuts,
                               std::vector<loss_mass>& cells,
                               loss_mass& below,
                               loss_mass& above) const;

  /// The loss support is contained in [support_lower(), support_upper()] (may be ±∞).
  [[nodiscard]] virtual double support_lower() const = 0;
  [[nodiscard]] virtual double support_upper() const = 0;

  /// The single-step privacy profile δ(ε) = P(Y > ε) − e^ε Q(Y > ε) (closed forms override).
  [[nodiscard]] virtual double delta(double epsilon) const;

  /// The smallest y with P(Y > y) ≤ tau, and the largest y with P(Y ≤ y) ≤ tau (tau ∈ (0, 1)),
  /// found by bracketed root finding on log-probabilities; used to truncate the grid.
  [[nodiscard]] virtual double upper_tail_point(double tau) const;
  [[nodiscard]] virtual double lower_tail_point(double tau) const;

  [[nodiscard]] virtual std::string describe() const = 0;
};

/// G(μ), μ ≥ 0: Y = log(dP/dQ) for P = N(μ,1), Q = N(0,1) (symmetric; μ = 0 gives Y ≡ 0).
std::unique_ptr<privacy_loss> gaussian_loss(double mu);

enum class adjacency_direction { remove, add };

/// Poisson-subsampled Gaussian mechanism, add/remove adjacency (σ > 0, q ∈ (0, 1]).
std::unique_ptr<privacy_loss> poisson_gaussian_loss(double sigma,
                                                    double q,
                                                    adjacency_direction direction);

/// The symmetric subsampled Gaussian C_p(G(μ)) (μ > 0, p ∈ (0, 1]).
std::unique_ptr<privacy_loss> symmetric_subsampled_gaussian_loss(double mu, double p);

/// Poisson-subsampled Gaussian mechanism, replace-one adjacency (σ > 0, q ∈ (0, 1]); q = 1 is
/// the Gaussian G(2/σ).
std::unique_ptr<privacy_loss> poisson_replace_one_gaussian_loss(double sigma, double q);

/// The disjoint mixture of two pairs: A with probability w ∈ [0, 1], else B. Its P- and
/// Q-masses are w·(A's) + (1 − w)·(B's) on every interval of the loss axis.
std::unique_ptr<privacy_loss> mixture_loss(double w,
                                           std::shared_ptr<const privacy_loss> a,
                                           std::shared_ptr<const privacy_loss> b);

/// The mixture Σ_m w_m N(μ_m, 1) against N(0, 1) (remove; add: the reverse pair): means ≥ 0,
/// at least one > 0, weights ≥ 0 summing to 1 (within 1e-12; renormalised). Equal means are
/// merged. Throws std::invalid_argument (lengths, sum) or std::domain_error (a bad value).
std::unique_ptr<privacy_loss> gaussian_mixture_loss(std::vector<double> means,
                                                    std::vector<double> weights,
                                                    adjacency_direction direction);

}  // namespace dpkit::subsampling
