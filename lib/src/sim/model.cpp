#include "dpkit/sim/model.hpp"

#include <stdexcept>

#include "dpkit/core/check.hpp"

namespace dpkit::sim {

void model::hessian_vector(std::size_t, const_vector_ref, const_vector_ref, vector_ref) const {
  throw std::logic_error(describe() + ": Hessian-vector products are not implemented");
}

void model::clipped_gradient_sum(std::span<const std::size_t> batch,
                                 const_vector_ref x,
                                 double clip,
                                 vector& sum,
                                 vector& work) const {
  sum.setZero();
  for (std::size_t i : batch) {
    gradient(i, x, work);
    if (clip > 0) {
      const double norm = work.norm();
      if (norm > clip) {
        // Scaled and added in one pass: each entry is the rounded product, then the rounded
        // sum, as scaling `work` first would give (work is scratch, left unscaled).
        sum.noalias() += (clip / norm) * work;
        continue;
      }
    }
    sum += work;
  }
}

double model::empirical_risk(const_vector_ref x) const {
  double s = 0;
  const std::size_t n = examples();
  for (std::size_t i = 0; i < n; ++i) s += loss(i, x);
  return s / static_cast<double>(n);
}

namespace {
void check_index(const char* fn, const std::shared_ptr<const model>& base, std::size_t index) {
  if (!base) throw_domain_error(fn, "base", "null", "a model");
  if (index >= base->examples())
    throw_domain_error(fn, "index", format_value(static_cast<long long>(index)),
                       "< n = " + format_value(static_cast<long long>(base->examples())));
}
}  // namespace

linearly_perturbed::linearly_perturbed(std::shared_ptr<const model> base,
                                       std::size_t index,
                                       vector w)
    : base_(std::move(base)), index_(index), w_(std::move(w)) {
  constexpr const char* fn = "linearly_perturbed";
  check_index(fn, base_, index_);
  if (static_cast<std::size_t>(w_.size()) != base_->dimension())
    throw_domain_error(
        fn, "w.size()", format_value(static_cast<long long>(w_.size())),
        "the model dimension " + format_value(static_cast<long long>(base_->dimension())));
}

double linearly_perturbed::loss(std::size_t i, const_vector_ref x) const {
  const double f = base_->loss(i, x);
  return i == index_ ? f - w_.dot(x) : f;
}

void linearly_perturbed::gradient(std::size_t i, const_vector_ref x, vector_ref g) const {
  base_->gradient(i, x, g);
  if (i == index_) g -= w_;
}

std::string linearly_perturbed::describe() const {
  return base_->describe() + ", example " + std::to_string(index_) +
         " perturbed by a linear term (|w| = " + format_value(w_.norm()) + ")";
}

zeroed_example::zeroed_example(std::shared_ptr<const model> base, std::size_t index)
    : base_(std::move(base)), index_(index) {
  check_index("zeroed_example", base_, index_);
}

void zeroed_example::gradient(std::size_t i, const_vector_ref x, vector_ref g) const {
  if (i == index_)
    g.setZero();
  else
    base_->gradient(i, x, g);
}

void zeroed_example::hessian_vector(std::size_t i,
                                    const_vector_ref x,
                                    const_vector_ref v,
                                    vector_ref out) const {
  if (i == index_)
    out.setZero();
  else
    base_->hessian_vector(i, x, v, out);
}

std::string zeroed_example::describe() const {
  return base_->describe() + ", example " + std::to_string(index_) + " zeroed out";
}

}  // namespace dpkit::sim
