#include "dpkit/learners/kan.hpp"

#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "dpkit/core/check.hpp"
#include "dpkit/core/tolerance.hpp"

namespace dpkit::learners {
namespace {

using values_t = std::array<double, uniform_bspline::kMaxDegree + 1>;

std::string count(std::size_t n) {
  return format_value(static_cast<long long>(n));
}

// The nonzero B-splines of degree k in one knot span, at the local coordinate ξ ∈ [0, 1] of the
// span [t_μ, t_{μ+1}], at unit spacing. On return d0[q] = B_{μ−k+q,k}, d1[q] = B′_{μ−k+q,k} and
// d2[q] = B″_{μ−k+q,k}, q = 0, …, k (divide d1 by h and d2 by h² for spacing h).
//
// Cox–de Boor in the triangular form of Piegl & Tiller (The NURBS Book, 1997, Alg. A2.2). With
// uniform knots left[j] = v − t_{μ+1−j} = (ξ + j − 1)h and right[j] = t_{μ+j} − v = (j − ξ)h, so
// every denominator right[q+1] + left[j−q] equals jh and h cancels. After raising to degree j,
// n[q] = B_{μ−j+q,j}(v). The derivatives use the uniform-knot identities (de Boor, A Practical
// Guide to Splines, ch. X, eq. (12)): B′_{i,k} = B_{i,k−1} − B_{i+1,k−1} and
// B″_{i,k} = B_{i,k−2} − 2B_{i+1,k−2} + B_{i+2,k−2} (unit spacing), read off the lower-degree
// rows of the same triangle. Orders above max_order are not written (the caller's zeros stay).
void span_values(double xi, int k, values_t& d0, values_t& d1, values_t& d2, int max_order = 2) {
  values_t n{};
  n[0] = 1;
  auto raise = [&](int j) {
    double saved = 0;
    for (int q = 0; q < j; ++q) {
      const double temp = n[q] / j;
      n[q] = saved + (q + 1 - xi) * temp;
      saved = (xi + j - q - 1) * temp;
    }
    n[j] = saved;
  };
  for (int j = 1; j <= k - 2; ++j) raise(j);
  // Degree k − 2 row: n[0..k−2].
  auto at = [&](int q, int top) { return q < 0 || q > top ? 0.0 : n[q]; };
  if (max_order >= 2)
    for (int q = 0; q <= k; ++q) d2[q] = at(q - 2, k - 2) - 2 * at(q - 1, k - 2) + at(q, k - 2);
  raise(k - 1);
  if (max_order >= 1)
    for (int q = 0; q <= k; ++q) d1[q] = at(q - 1, k - 1) - at(q, k - 1);
  raise(k);
  for (int q = 0; q <= k; ++q) d0[q] = n[q];
}

// The activation and its first two derivatives at s.
struct activation_values {
  double value, first, second;
};

activation_values activate(kan_activation a, double s) {
  if (a == kan_activation::tanh) {
    // σ = tanh, σ′ = 1 − tanh², σ″ = −2 tanh·(1 − tanh²).
    const double t = std::tanh(s);
    const double d = 1 - t * t;
    return {t, d, -2 * t * d};
  }
  // Logistic σ(s) = 1/(1 + e^{−s}) through e^{−|s|} (no overflow, full relative accuracy of
  // σ′ in both tails): σ′ = e^{−|s|}/(1 + e^{−|s|})², σ″ = σ′(1 − 2σ) = −σ′ tanh(s/2).
  const double e = std::exp(-std::abs(s));
  const double value = s >= 0 ? 1 / (1 + e) : e / (1 + e);
  const double first = e / ((1 + e) * (1 + e));
  return {value, first, -first * std::tanh(s / 2)};
}

// ℓ(z) = log(1 + e^{−z}) without overflow or cancellation (as in models.cpp).
double logistic_loss(double z) {
  return z >= 0 ? std::log1p(std::exp(-z)) : -z + std::log1p(std::exp(z));
}
// ℓ′(z) = −1/(1 + e^{z}).
double logistic_first(double z) {
  return z >= 0 ? -std::exp(-z) / (1 + std::exp(-z)) : -1 / (1 + std::exp(z));
}
// ℓ″(z) = e^{−|z|}/(1 + e^{−|z|})² (even in z).
double logistic_second(double z) {
  const double e = std::exp(-std::abs(z));
  return e / ((1 + e) * (1 + e));
}

}  // namespace

// ---- uniform B-spline basis -------------------------------------------------------------------

uniform_bspline::uniform_bspline(std::size_t grid_size, int degree, double lower, double upper)
    : grid_size_(grid_size), degree_(degree), lower_(lower), upper_(upper), h_(0) {
  constexpr const char* fn = "uniform_bspline";
  check_at_least(fn, "grid_size", static_cast<long long>(grid_size), 1);
  check_bounded(fn, "degree", degree, 3, kMaxDegree);
  check_finite(fn, "lower", lower);
  check_finite(fn, "upper", upper);
  if (!(upper > lower)) throw_domain_error(fn, "upper", upper, "> lower = " + format_value(lower));
  h_ = (upper - lower) / static_cast<double>(grid_size);
}

long uniform_bspline::nonzero(double v,
                              values_t& values,
                              values_t& first_derivatives,
                              values_t& second_derivatives,
                              int max_derivative) const {
  assert(max_derivative >= 0 && max_derivative <= 2);
  const int k = degree_;
  const long spans = static_cast<long>(grid_size_) + 2L * k;  // [t_0, t_{G+2k}) has G + 2k spans
  // Position in units of h from t_0 = lower − kh.
  const double z = (v - lower_) / h_ + k;
  if (!(z >= 0 && z < static_cast<double>(spans))) {
    values.fill(0);
    first_derivatives.fill(0);
    second_derivatives.fill(0);
    return 0;
  }
  const long mu = std::min(static_cast<long>(std::floor(z)), spans - 1);
  const double xi = std::clamp(z - static_cast<double>(mu), 0.0, 1.0);
  values.fill(0);
  first_derivatives.fill(0);
  second_derivatives.fill(0);
  span_values(xi, k, values, first_derivatives, second_derivatives, max_derivative);
  if (max_derivative >= 1)
    for (int q = 0; q <= k; ++q) first_derivatives[static_cast<std::size_t>(q)] /= h_;
  if (max_derivative >= 2)
    for (int q = 0; q <= k; ++q) second_derivatives[static_cast<std::size_t>(q)] /= h_ * h_;
  return mu - k;
}

long uniform_bspline::nonzero(double v, int derivative, values_t& values) const {
  assert(derivative >= 0 && derivative <= 2);
  values_t d0, d1, d2;
  const long first = nonzero(v, d0, d1, d2, derivative);
  values = derivative == 0 ? d0 : derivative == 1 ? d1 : d2;
  return first;
}

void uniform_bspline::evaluate(double v, int derivative, vector_ref out) const {
  assert(static_cast<std::size_t>(out.size()) == size());
  constexpr const char* fn = "uniform_bspline::evaluate";
  check_bounded(fn, "derivative", derivative, 0, 2);
  check_finite(fn, "v", v);
  values_t values;
  const long first = nonzero(v, derivative, values);
  out.setZero();
  const long p = static_cast<long>(size());
  for (int q = 0; q <= degree_; ++q) {
    const long index = first + q;
    if (index >= 0 && index < p) out(index) = values[static_cast<std::size_t>(q)];
  }
}

vector uniform_bspline::evaluate(double v, int derivative) const {
  vector out(static_cast<Eigen::Index>(size()));
  evaluate(v, derivative, out);
  return out;
}

double uniform_bspline::sup_norm(int derivative) const {
  check_bounded("uniform_bspline::sup_norm", "derivative", derivative, 0, 2);
  const int k = degree_;
  // In one span the k + 1 nonzero basis functions are the k + 1 polynomial pieces of the
  // cardinal B-spline N_k (piece k − q is values[q]), so one span covers sup |N_k^{(r)}|.
  auto piece = [&](int q, double xi) {
    values_t d0, d1, d2;
    span_values(xi, k, d0, d1, d2);
    const values_t& src = derivative == 0 ? d0 : derivative == 1 ? d1 : d2;
    return std::abs(src[q]);
  };
  constexpr int kSamples = 64;
  double best = 0;
  for (int q = 0; q <= k; ++q) {
    int arg = 0;
    double top = -1;
    for (int s = 0; s <= kSamples; ++s) {
      const double value = piece(q, static_cast<double>(s) / kSamples);
      if (value > top) top = value, arg = s;
    }
    // Brent on the two sample intervals around the best sample: a polynomial of degree ≤ 7 on
    // 64 samples has at most one local maximum of |·| there. bits = 26 ≈ √ε in the location.
    const double a = std::max(0, arg - 1) / static_cast<double>(kSamples);
    const double b = std::min(kSamples, arg + 1) / static_cast<double>(kSamples);
    const auto r = boost::math::tools::brent_find_minima(
        [&](double xi) { return -piece(q, xi); }, a, b, std::numeric_limits<double>::digits / 2);
    best = std::max({best, top, -r.second});
  }
  return derivative == 0 ? best : best / std::pow(h_, derivative);
}

// ---- activation -------------------------------------------------------------------------------

const char* to_string(kan_activation a) {
  return a == kan_activation::tanh ? "tanh" : "sigmoid";
}

activation_sup_norms sup_norms(kan_activation a) {
  // tanh: |σ″| = 2|t|(1 − t²) is maximal at t² = 1/3: 4/(3√3). Logistic: σ′ ≤ 1/4 at 0, and
  // |σ″| = σ(1 − σ)|1 − 2σ| is maximal at σ = (3 ± √3)/6: √3/18 = 1/(6√3).
  if (a == kan_activation::tanh) return {1.0, 1.0, 4 / (3 * std::sqrt(3.0))};
  return {1.0, 0.25, 1 / (6 * std::sqrt(3.0))};
}

// ---- the KAN model ----------------------------------------------------------------------------

namespace {

std::shared_ptr<const dataset> checked_kan_data(std::shared_ptr<const dataset> data,
                                                const kan_options& o) {
  constexpr const char* fn = "kan_model";
  if (!data) throw_domain_error(fn, "data", "null", "a dataset");
  check_dataset(fn, *data);
  check_at_least(fn, "options.width", static_cast<long long>(o.width), 1);
  for (Eigen::Index i = 0; i < data->labels.size(); ++i) {
    const double y = data->labels(i);
    if (y != 1 && y != -1)
      throw_domain_error(fn, "label " + count(static_cast<std::size_t>(i)), y, "-1 or +1");
  }
  // The activation's range must lie in the grid (Assumption 3.2 takes I_b ⊇ range(σ)).
  const double range_lower = o.activation == kan_activation::tanh ? -1.0 : 0.0;
  if (!(o.grid_lower <= range_lower && o.grid_upper >= 1.0))
    throw_domain_error(fn, "options.grid",
                       "[" + format_value(o.grid_lower) + ", " + format_value(o.grid_upper) + "]",
                       std::string("an interval containing the range of ") +
                           to_string(o.activation) + " [" + format_value(range_lower) + ", 1]");
  for (Eigen::Index j = 0; j < data->features.cols(); ++j)
    for (Eigen::Index i = 0; i < data->features.rows(); ++i) {
      const double x = data->features(i, j);
      if (!(x >= o.grid_lower && x <= o.grid_upper))
        throw_domain_error(
            fn,
            "features(" + count(static_cast<std::size_t>(i)) + ", " +
                count(static_cast<std::size_t>(j)) + ")",
            x,
            "in the grid [" + format_value(o.grid_lower) + ", " + format_value(o.grid_upper) + "]");
    }
  return data;
}

}  // namespace

kan_model::kan_model(std::shared_ptr<const dataset> data,
                     const kan_options& options,
                     vector second_layer)
    : data_(checked_kan_data(std::move(data), options)),
      options_(options),
      basis_(options.grid_size, options.spline_degree, options.grid_lower, options.grid_upper),
      width_(options.width),
      input_dimension_(data_->dimension()),
      c_(std::move(second_layer)) {
  constexpr const char* fn = "kan_model";
  const std::size_t p = basis_.size();
  if (static_cast<std::size_t>(c_.size()) != width_ * p)
    throw_domain_error(fn, "second_layer.size()", count(static_cast<std::size_t>(c_.size())),
                       "width·p = " + count(width_ * p));
  for (Eigen::Index q = 0; q < c_.size(); ++q)
    check_finite(fn, "second_layer(" + count(static_cast<std::size_t>(q)) + ")", c_(q));
  const auto dp = static_cast<Eigen::Index>(input_dimension_ * p);
  h_by_example_.resize(dp, data_->features.rows());
  for (Eigen::Index i = 0; i < data_->features.rows(); ++i) {
    const vector x = data_->features.row(i).transpose();
    vector h(dp);
    features(x, h);
    h_by_example_.col(i) = h;
  }
}

void kan_model::features(const_vector_ref x, vector_ref h) const {
  assert(static_cast<std::size_t>(x.size()) == input_dimension_);
  const auto p = static_cast<Eigen::Index>(basis_.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) basis_.evaluate(x(i), 0, h.segment(i * p, p));
}

kan_model::unit_scalars kan_model::unit(const_vector_ref w,
                                        std::size_t j,
                                        const_vector_ref h,
                                        int order) const {
  const auto dp = h.size();
  const auto p = static_cast<long>(basis_.size());
  const double d = static_cast<double>(input_dimension_);
  const double m = static_cast<double>(width_);
  // s_j = w_jᵀh(x)/√d, u_j = σ(s_j) (WSK+26 §B).
  const double s = w.segment(static_cast<Eigen::Index>(j) * dp, dp).dot(h) / std::sqrt(d);
  const activation_values act = activate(options_.activation, s);
  values_t d0, d1, d2;
  const long first = basis_.nonzero(act.value, d0, d1, d2, order);  // orders above: 0
  const double* c = c_.data() + static_cast<std::ptrdiff_t>(j) * p;
  // ⟨c_j, h(u_j)⟩, ⟨c_j, h′(u_j)⟩, ⟨c_j, h″(u_j)⟩ over the k + 1 nonzero basis functions.
  double c_d0 = 0, c_d1 = 0, c_d2 = 0;
  for (int q = 0; q <= basis_.degree(); ++q) {
    const long k = first + q;
    if (k < 0 || k >= p) continue;
    const auto uq = static_cast<std::size_t>(q);
    c_d0 += c[k] * d0[uq];
    c_d1 += c[k] * d1[uq];
    c_d2 += c[k] * d2[uq];
  }
  unit_scalars r;
  r.value = c_d0;
  // Proof of WSK+26 Lemma B.6: ∇_{w_j} f = σ′(s_j)⟨c_j, h′(u_j)⟩ h(x)/√(md).
  if (order >= 1) r.a = act.first * c_d1 / std::sqrt(m * d);
  // ∇²_{w_j} f = ⟨c_j, σ″(s_j) h′(u_j) + σ′(s_j)² h″(u_j)⟩ h hᵀ/(d√m).
  if (order >= 2) r.beta = (act.second * c_d1 + act.first * act.first * c_d2) / (d * std::sqrt(m));
  return r;
}

double kan_model::output_from_features(const_vector_ref w,
                                       const_vector_ref h,
                                       vector_ref* g) const {
  const auto dp = h.size();
  double f = 0;
  for (std::size_t j = 0; j < width_; ++j) {
    const unit_scalars u = unit(w, j, h, g ? 1 : 0);
    f += u.value;
    if (g) g->segment(static_cast<Eigen::Index>(j) * dp, dp).noalias() = u.a * h;
  }
  // f_W(x) = (1/√m) cᵀ h(σ(W h(x)/√d)) (WSK+26 §B).
  return f / std::sqrt(static_cast<double>(width_));
}

double kan_model::loss(std::size_t i, const_vector_ref w) const {
  assert(i < examples() && static_cast<std::size_t>(w.size()) == dimension());
  const auto k = static_cast<Eigen::Index>(i);
  const double f = output_from_features(w, h_by_example_.col(k), nullptr);
  return logistic_loss(data_->labels(k) * f);
}

void kan_model::gradient(std::size_t i, const_vector_ref w, vector_ref g) const {
  assert(i < examples() && static_cast<std::size_t>(w.size()) == dimension());
  const auto k = static_cast<Eigen::Index>(i);
  // g holds ∇f after the pass; ∇ℓ(y f) = ℓ′(y f)·y·∇f.
  const double f = output_from_features(w, h_by_example_.col(k), &g);
  const double y = data_->labels(k);
  g *= logistic_first(y * f) * y;
}

void kan_model::hessian_vector(std::size_t i,
                               const_vector_ref w,
                               const_vector_ref v,
                               vector_ref out) const {
  assert(i < examples() && static_cast<std::size_t>(w.size()) == dimension() &&
         v.size() == w.size() && out.size() == w.size());
  const auto k = static_cast<Eigen::Index>(i);
  const auto h = h_by_example_.col(k);
  const auto dp = h.size();
  const double y = data_->labels(k);
  // Pass 1: f, and (a_j, β_j, t_j = h·v_j) per unit, kept in out(3j), out(3j+1), out(3j+2) as
  // scratch, and ∇f·v = Σ a_j t_j. dp ≥ 4 (p = G + k ≥ 4), so block j of pass 2, [j·dp, (j+1)·dp),
  // starts at or after 3j + 3 for j ≥ 1 and never overwrites the scalars of a unit j′ < j still
  // to be written; block 0 reads its own scalars before writing.
  double grad_v = 0, f = 0;
  for (std::size_t j = 0; j < width_; ++j) {
    const unit_scalars u = unit(w, j, h, 2);
    f += u.value;
    const double t = h.dot(v.segment(static_cast<Eigen::Index>(j) * dp, dp));
    const auto base = static_cast<Eigen::Index>(3 * j);
    out(base) = u.a, out(base + 1) = u.beta, out(base + 2) = t;
    grad_v += u.a * t;
  }
  f /= std::sqrt(static_cast<double>(width_));
  // ∇²ℓ(y f)·v = ℓ″ (∇f·v) ∇f + ℓ′ y ∇²f v; block j: (ℓ″ (∇f·v) a_j + ℓ′ y β_j t_j) h.
  const double l2 = logistic_second(y * f), l1y = logistic_first(y * f) * y;
  for (std::size_t jj = width_; jj-- > 0;) {
    const auto base = static_cast<Eigen::Index>(3 * jj);
    const double a = out(base), beta = out(base + 1), t = out(base + 2);
    out.segment(static_cast<Eigen::Index>(jj) * dp, dp).noalias() =
        (l2 * grad_v * a + l1y * beta * t) * h;
  }
}

std::string kan_model::describe() const {
  const int k = basis_.degree();
  const std::string spline = k == 3 ? "cubic" : "degree-" + std::to_string(k);
  return "KAN (n = " + count(examples()) + ", d = " + count(input_dimension_) +
         ", m = " + count(width_) + ", p = " + count(basis_.size()) + ": " + spline +
         " B-splines, G = " + count(basis_.grid_size()) + " on [" + format_value(basis_.lower()) +
         ", " + format_value(basis_.upper()) + "], " + to_string(options_.activation) + ")";
}

namespace {
void check_point(const char* fn, const kan_model& f, const_vector_ref w, const_vector_ref x) {
  if (static_cast<std::size_t>(w.size()) != f.dimension())
    throw_domain_error(fn, "w.size()", count(static_cast<std::size_t>(w.size())),
                       "the model dimension " + count(f.dimension()));
  if (static_cast<std::size_t>(x.size()) != f.input_dimension())
    throw_domain_error(fn, "x.size()", count(static_cast<std::size_t>(x.size())),
                       "d = " + count(f.input_dimension()));
  for (Eigen::Index q = 0; q < x.size(); ++q)
    check_finite(fn, "x(" + count(static_cast<std::size_t>(q)) + ")", x(q));
}
}  // namespace

double kan_model::output(const_vector_ref w, const_vector_ref x) const {
  check_point("kan_model::output", *this, w, x);
  vector h(static_cast<Eigen::Index>(input_dimension_ * basis_.size()));
  features(x, h);
  return output_from_features(w, h, nullptr);
}

void kan_model::output_gradient(const_vector_ref w, const_vector_ref x, vector_ref g) const {
  check_point("kan_model::output_gradient", *this, w, x);
  vector h(static_cast<Eigen::Index>(input_dimension_ * basis_.size()));
  features(x, h);
  output_from_features(w, h, &g);
}

void kan_model::output_hessian_scales(const_vector_ref w,
                                      const_vector_ref x,
                                      vector_ref scales) const {
  check_point("kan_model::output_hessian_scales", *this, w, x);
  vector h(static_cast<Eigen::Index>(input_dimension_ * basis_.size()));
  features(x, h);
  for (std::size_t j = 0; j < width_; ++j)
    scales(static_cast<Eigen::Index>(j)) = unit(w, j, h, 2).beta;
}

double kan_model::output_hessian_norm(const_vector_ref w, const_vector_ref x) const {
  vector beta(static_cast<Eigen::Index>(width_));
  output_hessian_scales(w, x, beta);
  vector h(static_cast<Eigen::Index>(input_dimension_ * basis_.size()));
  features(x, h);
  // WSK+26 Lemma B.1: the spectral norm of a block-diagonal matrix is the largest block norm;
  // block j = β_j h hᵀ has norm |β_j|‖h‖².
  return beta.cwiseAbs().maxCoeff() * h.squaredNorm();
}

Eigen::MatrixXd kan_model::hessian(std::size_t i, const_vector_ref w) const {
  constexpr const char* fn = "kan_model::hessian";
  if (i >= examples()) throw_domain_error(fn, "i", count(i), "< n = " + count(examples()));
  const auto k = static_cast<Eigen::Index>(i);
  const vector x = data_->features.row(k).transpose();
  check_point(fn, *this, w, x);
  const auto h = h_by_example_.col(k);
  const auto dp = h.size();
  const auto D = static_cast<Eigen::Index>(dimension());
  vector grad_f(D);
  vector_ref grad_ref = grad_f;
  const double f = output_from_features(w, h, &grad_ref);
  const double y = data_->labels(k);
  // ∇²ℓ(y f) = ℓ″ ∇f ∇fᵀ + ℓ′ y ∇²f (WSK+26 proof of Lemma B.7).
  // (∇f ∇fᵀ) first and then the scalar, so that the result is exactly symmetric.
  Eigen::MatrixXd out = grad_f * grad_f.transpose();
  out *= logistic_second(y * f);
  const double l1y = logistic_first(y * f) * y;
  const Eigen::MatrixXd hh = h * h.transpose();
  for (std::size_t j = 0; j < width_; ++j) {
    const auto b = static_cast<Eigen::Index>(j) * dp;
    out.block(b, b, dp, dp) += (l1y * unit(w, j, h, 2).beta) * hh;
  }
  return out;
}

Eigen::MatrixXd kan_model::ntk_features(const_vector_ref w) const {
  if (static_cast<std::size_t>(w.size()) != dimension())
    throw_domain_error("kan_model::ntk_features", "w.size()",
                       count(static_cast<std::size_t>(w.size())),
                       "the model dimension " + count(dimension()));
  const auto n = static_cast<Eigen::Index>(examples());
  Eigen::MatrixXd phi(static_cast<Eigen::Index>(dimension()), n);
  for (Eigen::Index i = 0; i < n; ++i) {
    vector_ref col = phi.col(i);
    output_from_features(w, h_by_example_.col(i), &col);
    col *= data_->labels(i);  // φ_i = y_i ∇f_W(x_i) (Assumption 3.3)
  }
  return phi;
}

vector kan_second_layer(std::size_t width, std::size_t basis_size, random_stream& stream) {
  constexpr const char* fn = "kan_second_layer";
  check_at_least(fn, "width", static_cast<long long>(width), 1);
  check_at_least(fn, "basis_size", static_cast<long long>(basis_size), 1);
  vector c(static_cast<Eigen::Index>(width * basis_size));
  for (Eigen::Index q = 0; q < c.size(); ++q) c(q) = stream.normal();
  return c;
}

vector kan_initial_weights(std::size_t width,
                           std::size_t input_dimension,
                           std::size_t basis_size,
                           random_stream& stream) {
  constexpr const char* fn = "kan_initial_weights";
  check_at_least(fn, "width", static_cast<long long>(width), 1);
  check_at_least(fn, "input_dimension", static_cast<long long>(input_dimension), 1);
  check_at_least(fn, "basis_size", static_cast<long long>(basis_size), 1);
  vector w(static_cast<Eigen::Index>(width * input_dimension * basis_size));
  for (Eigen::Index q = 0; q < w.size(); ++q) w(q) = stream.normal();
  return w;
}

// ---- hard margin --------------------------------------------------------------------------------

// Why a hand-written solver: dpkit's dependencies (docs/architecture.md) offer no QP or SVM solver
// (Eigen has linear algebra only, GSL's multimin is unconstrained, Boost.Math has none). The
// problem is the nearest point of a polytope to the origin, for which pairwise Frank–Wolfe (the MDM
// algorithm) is the standard specialised method; it needs only the Gram matrix (Eigen) and a few
// lines.
margin_result hard_margin(const Eigen::Ref<const Eigen::MatrixXd>& points,
                          const margin_options& options) {
  constexpr const char* fn = "hard_margin";
  check_at_least(fn, "points.cols()", points.cols(), 1);
  check_at_least(fn, "points.rows()", points.rows(), 1);
  if (!(options.tolerance > 0 && options.tolerance < 1))
    throw_domain_error(fn, "options.tolerance", options.tolerance, "in (0, 1)");
  check_at_least(fn, "options.max_iterations", options.max_iterations, 1);
  for (Eigen::Index j = 0; j < points.cols(); ++j)
    for (Eigen::Index i = 0; i < points.rows(); ++i)
      if (!std::isfinite(points(i, j)))
        throw_domain_error(fn,
                           "points(" + format_value(static_cast<long long>(i)) + ", " +
                               format_value(static_cast<long long>(j)) + ")",
                           points(i, j), "finite");

  const Eigen::Index n = points.cols();
  const Eigen::MatrixXd gram = points.transpose() * points;  // K_ij = ⟨φ_i, φ_j⟩
  const double scale = std::sqrt(gram.diagonal().maxCoeff());
  margin_result out;
  out.weights = vector::Zero(n);
  if (scale == 0) {
    out.message = "every point is 0: the margin is 0";
    out.weights(0) = 1;
    return out;
  }

  // Start at the vertex nearest to the origin. w = Φα is kept explicitly (O(D) per step) so
  // that ‖w‖ is accurate to rounding relative to itself; αᵀKα would lose all digits of a small
  // ‖w‖² to cancellation. r = Φᵀw = Kα is updated through K's columns.
  Eigen::Index start = 0;
  gram.diagonal().minCoeff(&start);
  vector& alpha = out.weights;
  alpha(start) = 1;
  vector w = points.col(start);
  vector r = gram.col(start);
  const double tol = options.tolerance;
  const long refresh = std::max<long>(100, static_cast<long>(n));
  bool done = false, stalled = false;
  long it = 0;
  for (; it < options.max_iterations; ++it) {
    const double w2 = w.squaredNorm();
    Eigen::Index s = 0;
    const double r_min = r.minCoeff(&s);
    const double upper = std::sqrt(w2);
    const double lower = upper > 0 ? r_min / upper : -std::numeric_limits<double>::infinity();
    // Certified bracket lower ≤ γ* ≤ upper (header); the FW gap is w2 − r_min.
    if (upper - lower <= tol * upper || upper <= tol * scale) {
      done = true;
      break;
    }
    // Away vertex: the active point with the largest ⟨φ_i, w⟩.
    Eigen::Index v = -1;
    double r_max = -std::numeric_limits<double>::infinity();
    for (Eigen::Index i = 0; i < n; ++i)
      if (alpha(i) > 0 && r(i) > r_max) r_max = r(i), v = i;
    const double denom = gram(s, s) - 2 * gram(s, v) + gram(v, v);  // ‖φ_s − φ_v‖²
    if (v == s || !(denom > 0) || !(r_max > r_min)) {
      stalled = true;  // no descent direction left at working precision
      break;
    }
    // Exact line search for ½‖w + t(φ_s − φ_v)‖² on t ∈ [0, α_v].
    const double t = std::min(alpha(v), (r_max - r_min) / denom);
    alpha(s) += t;
    alpha(v) = t == alpha(v) ? 0.0 : alpha(v) - t;
    w.noalias() += t * (points.col(s) - points.col(v));
    r.noalias() += t * (gram.col(s) - gram.col(v));
    if ((it + 1) % refresh == 0) {  // remove the drift of the incremental updates
      alpha /= alpha.sum();
      w.noalias() = points * alpha;
      r.noalias() = points.transpose() * w;
    }
  }
  out.evaluations = static_cast<int>(std::min<long>(it, std::numeric_limits<int>::max()));

  // Certify from scratch: u = Φα/‖Φα‖ and its attained margin.
  alpha /= alpha.sum();
  w.noalias() = points * alpha;
  out.gamma_upper = w.norm();
  if (out.gamma_upper > 0) {
    out.direction = w / out.gamma_upper;
    out.gamma = (points.transpose() * out.direction).minCoeff();
  } else {
    out.gamma = 0;
  }
  const double width = out.gamma_upper - out.gamma;
  const std::string bracket = "gamma in [" + format_value(out.gamma) + ", " +
                              format_value(out.gamma_upper) + "] after " +
                              format_value(static_cast<long long>(it)) + " iterations";
  if (done) {
    if (out.gamma <= 0)
      out.message = "not separable: 0 is within the tolerance of the convex hull; " + bracket;
  } else if (stalled && width <= tol::kSqrtMachineEps * std::max(out.gamma_upper, tol * scale)) {
    out.message = "stopped at rounding level before the tolerance; " + bracket;
  } else if (stalled) {
    out.termination = termination_type::failure;
    out.message = "pairwise Frank-Wolfe stalled; " + bracket;
  } else {
    out.termination = termination_type::max_iterations;
    out.message = "iteration limit reached; " + bracket;
  }
  return out;
}

margin_result ntk_margin(const kan_model& f, const_vector_ref w0, const margin_options& options) {
  constexpr const char* fn = "ntk_margin";
  if (static_cast<std::size_t>(w0.size()) != f.dimension())
    throw_domain_error(fn, "w0.size()", count(static_cast<std::size_t>(w0.size())),
                       "the model dimension " + count(f.dimension()));
  for (Eigen::Index q = 0; q < w0.size(); ++q)
    check_finite(fn, "w0(" + count(static_cast<std::size_t>(q)) + ")", w0(q));
  return hard_margin(f.ntk_features(w0), options);
}

}  // namespace dpkit::learners
