#pragma once
// The model interface of the reference simulator: a family of per-example losses f_1, …, f_n on
// parameters x ∈ R^p. Algorithms (algorithm.hpp) see a model only through this interface, so
// later issues add models (two-layer nets, KANs, CNNs) without touching the algorithms.
//
// Neighbouring datasets are first-class: a model on D′ is another model object (built from the
// neighbouring dataset, or by perturbing one example's loss: linearly_perturbed below), and a
// Monte Carlo run executes the same algorithm on both.
#include <Eigen/Dense>
#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace dpkit::sim {

using vector = Eigen::VectorXd;
using vector_ref = Eigen::Ref<vector>;
using const_vector_ref = Eigen::Ref<const vector>;

/// A family of per-example losses f_i : R^p → R, i = 0, …, n−1 (0-based).
class model {
 public:
  virtual ~model() = default;
  /// p, the number of parameters.
  virtual std::size_t dimension() const = 0;
  /// n, the number of examples.
  virtual std::size_t examples() const = 0;
  /// f_i(x).
  virtual double loss(std::size_t i, const_vector_ref x) const = 0;
  /// g ← ∇f_i(x). g has size p; implementations must not allocate (hot path).
  virtual void gradient(std::size_t i, const_vector_ref x, vector_ref g) const = 0;
  /// Whether hessian_vector is implemented.
  virtual bool has_hessian_vector() const { return false; }
  /// out ← ∇²f_i(x)·v. Throws std::logic_error where has_hessian_vector() is false.
  virtual void hessian_vector(std::size_t i,
                              const_vector_ref x,
                              const_vector_ref v,
                              vector_ref out) const;
  /// A short description for reports, e.g. "least squares (n = 100, d = 10, ridge 0.1)".
  virtual std::string describe() const = 0;

  /// F(x) = (1/n) Σ f_i(x), the empirical risk (a plain loop; override where cheaper).
  virtual double empirical_risk(const_vector_ref x) const;

  /// sum ← Σ_{i∈batch} clip_C(∇f_i(x)) in batch order, each gradient scaled to norm C where it is
  /// longer (C = 0: no clipping): the batch gradient of run_noisy_gradient. `work` is a p-vector
  /// the default uses for ∇f_i. The default calls gradient(i) example by example; a model
  /// overrides it only with an evaluation that gives the same sums (longtail_network: its
  /// block-structured kernel, bit-identical).
  virtual void clipped_gradient_sum(std::span<const std::size_t> batch,
                                    const_vector_ref x,
                                    double clip,
                                    vector& sum,
                                    vector& work) const;
};

/// f′_i = f_i for i ≠ i*, and f′_{i*}(x) = f_{i*}(x) − wᵀx: the neighbour whose one example's
/// gradient is shifted by −w. This is how the worst-case constructions for BSA24
/// (docs/shifted.md: W1 NoisyGD, W3 LMC, W4 linear losses, W5 constant drift) are built from a base
/// model.
class linearly_perturbed final : public model {
 public:
  linearly_perturbed(std::shared_ptr<const model> base, std::size_t index, vector w);
  std::size_t dimension() const override { return base_->dimension(); }
  std::size_t examples() const override { return base_->examples(); }
  double loss(std::size_t i, const_vector_ref x) const override;
  void gradient(std::size_t i, const_vector_ref x, vector_ref g) const override;
  bool has_hessian_vector() const override { return base_->has_hessian_vector(); }
  void hessian_vector(std::size_t i,
                      const_vector_ref x,
                      const_vector_ref v,
                      vector_ref out) const override {
    base_->hessian_vector(i, x, v, out);
  }
  std::string describe() const override;

 private:
  std::shared_ptr<const model> base_;
  std::size_t index_;
  vector w_;
};

/// Zero-out neighbour: f′_{i*} ≡ 0 (the example contributes neither loss nor gradient), f′_i = f_i
/// otherwise. With replace-one (a model built on the neighbouring dataset, dataset.hpp) these are
/// the two neighbouring relations of DP-SGD analyses.
class zeroed_example final : public model {
 public:
  zeroed_example(std::shared_ptr<const model> base, std::size_t index);
  std::size_t dimension() const override { return base_->dimension(); }
  std::size_t examples() const override { return base_->examples(); }
  double loss(std::size_t i, const_vector_ref x) const override {
    return i == index_ ? 0.0 : base_->loss(i, x);
  }
  void gradient(std::size_t i, const_vector_ref x, vector_ref g) const override;
  bool has_hessian_vector() const override { return base_->has_hessian_vector(); }
  void hessian_vector(std::size_t i,
                      const_vector_ref x,
                      const_vector_ref v,
                      vector_ref out) const override;
  std::string describe() const override;

 private:
  std::shared_ptr<const model> base_;
  std::size_t index_;
};

}  // namespace dpkit::sim
