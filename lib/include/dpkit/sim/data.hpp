#pragma once
// Synthetic data for the reference simulator: random designs (feature matrices) and labels.
//
// Every generator takes a dpkit::random_stream& and is a pure function of the stream's key and
// position (core/random.hpp), so the same (seed, replicate, stream) gives bit-identical data on
// any machine and thread count. The draw order of each generator is documented and part of the
// contract: designs are drawn row by row, so the first n rows of an (n + m)-row design equal the
// n-row design from the same stream. Stream-number convention (random.hpp): 0 data (designs and
// label randomness), 4 label noise; e.g. features from stream 0 and linear_labels from stream 4.
//
// All feature matrices are n×d with row i = example i, as in dataset.hpp.
#include <Eigen/Dense>
#include <cstddef>
#include <limits>

#include "dpkit/core/random.hpp"
#include "dpkit/sim/dataset.hpp"

namespace dpkit::sim {

/// Gaussian design with diagonal covariance: rows a_i ~ N(0, diag(λ)) i.i.d.,
/// a_ij = √λ_j · z_ij with z_ij ~ N(0, 1) drawn row by row (z_00, z_01, …, z_0,d−1, z_10, …).
/// d = eigenvalues.size(). Σ = E[a aᵀ] = diag(λ) is the second moment and the covariance
/// (LKSP25 §1.2 writes Σ for the second moment E[a aᵀ]).
///
/// Throws std::domain_error if n = 0, eigenvalues is empty, or some λ_j is negative or not
/// finite.
Eigen::MatrixXd gaussian_design(std::size_t n,
                                const Eigen::Ref<const Eigen::VectorXd>& eigenvalues,
                                random_stream& stream);

/// Gaussian design with eigenbasis U: rows a_i ~ N(0, U diag(λ) Uᵀ) i.i.d.,
/// a_i = U diag(√λ) z_i, i.e. A = Z diag(√λ) Uᵀ with Z the n×d standard normal matrix drawn as
/// in the diagonal overload (the same stream gives the same Z). Column k of U is the eigenvector
/// of Σ for λ_k (LKSP25 §1.4: Σ = U Λ Uᵀ).
///
/// Throws std::domain_error as the diagonal overload, and if U is not d×d or not orthogonal
/// (max |UᵀU − I| > 1e-8, which admits the output of an eigensolver).
Eigen::MatrixXd gaussian_design(std::size_t n,
                                const Eigen::Ref<const Eigen::VectorXd>& eigenvalues,
                                const Eigen::Ref<const Eigen::MatrixXd>& basis,
                                random_stream& stream);

/// A Haar-distributed random orthogonal d×d matrix: Q from the QR factorisation G = QR of a
/// d×d matrix of i.i.d. N(0, 1) entries (drawn column by column), with the signs fixed so that
/// diag(R) > 0, i.e. Q ← Q·diag(sign R_jj). Without that fix Householder QR is not Haar
/// (Mezzadri 2007, "How to generate random matrices from the classical compact groups",
/// Notices AMS 54, §5).
///
/// Throws std::domain_error if d = 0.
Eigen::MatrixXd random_orthogonal(std::size_t d, random_stream& stream);

/// The non-centred uniform design of LKSP25 §5: a_ij ~ U(0, 1/√d) i.i.d.,
/// drawn row by row as a_ij = u_ij/√d with u_ij = stream.uniform() ∈ (0, 1).
/// Moments: E a_ij = 1/(2√d), Var a_ij = 1/(12d), so the second moment is
/// Σ = E[a aᵀ] = I/(12d) + 11ᵀ/(4d) while the covariance is Cov(a) = I/(12d).
///
/// Throws std::domain_error if n = 0 or d = 0.
Eigen::MatrixXd uniform_design(std::size_t n, std::size_t d, random_stream& stream);

/// Labels of the linear model of LKSP25 §1.3 (Assumption 2) and §5: y_i = a_iᵀx* + ξ_i with
/// ξ_i ~ N(0, noise_sd²) i.i.d., clamped to [−clamp, clamp] when clamp is finite (LKSP25 §5
/// "clipped at ±3 sd", implemented as np.clip: clamp = 3·noise_sd reproduces
/// LKSP25's released code). Exactly one normal draw per example, whatever noise_sd and clamp, so
/// streams stay aligned across settings. features is n×d (row = example), x_star has size d.
///
/// Throws std::domain_error if x_star.size() ≠ d, noise_sd is negative or not finite, clamp is
/// NaN or negative (+inf means no clamping), or a feature or x* entry is not finite.
Eigen::VectorXd linear_labels(const Eigen::Ref<const Eigen::MatrixXd>& features,
                              const Eigen::Ref<const Eigen::VectorXd>& x_star,
                              double noise_sd,
                              random_stream& stream,
                              double clamp = std::numeric_limits<double>::infinity());

/// Labels of the binary logistic GLM: y_i ∈ {−1, +1} with P(y_i = +1) = 1/(1 + e^{−a_iᵀx*})
/// (the model of logistic_regression in models.hpp). One uniform u_i per example:
/// y_i = +1 iff u_i < P(y_i = +1).
///
/// Throws std::domain_error if x_star.size() ≠ d or a feature or x* entry is not finite.
Eigen::VectorXd logistic_labels(const Eigen::Ref<const Eigen::MatrixXd>& features,
                                const Eigen::Ref<const Eigen::VectorXd>& x_star,
                                random_stream& stream);

/// Labels of the multinomial logistic (softmax) GLM with K = w_star.cols() classes: y_i is the
/// class index k ∈ {0, …, K−1}, stored as a double, with P(y_i = k) ∝ exp(a_iᵀw_k), w_k the
/// k-th column of the d×K matrix W* (the model of softmax_regression in models.hpp). One
/// uniform u_i per example, inverted through the cumulative probabilities (computed with the
/// maximum logit subtracted, so any finite logits are safe).
///
/// Throws std::domain_error if w_star is not d×K with K ≥ 2, or a feature or W* entry is not
/// finite.
Eigen::VectorXd softmax_labels(const Eigen::Ref<const Eigen::MatrixXd>& features,
                               const Eigen::Ref<const Eigen::MatrixXd>& w_star,
                               random_stream& stream);

/// Linearly separable binary data in the unit ball with margin `margin` along `direction` v
/// (normalised to ‖v‖ = 1), the input space of WSK+26 §3 (‖x‖ ≤ 1, y ∈ {−1, +1}): per example
///   y = +1 if u₁ < 1/2 else −1,   t = margin + (1 − margin)·u₂,
///   x = y·t·v + ρ·ξ,   ξ = z − (vᵀz)v normalised (z ~ N(0, I_d)),   ρ = √(1 − t²)·u₃^{1/(d−1)},
/// drawn in the order u₁, u₂, z (d normals), u₃. So y·vᵀx = t ≥ margin and ‖x‖² = t² + ρ² ≤ 1
/// (x is pulled back by a few ulp where rounding leaves ‖x‖ above 1), and given t the orthogonal
/// part is uniform on the (d − 1)-ball of radius √(1 − t²) (ρ = 0 when d = 1, where u₃ and z are
/// still drawn: every example costs three uniforms and d normals). t is uniform on [margin, 1]:
/// this is not the uniform law on the ball restricted to |vᵀx| ≥ margin. The margin is the
/// input-space linear margin; the NTK margin γ of WSK+26 Assumption 3.3 is a different
/// quantity (kan.hpp, ntk_margin).
///
/// Throws std::domain_error if n = 0, direction is empty, has a non-finite entry or is 0, or
/// margin is not in [0, 1).
dataset unit_ball_margin_data(std::size_t n,
                              const Eigen::Ref<const Eigen::VectorXd>& direction,
                              double margin,
                              random_stream& stream);

}  // namespace dpkit::sim
