#pragma once
// Concrete models of the reference simulator (model.hpp): generalised linear models on a dataset
// (least squares, binary logistic, softmax) and the data-free losses of BSA24's worst-case
// constructions (quadratic, linear).
//
// Conventions shared by all models here:
// * examples are 0-based, i ∈ {0, …, n−1}; an index out of range, or x, v, g of the wrong size,
//   is a programmer error (asserted in debug builds, not checked in the hot path);
// * `gradient` and `hessian_vector` write into their output through Eigen expressions and never
//   allocate (except softmax_regression::hessian_vector, documented there);
// * the ridge term is part of every per-example loss, f_i(x) = ℓ_i(x) + (ridge/2)‖x‖², so the
//   empirical risk (1/n) Σ f_i carries (ridge/2)‖x‖² once (LKSP25 §1.1 convention);
// * models on a dataset share it read-only through std::shared_ptr<const dataset>, so the
//   neighbouring model is built from replace_one(D, …) (dataset.hpp) at the cost of one copy;
//   each also keeps a d×n transposed copy of the features, so that example i is contiguous
//   (rows of the n×d column-major matrix are strided by n, ~5–10× slower at d = 1000).
#include <cstddef>
#include <memory>
#include <string>

#include "dpkit/sim/dataset.hpp"
#include "dpkit/sim/model.hpp"

namespace dpkit::sim {

/// What the three models on a dataset share: the dataset (shared read-only), the ridge
/// coefficient, and a d×n copy of the features with column i = a_i, so that example i is
/// contiguous (the dataset's n×d column-major rows are strided by n, which made per-example
/// gradients ~10× slower at d = 1000). Derived classes check ridge and labels themselves.
class dataset_model : public model {
 public:
  std::size_t dimension() const override { return data_->dimension(); }
  std::size_t examples() const override { return data_->size(); }
  const dataset& data() const { return *data_; }
  double ridge() const { return ridge_; }

 protected:
  /// Throws std::domain_error (naming `function`) if data is null or check_dataset fails.
  dataset_model(const char* function, std::shared_ptr<const dataset> data, double ridge);
  std::shared_ptr<const dataset> data_;
  double ridge_;
  Eigen::MatrixXd by_example_;  // d×n, column i = a_i
};

/// Ridge least squares (LKSP25 §1.1): p = d and
///   f_i(x) = ½((a_iᵀx − y_i)² + ridge·‖x‖²),
///   ∇f_i(x) = a_i(a_iᵀx − y_i) + ridge·x,
///   ∇²f_i(x)·v = a_i(a_iᵀv) + ridge·v.
/// The empirical risk is overridden by the vectorised (1/(2n))‖Ax − y‖² + (ridge/2)‖x‖².
class least_squares final : public dataset_model {
 public:
  /// Throws std::domain_error if data is null, check_dataset fails, or ridge is negative or
  /// not finite.
  least_squares(std::shared_ptr<const dataset> data, double ridge);

  double loss(std::size_t i, const_vector_ref x) const override;
  void gradient(std::size_t i, const_vector_ref x, vector_ref g) const override;
  bool has_hessian_vector() const override { return true; }
  void hessian_vector(std::size_t i,
                      const_vector_ref x,
                      const_vector_ref v,
                      vector_ref out) const override;
  /// "least squares (n = 100, d = 10, ridge 0.1)".
  std::string describe() const override;
  double empirical_risk(const_vector_ref x) const override;
};

/// Ridge-regularised binary logistic regression with labels y_i ∈ {−1, +1}: p = d and, with
/// the margin m_i = y_i a_iᵀx and σ(t) = 1/(1 + e^{−t}),
///   f_i(x) = log(1 + e^{−m_i}) + (ridge/2)‖x‖²,
///   ∇f_i(x) = −σ(−m_i)·y_i a_i + ridge·x,
///   ∇²f_i(x)·v = σ(m_i)σ(−m_i)·a_i(a_iᵀv) + ridge·v
/// (standard GLM calculus, e.g. Hastie, Tibshirani & Friedman, Elements of Statistical
/// Learning, 2nd ed., §4.4.1). log(1 + e^{−m}) is evaluated as log1p(e^{−m}) for m ≥ 0 and
/// −m + log1p(e^{m}) for m < 0, and σ(±m) through e^{−|m|}, so every finite margin gives a
/// finite loss accurate to a few ulp (e.g. e^{−40} at m = 40, where log(1 + e^{−m}) gives 0).
class logistic_regression final : public dataset_model {
 public:
  /// Throws std::domain_error if data is null, check_dataset fails, a label is not ±1, or
  /// ridge is negative or not finite.
  logistic_regression(std::shared_ptr<const dataset> data, double ridge);

  double loss(std::size_t i, const_vector_ref x) const override;
  void gradient(std::size_t i, const_vector_ref x, vector_ref g) const override;
  bool has_hessian_vector() const override { return true; }
  void hessian_vector(std::size_t i,
                      const_vector_ref x,
                      const_vector_ref v,
                      vector_ref out) const override;
  /// "logistic regression (n = 100, d = 10, ridge 0.1)".
  std::string describe() const override;
  /// The fraction of examples misclassified by sign(a_iᵀx): those with y_i·a_iᵀx ≤ 0 (a zero
  /// margin counts as an error). Throws std::domain_error if x.size() ≠ d.
  double error_rate(const_vector_ref x) const;
};

/// Ridge-regularised multinomial logistic (softmax) regression with K classes and labels
/// y_i ∈ {0, …, K−1} (stored as doubles). The parameters are the d×K weight matrix W stored
/// column-major, x = vec(W): x[k·d + j] = W(j, k), so column k of W (the weights w_k of class
/// k) is the contiguous block x[k·d, (k+1)·d), and p = d·K. With logits z_k = a_iᵀw_k and
/// π_k = exp(z_k)/Σ_l exp(z_l):
///   f_i(x) = −z_{y_i} + log Σ_k exp(z_k) + (ridge/2)‖x‖²,
///   ∇_{w_k} f_i(x) = (π_k − [k = y_i])·a_i + ridge·w_k,
///   ∇²f_i(x)·vec(V) = vec(a_i (π ⊙ u − π(πᵀu))ᵀ) + ridge·vec(V), u = Vᵀa_i
/// (Bishop, Pattern Recognition and Machine Learning, 2006, §4.3.4). The
/// log-sum-exp subtracts max_k z_k, so any finite logits give a finite loss.
/// `gradient` does not allocate (it keeps the K logits in the first K entries of g while it
/// fills g from the last column backwards); `hessian_vector` allocates two K-vectors.
class softmax_regression final : public dataset_model {
 public:
  /// Throws std::domain_error if data is null, check_dataset fails, classes < 2, a label is not
  /// an integer in [0, classes), or ridge is negative or not finite.
  softmax_regression(std::shared_ptr<const dataset> data, std::size_t classes, double ridge);

  std::size_t dimension() const override { return data_->dimension() * classes_; }
  double loss(std::size_t i, const_vector_ref x) const override;
  void gradient(std::size_t i, const_vector_ref x, vector_ref g) const override;
  bool has_hessian_vector() const override { return true; }
  void hessian_vector(std::size_t i,
                      const_vector_ref x,
                      const_vector_ref v,
                      vector_ref out) const override;
  /// "softmax regression (n = 100, d = 10, K = 3, ridge 0.1)".
  std::string describe() const override;

  std::size_t classes() const { return classes_; }
  /// The fraction of examples whose predicted class — the first k with the largest logit
  /// a_iᵀw_k — differs from y_i. Throws std::domain_error if x.size() ≠ d·K.
  double error_rate(const_vector_ref x) const;

 private:
  std::size_t classes_;
};

/// The same quadratic for every example: f_i(x) = (m/2)‖x‖², ∇f_i(x) = m·x, ∇²f_i·v = m·v,
/// for i = 0, …, n−1 and x ∈ R^d. The base of BSA24's worst-case constructions W1 (NoisyGD,
/// strongly convex) and W3 (LMC) (docs/shifted.md): linearly_perturbed(base, i*, L·v) (model.hpp)
/// gives ∇f′_{i*}(x) = m·x − L·v.
class quadratic final : public model {
 public:
  /// Throws std::domain_error if n = 0, d = 0, or m is negative or not finite.
  quadratic(std::size_t n, std::size_t d, double m);

  std::size_t dimension() const override { return d_; }
  std::size_t examples() const override { return n_; }
  double loss(std::size_t i, const_vector_ref x) const override;
  void gradient(std::size_t i, const_vector_ref x, vector_ref g) const override;
  bool has_hessian_vector() const override { return true; }
  void hessian_vector(std::size_t i,
                      const_vector_ref x,
                      const_vector_ref v,
                      vector_ref out) const override;
  /// "quadratic (m/2)|x|^2 (n = 10, d = 2, m = 0.5)".
  std::string describe() const override;
  double empirical_risk(const_vector_ref x) const override;

  double m() const { return m_; }

 private:
  std::size_t n_, d_;
  double m_;
};

/// Linear losses with constant gradients: f_i(x) = g_iᵀx, ∇f_i ≡ g_i, ∇²f_i = 0, where g_i is
/// row i of the n×p matrix G. BSA24's constructions W4 (NoisySGD one step: gradients 0,
/// (1−λ)L·u, −λL·u) and W5 (constrained convex lower bound: ∇f_i ≡ 0, ∇f′_{i*} ≡ −L)
/// (docs/shifted.md).
class linear final : public model {
 public:
  /// Throws std::domain_error if G has no rows or no columns or a non-finite entry.
  explicit linear(Eigen::MatrixXd gradients);

  std::size_t dimension() const override { return static_cast<std::size_t>(g_.cols()); }
  std::size_t examples() const override { return static_cast<std::size_t>(g_.rows()); }
  double loss(std::size_t i, const_vector_ref x) const override;
  void gradient(std::size_t i, const_vector_ref x, vector_ref g) const override;
  bool has_hessian_vector() const override { return true; }
  void hessian_vector(std::size_t i,
                      const_vector_ref x,
                      const_vector_ref v,
                      vector_ref out) const override;
  /// "linear losses (n = 3, p = 2, max |g_i| = 1)".
  std::string describe() const override;

  const Eigen::MatrixXd& gradients() const { return g_; }

 private:
  Eigen::MatrixXd g_;
};

}  // namespace dpkit::sim
