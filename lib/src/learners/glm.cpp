// SWX+23 Part I (learners/glm.hpp, §§3–4): the links and the convex surrogate loss (Assumption 1,
// eq. (2)), the data model the theorems are about (designs of rank θ, teachers, populations
// with their Monte Carlo risks drawn exactly in O(1) per sample), and the Moreau envelope of
// §4.1.2 with its gradient oracle (Algorithm 4). The private learners (Algorithms 1–3, 5–9)
// are in glm_algorithms.cpp.
#include "dpkit/learners/glm.hpp"

#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <utility>

#include "detail/glm.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/roots.hpp"
#include "dpkit/core/tolerance.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/sim/monte_carlo.hpp"

namespace dpkit::learners {

using detail::glm::count;
using detail::glm::moreau_derivative_unchecked;
using detail::glm::oracle_steps;
using detail::glm::oracle_unchecked;
using detail::glm::relu;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double clamp_to(double y, double c) {
  return std::isinf(c) ? y : std::clamp(y, -c, c);
}

void check_same_size(const char* fn, const_vector_ref w, const_vector_ref x) {
  if (w.size() != x.size())
    throw_domain_error(fn, "w.size()", count(static_cast<long long>(w.size())),
                       "x.size() = " + count(static_cast<long long>(x.size())));
}

}  // namespace

// =============================================================================================
// Links
// =============================================================================================

const char* to_string(glm_link link) {
  switch (link) {
    case glm_link::sigmoid:
      return "sigmoid";
    case glm_link::tanh:
      return "tanh";
    case glm_link::relu:
      return "relu";
  }
  return "unknown";
}

double link_value(glm_link link, double a) {
  switch (link) {
    case glm_link::sigmoid: {
      // 1/(1 + e^{−a}) through e^{−|a|}: no overflow, full relative accuracy in both tails.
      const double e = std::exp(-std::abs(a));
      return a >= 0 ? 1 / (1 + e) : e / (1 + e);
    }
    case glm_link::tanh:
      return std::tanh(a);
    case glm_link::relu:
      return relu(a);
  }
  return NAN;
}

double link_derivative(glm_link link, double a) {
  switch (link) {
    case glm_link::sigmoid: {
      const double e = std::exp(-std::abs(a));
      return e / ((1 + e) * (1 + e));
    }
    case glm_link::tanh: {
      const double t = std::tanh(a);
      return 1 - t * t;
    }
    case glm_link::relu:
      return a > 0 ? 1.0 : 0.0;
  }
  return NAN;
}

double link_integral(glm_link link, double a) {
  // Closed forms (derived). Near 0 the forms with log 2 cancel; there
  //   log((1 + e^a)/2) = log1p(expm1(a)/2),   log cosh a = log1p(2 sinh²(a/2))
  // are exact to a few ulp (cosh a − 1 = 2 sinh²(a/2)).
  constexpr double kLog2 = std::numbers::ln2;
  switch (link) {
    case glm_link::sigmoid:
      if (std::abs(a) < 1) return std::log1p(std::expm1(a) / 2);
      return std::max(a, 0.0) + std::log1p(std::exp(-std::abs(a))) - kLog2;
    case glm_link::tanh: {
      const double b = std::abs(a);
      if (b < 1) {
        const double s = std::sinh(b / 2);
        return std::log1p(2 * s * s);
      }
      return b + std::log1p(std::exp(-2 * b)) - kLog2;
    }
    case glm_link::relu: {
      const double r = relu(a);
      return 0.5 * r * r;
    }
  }
  return NAN;
}

double link_range_bound(glm_link link) {
  return link == glm_link::relu ? kInf : 1.0;  // Assumption 1: sigmoid ∈ (0,1), tanh ∈ (−1,1)
}

double link_lipschitz(glm_link link) {
  return link == glm_link::sigmoid ? 0.25 : 1.0;  // sup σ′: 1/4 at 0 (sigmoid), 1 (tanh, ReLU)
}

double surrogate_loss(glm_link link, double a, double y) {
  return link_integral(link, a) - y * a;  // SWX+23 eq. (2)
}

double surrogate_derivative(glm_link link, double a, double y) {
  return link_value(link, a) - y;
}

double surrogate_loss(glm_link link, const_vector_ref w, const_vector_ref x, double y) {
  check_same_size("surrogate_loss", w, x);
  return surrogate_loss(link, w.dot(x), y);
}

void surrogate_gradient(
    glm_link link, const_vector_ref w, const_vector_ref x, double y, vector_ref g) {
  constexpr const char* fn = "surrogate_gradient";
  check_same_size(fn, w, x);
  if (g.size() != x.size())
    throw_domain_error(fn, "g.size()", count(static_cast<long long>(g.size())),
                       "x.size() = " + count(static_cast<long long>(x.size())));
  g = surrogate_derivative(link, w.dot(x), y) * x;  // SWX+23 eq. (2)
}

glm_surrogate::glm_surrogate(std::shared_ptr<const dataset> data, glm_link link)
    : data_(std::move(data)), link_(link) {
  if (!data_) throw_domain_error("glm_surrogate", "data", "null", "a dataset");
  check_dataset("glm_surrogate", *data_);
}

double glm_surrogate::loss(std::size_t i, const_vector_ref w) const {
  const auto r = static_cast<Eigen::Index>(i);
  return surrogate_loss(link_, data_->features.row(r).dot(w), data_->labels(r));
}

void glm_surrogate::gradient(std::size_t i, const_vector_ref w, vector_ref g) const {
  const auto r = static_cast<Eigen::Index>(i);
  const double a = data_->features.row(r).dot(w);
  g = surrogate_derivative(link_, a, data_->labels(r)) * data_->features.row(r).transpose();
}

void glm_surrogate::hessian_vector(std::size_t i,
                                   const_vector_ref w,
                                   const_vector_ref v,
                                   vector_ref out) const {
  // Lemma 2: ∇²ℓ = σ′(⟨w, x⟩) x xᵀ.
  const auto r = static_cast<Eigen::Index>(i);
  const auto x = data_->features.row(r);
  out = (link_derivative(link_, x.dot(w)) * x.dot(v)) * x.transpose();
}

std::string glm_surrogate::describe() const {
  return std::string("GLM surrogate (") + to_string(link_) + " link, n = " + count(examples()) +
         ", d = " + count(dimension()) + ")";
}

// =============================================================================================
// Designs, teachers, populations
// =============================================================================================

const char* to_string(glm_design_law law) {
  switch (law) {
    case glm_design_law::unit_sphere:
      return "unit_sphere";
    case glm_design_law::unit_ball:
      return "unit_ball";
    case glm_design_law::gaussian:
      return "gaussian";
    case glm_design_law::isotropic_ball:
      return "isotropic_ball";
  }
  return "unknown";
}

const char* to_string(glm_label_noise noise) {
  switch (noise) {
    case glm_label_noise::binary:
      return "binary";
    case glm_label_noise::uniform:
      return "uniform";
    case glm_label_noise::none:
      return "none";
  }
  return "unknown";
}

namespace {

void check_design(const char* fn, const glm_design& g) {
  check_at_least(fn, "design.dimension", static_cast<long long>(g.dimension), 1);
  check_at_least(fn, "design.rank", static_cast<long long>(g.rank), 1);
  if (g.rank > g.dimension)
    throw_domain_error(fn, "design.rank", count(g.rank),
                       "<= design.dimension = " + count(g.dimension));
  if (g.basis.size() != 0 && (g.basis.rows() != static_cast<Eigen::Index>(g.dimension) ||
                              g.basis.cols() != static_cast<Eigen::Index>(g.rank)))
    throw_domain_error(fn, "design.basis",
                       count(static_cast<long long>(g.basis.rows())) + "x" +
                           count(static_cast<long long>(g.basis.cols())),
                       "empty or d x theta = " + count(g.dimension) + "x" + count(g.rank));
}

// x = P z (or (z, 0) without a basis).
void embed(const glm_design& g, const_vector_ref z, vector_ref x) {
  if (g.basis.size() == 0) {
    x.setZero();
    x.head(z.size()) = z;
  } else {
    x.noalias() = g.basis * z;
  }
}

// Pᵀv (or the first θ coordinates).
vector restrict_to(const glm_design& g, const_vector_ref v) {
  if (g.basis.size() == 0) return v.head(static_cast<Eigen::Index>(g.rank));
  return g.basis.transpose() * v;
}

double law_scale(const glm_design& g) {
  return g.law == glm_design_law::isotropic_ball ? std::sqrt(static_cast<double>(g.rank) + 2) : 1.0;
}

// Draws (z₁, z₂), the coordinates of z along two orthonormal directions of R^θ (z₂ = 0 when
// θ = 1), exactly (header comment of glm_population). Draw order: gaussian two normals;
// sphere θ = 1 one uniform (sign); otherwise two uniforms (radius, angle).
std::pair<double, double> draw_plane(const glm_design& g, random_stream& s) {
  const auto theta = static_cast<double>(g.rank);
  if (g.law == glm_design_law::gaussian) {
    const double z1 = s.normal();
    const double z2 = s.normal();
    return {z1, g.rank >= 2 ? z2 : 0.0};
  }
  const double scale = law_scale(g);
  const bool sphere = g.law == glm_design_law::unit_sphere;
  if (g.rank == 1) {
    const double u = s.uniform();
    if (sphere) return {u < 0.5 ? -1.0 : 1.0, 0.0};
    return {scale * (2 * u - 1), 0.0};
  }
  const double u = s.uniform();
  const double phi = 2 * std::numbers::pi * s.uniform();
  double r2 = 1;
  // r² ~ Beta(1, b): r² = 1 − (1 − U)^{1/b}, 1 − U ~ U. Sphere b = (θ − 2)/2 (θ ≥ 3; r = 1 at
  // θ = 2); ball b = θ/2 (the ball in R^θ is the projection of S^{θ+1}).
  if (sphere) {
    if (g.rank >= 3) r2 = 1 - std::pow(u, 2 / (theta - 2));
  } else {
    r2 = 1 - std::pow(u, 2 / theta);
  }
  const double r = scale * std::sqrt(std::max(r2, 0.0));
  return {r * std::cos(phi), r * std::sin(phi)};
}

// The pair (a, b) = (⟨w, x⟩, ⟨w*, x⟩) as a·(z₁, z₂) coefficients.
struct plane_projection {
  double a1 = 0, a2 = 0, b1 = 0;  // a = a1 z₁ + a2 z₂, b = b1 z₁
};

plane_projection project(const glm_design& g, const_vector_ref w, const_vector_ref w_star) {
  const vector u = restrict_to(g, w), v = restrict_to(g, w_star);
  plane_projection p;
  const double nv = v.norm();
  if (nv > 0) {
    const vector e1 = v / nv;
    p.b1 = nv;
    p.a1 = u.dot(e1);
    p.a2 = (u - p.a1 * e1).norm();
  } else {
    p.a1 = u.norm();
  }
  return p;
}

void check_population(const char* fn, const glm_population& p, const_vector_ref w) {
  check_design(fn, p.design);
  p.teacher.validate(fn);
  if (p.teacher.w_star.size() != static_cast<Eigen::Index>(p.design.dimension))
    throw_domain_error(fn, "teacher.w_star.size()",
                       count(static_cast<long long>(p.teacher.w_star.size())),
                       "design.dimension = " + count(p.design.dimension));
  if (w.size() != static_cast<Eigen::Index>(p.design.dimension))
    throw_domain_error(fn, "w.size()", count(static_cast<long long>(w.size())),
                       "design.dimension = " + count(p.design.dimension));
  for (Eigen::Index j = 0; j < w.size(); ++j)
    check_finite(fn, "w(" + count(static_cast<long long>(j)) + ")", w(j));
}

// Monte Carlo over x of per-draw value(a, b), with (a, b) drawn exactly in O(1).
template <class F>
mc_estimate population_mc(const char* fn,
                          const glm_population& p,
                          const_vector_ref w,
                          std::size_t samples,
                          random_stream& stream,
                          F&& value) {
  check_population(fn, p, w);
  check_at_least(fn, "samples", static_cast<long long>(samples), 2);
  const plane_projection q = project(p.design, w, p.teacher.w_star);
  sim::moments acc;  // the engine's accumulator (scaled Welford)
  for (std::size_t k = 0; k < samples; ++k) {
    const auto [z1, z2] = draw_plane(p.design, stream);
    acc.add(value(q.a1 * z1 + q.a2 * z2, q.b1 * z1));
  }
  mc_estimate e;
  e.value = acc.mean();
  e.samples = samples;
  e.standard_error = acc.standard_error();  // samples >= 2, checked above
  return e;
}

// F(t) = ∫_0^t clamp_c(s) ds and H(t) = ∫_0^t clamp_c(s)² ds.
double clamp_integral(double t, double c) {
  const double a = std::abs(t);
  if (a <= c) return 0.5 * t * t;
  return c * a - 0.5 * c * c;
}
double clamp_square_integral(double t, double c) {
  const double a = std::abs(t);
  const double v = a <= c ? a * a * a / 3 : c * c * c / 3 + c * c * (a - c);
  return t < 0 ? -v : v;
}

}  // namespace

glm_design glm_design::coordinate(std::size_t d, std::size_t theta, glm_design_law law) {
  glm_design g;
  g.dimension = d;
  g.rank = theta;
  g.law = law;
  check_design("glm_design::coordinate", g);
  return g;
}

glm_design glm_design::random_subspace(std::size_t d,
                                       std::size_t theta,
                                       glm_design_law law,
                                       random_stream& stream) {
  glm_design g = coordinate(d, theta, law);
  g.basis = sim::random_orthogonal(d, stream).leftCols(static_cast<Eigen::Index>(theta));
  return g;
}

double glm_design::max_norm() const {
  switch (law) {
    case glm_design_law::unit_sphere:
    case glm_design_law::unit_ball:
      return 1.0;
    case glm_design_law::isotropic_ball:
      return std::sqrt(static_cast<double>(rank) + 2);
    case glm_design_law::gaussian:
      return kInf;
  }
  return kInf;
}

Eigen::MatrixXd glm_design::sample(std::size_t n, random_stream& stream) const {
  constexpr const char* fn = "glm_design::sample";
  check_design(fn, *this);
  if (n == 0) throw_domain_error(fn, "n", "0", ">= 1");
  const auto t = static_cast<Eigen::Index>(rank);
  const auto theta = static_cast<double>(rank);
  const double bound = max_norm(), scale = law_scale(*this);
  Eigen::MatrixXd x(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(dimension));
  vector z(t), row(static_cast<Eigen::Index>(dimension));
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    for (Eigen::Index j = 0; j < t; ++j) z(j) = stream.normal();
    if (law != glm_design_law::gaussian) {
      double norm = z.norm();
      // ‖g‖ = 0 has probability zero; guard the division anyway.
      if (norm == 0) {
        z(0) = 1;
        norm = 1;
      }
      double radius = 1;
      if (law != glm_design_law::unit_sphere) radius = std::pow(stream.uniform(), 1 / theta);
      z *= scale * radius / norm;
    }
    embed(*this, z, row);
    if (std::isfinite(bound)) {
      // Keep ‖x‖ ≤ bound under any summation order of the norm: pull back rows within 8 ulp.
      const double r = row.norm(), cap = bound * (1 - 8 * tol::kMachineEps);
      if (r > cap) row *= cap / r;
    }
    x.row(i) = row.transpose();
  }
  return x;
}

void glm_teacher::validate(const char* function) const {
  check_at_least(function, "teacher.w_star.size()", static_cast<long long>(w_star.size()), 1);
  for (Eigen::Index j = 0; j < w_star.size(); ++j)
    check_finite(function, "teacher.w_star(" + count(static_cast<long long>(j)) + ")", w_star(j));
  // stableNorm: the plain norm squares the entries, and ‖w*‖ = 1e200 would read as inf.
  // (1 + 1e-12: the norm of a w* built from a typed 1e150 may round an ulp above it.)
  if (const double norm = w_star.stableNorm(); !(norm <= kLargestTeacherNorm * (1 + 1e-12)))
    throw_domain_error(function, "teacher.|w_star|", norm,
                       "<= 1e150 (the labels' squares overflow beyond)");
  if (!(noise_scale >= 0 && noise_scale <= kLargestTeacherNorm))
    throw_domain_error(function, "teacher.noise_scale", noise_scale,
                       "in [0, 1e150] (the labels' squares overflow beyond)");
  if (!(clamp > 0)) throw_domain_error(function, "teacher.clamp", clamp, "> 0 (+inf: no clamp)");
  if (noise == glm_label_noise::binary && link == glm_link::relu)
    throw_domain_error(function, "teacher.noise", "binary", "uniform or none for a ReLU teacher");
}

double glm_teacher::conditional_mean(double b) const {
  const double s = link_value(link, b);
  switch (noise) {
    case glm_label_noise::binary: {
      // sigmoid: y ∈ {0, 1}, P(1) = σ(b); tanh: y ∈ {−1, 1}, P(1) = (1 + tanh b)/2.
      const double low = link == glm_link::tanh ? -1.0 : 0.0;
      const double p = link == glm_link::tanh ? 0.5 * (1 + s) : s;
      return p * clamp_to(1.0, clamp) + (1 - p) * clamp_to(low, clamp);
    }
    case glm_label_noise::uniform:
      if (noise_scale == 0 || std::isinf(clamp)) return clamp_to(s, clamp);
      // E clamp(s + ξ), ξ ~ U[−h, h] = (F(s + h) − F(s − h))/(2h).
      return (clamp_integral(s + noise_scale, clamp) - clamp_integral(s - noise_scale, clamp)) /
             (2 * noise_scale);
    case glm_label_noise::none:
      return clamp_to(s, clamp);
  }
  return NAN;
}

double glm_teacher::conditional_variance(double b) const {
  const double s = link_value(link, b);
  switch (noise) {
    case glm_label_noise::binary: {
      const double low = link == glm_link::tanh ? -1.0 : 0.0;
      const double p = link == glm_link::tanh ? 0.5 * (1 + s) : s;
      const double c1 = clamp_to(1.0, clamp), c0 = clamp_to(low, clamp);
      return p * (1 - p) * (c1 - c0) * (c1 - c0);
    }
    case glm_label_noise::uniform: {
      const double h = noise_scale;
      if (h == 0) return 0;
      if (std::isinf(clamp)) return h * h / 3;
      const double m = conditional_mean(b);
      const double second =
          (clamp_square_integral(s + h, clamp) - clamp_square_integral(s - h, clamp)) / (2 * h);
      return std::max(second - m * m, 0.0);
    }
    case glm_label_noise::none:
      return 0;
  }
  return NAN;
}

double glm_teacher::draw(double b, random_stream& stream) const {
  const double u = stream.uniform();
  const double s = link_value(link, b);
  double y = s;
  switch (noise) {
    case glm_label_noise::binary: {
      const double p = link == glm_link::tanh ? 0.5 * (1 + s) : s;
      const double low = link == glm_link::tanh ? -1.0 : 0.0;
      y = u < p ? 1.0 : low;
      break;
    }
    case glm_label_noise::uniform:
      y = s + noise_scale * (2 * u - 1);
      break;
    case glm_label_noise::none:
      break;
  }
  return clamp_to(y, clamp);
}

bool glm_teacher::well_specified() const {
  if (std::isinf(clamp)) return true;
  if (link == glm_link::relu) return false;  // unbounded teacher: the clamp may be active
  const double sup_y = noise == glm_label_noise::uniform ? 1.0 + noise_scale : 1.0;
  return clamp >= sup_y;
}

Eigen::VectorXd glm_labels(const Eigen::Ref<const Eigen::MatrixXd>& features,
                           const glm_teacher& teacher,
                           random_stream& stream) {
  constexpr const char* fn = "glm_labels";
  teacher.validate(fn);
  if (teacher.w_star.size() != features.cols())
    throw_domain_error(fn, "teacher.w_star.size()",
                       count(static_cast<long long>(teacher.w_star.size())),
                       "features.cols() = " + count(static_cast<long long>(features.cols())));
  Eigen::VectorXd y(features.rows());
  for (Eigen::Index i = 0; i < features.rows(); ++i)
    y(i) = teacher.draw(features.row(i).dot(teacher.w_star), stream);
  return y;
}

dataset glm_population::sample(std::size_t n,
                               random_stream& features_stream,
                               random_stream& labels_stream) const {
  constexpr const char* fn = "glm_population::sample";
  check_design(fn, design);
  teacher.validate(fn);
  dataset d;
  d.features = design.sample(n, features_stream);
  d.labels = glm_labels(d.features, teacher, labels_stream);
  return d;
}

mc_estimate glm_population::risk(glm_link link,
                                 const_vector_ref w,
                                 std::size_t samples,
                                 random_stream& stream) const {
  return population_mc("glm_population::risk", *this, w, samples, stream, [&](double a, double b) {
    const double r = link_value(link, a) - teacher.conditional_mean(b);
    return r * r + teacher.conditional_variance(b);
  });
}

mc_estimate glm_population::excess_risk(glm_link link,
                                        const_vector_ref w,
                                        std::size_t samples,
                                        random_stream& stream) const {
  // The excess-risk identity of SWX+23 §4.1.1: E_x[(σ(⟨w,x⟩) − E[y|x])²].
  return population_mc("glm_population::excess_risk", *this, w, samples, stream,
                       [&](double a, double b) {
                         const double r = link_value(link, a) - teacher.conditional_mean(b);
                         return r * r;
                       });
}

mc_estimate glm_population::surrogate_risk(glm_link link,
                                           const_vector_ref w,
                                           std::size_t samples,
                                           random_stream& stream) const {
  return population_mc(
      "glm_population::surrogate_risk", *this, w, samples, stream,
      [&](double a, double b) { return link_integral(link, a) - teacher.conditional_mean(b) * a; });
}

mc_estimate glm_population::surrogate_excess_risk(glm_link link,
                                                  const_vector_ref w,
                                                  std::size_t samples,
                                                  random_stream& stream) const {
  return population_mc("glm_population::surrogate_excess_risk", *this, w, samples, stream,
                       [&](double a, double b) {
                         return link_integral(link, a) - link_integral(link, b) -
                                teacher.conditional_mean(b) * (a - b);
                       });
}

vector glm_population::label_correlation() const {
  constexpr const char* fn = "glm_population::label_correlation";
  check_population(fn, *this, teacher.w_star);
  const vector v = restrict_to(design, teacher.w_star);
  const double rho = v.norm();
  vector out = vector::Zero(static_cast<Eigen::Index>(design.dimension));
  if (rho == 0) return out;  // E[y x] = m(0) E[x] = 0 (every law of z is centred)
  // c = E[m(ρ z₁) z₁]; E[y x] = c · P(v/ρ) (the part of z orthogonal to v is symmetric given z₁).
  auto m = [&](double t) { return teacher.conditional_mean(rho * t) * t; };
  using gk = boost::math::quadrature::gauss_kronrod<double, 61>;
  constexpr unsigned kDepth = 20;
  constexpr double kTol = 1e-13;
  double c = 0;
  if (design.law == glm_design_law::gaussian) {
    // z₁ ~ N(0, 1), truncated to |t| ≤ 40 (mass e^{−800}); split at the ReLU kink t = 0.
    auto f = [&](double t) { return m(t) * std::exp(-0.5 * t * t); };
    c = (gk::integrate(f, -40.0, 0.0, kDepth, kTol) + gk::integrate(f, 0.0, 40.0, kDepth, kTol)) /
        std::sqrt(2 * std::numbers::pi);
  } else if (design.law == glm_design_law::unit_sphere && design.rank == 1) {
    c = 0.5 * (m(1.0) + m(-1.0));
  } else {
    // z₁ = s·sin φ, φ ∈ [−π/2, π/2], weight cos^p φ: p = θ − 2 (sphere, density ∝ (1 −
    // t²)^{(θ−3)/2}) or θ (ball, ∝ (1 − t²)^{(θ−1)/2}); the substitution t = sin φ removes the
    // endpoint singularity of the sphere at θ = 2.
    const double s = law_scale(design);
    const double p = design.law == glm_design_law::unit_sphere
                         ? static_cast<double>(design.rank) - 2
                         : static_cast<double>(design.rank);
    auto f = [&](double phi) { return m(s * std::sin(phi)) * s * std::pow(std::cos(phi), p); };
    auto wgt = [&](double phi) { return std::pow(std::cos(phi), p); };
    const double h = std::numbers::pi / 2;
    const double num =
        gk::integrate(f, -h, 0.0, kDepth, kTol) + gk::integrate(f, 0.0, h, kDepth, kTol);
    const double den = 2 * gk::integrate(wgt, 0.0, h, kDepth, kTol);
    c = num / den;
  }
  const vector e = v / rho;
  if (design.basis.size() == 0) {
    out.head(e.size()) = c * e;
  } else {
    out = c * (design.basis * e);
  }
  return out;
}

// =============================================================================================
// Moreau envelope and Algorithm 4
// =============================================================================================

namespace {

void check_moreau(const char* fn, double y, double beta, double m) {
  check_finite(fn, "y", y);
  check_positive(fn, "beta", beta);
  check_finite(fn, "m", m);
}

// The prox without argument checks (hot path of Algs 5/6).
double prox_unchecked(glm_link link, double y, double beta, double m) {
  if (link == glm_link::relu) {
    // Root of ReLU(u) − y + β(u − m): u = m + y/β if ≤ 0, else (y + βm)/(1 + β).
    const double u0 = m + y / beta;
    return u0 <= 0 ? u0 : (y + beta * m) / (1 + beta);
  }
  // |σ(u) − y| ≤ K = 1 + |y| for sigmoid/tanh, so the root u = m − (σ(u) − y)/β lies in
  // [m − K/β, m + K/β], where the increasing h′(u) = σ(u) − y + β(u − m) changes sign.
  const double K = 1 + std::abs(y);
  auto h = [&](double u) { return link_value(link, u) - y + beta * (u - m); };
  root_options o;
  o.absolute_tolerance = 2 * tol::kMachineEps * std::max({1.0, std::abs(m), K / beta});
  o.max_evaluations = 400;
  const root_result r = find_root(h, m - K / beta, m + K / beta, o);
  return r.root;
}

}  // namespace

namespace detail::glm {

double moreau_derivative_unchecked(glm_link link, double y, double beta, double m) {
  // Lemma 4(b): ℓ_β′(m) = β(m − p). At the root, β(m − p) = σ(p) − y exactly; the right-hand
  // side avoids the cancellation in m − p when β is large.
  const double p = prox_unchecked(link, y, beta, m);
  return link == glm_link::relu ? beta * (m - p) : link_value(link, p) - y;
}

// Algorithm 4 without checks; steps = T_o.
moreau_oracle_result oracle_unchecked(
    glm_link link, double y, double beta, double m, double B, long long steps) {
  // SWX+23 Alg 4 (typos fixed; docs/findings.md): 𝒬 = [m − 4B/β, m + 4B/β], u_1 = m,
  // η_t = 2/(β(t + 1)), weighted average with weights 2t/(T_o(T_o + 1)).
  const double lo = m - 4 * B / beta, hi = m + 4 * B / beta;
  double u = m, weighted = 0;
  for (long long t = 1; t <= steps; ++t) {
    const auto td = static_cast<double>(t);
    weighted += td * u;
    const double v = u - 2 / (beta * (td + 1)) * (link_value(link, u) - y + beta * (u - m));
    u = std::clamp(v, lo, hi);
  }
  const auto T = static_cast<double>(steps);
  moreau_oracle_result r;
  r.u_bar = weighted * (2 / (T * (T + 1)));
  r.derivative = beta * (m - r.u_bar);
  r.steps = steps;
  return r;
}

long long oracle_steps(const char* fn, double B, double gamma, long long max_steps) {
  // Lemma 6: T_o = 144B²/γ², as (12B/γ)² (B² alone overflowed where the ratio is small).
  // Named as the oracle's accuracy, the --oracle-gamma a user gives.
  const double ratio = 12 * B / gamma;
  const double t = std::ceil(ratio * ratio);
  if (!(t <= static_cast<double>(max_steps)))
    throw_domain_error(fn, "oracle_gamma", gamma,
                       "large enough that T_o = ceil(144 B^2/gamma^2) = " + format_value(t) +
                           " <= max_steps = " + count(max_steps) + " (B = " + format_value(B) +
                           ")");
  return std::max(1LL, static_cast<long long>(t));
}

}  // namespace detail::glm

double moreau_prox(glm_link link, double y, double beta, double m) {
  check_moreau("moreau_prox", y, beta, m);
  return prox_unchecked(link, y, beta, m);
}

double moreau_envelope(glm_link link, double y, double beta, double m) {
  check_moreau("moreau_envelope", y, beta, m);
  const double p = prox_unchecked(link, y, beta, m);
  return surrogate_loss(link, p, y) + 0.5 * beta * (p - m) * (p - m);
}

double moreau_derivative(glm_link link, double y, double beta, double m) {
  check_moreau("moreau_derivative", y, beta, m);
  return moreau_derivative_unchecked(link, y, beta, m);
}

moreau_oracle_result moreau_oracle(
    glm_link link, double y, double beta, double m, double gamma, double B, long long max_steps) {
  constexpr const char* fn = "moreau_oracle";
  check_moreau(fn, y, beta, m);
  check_positive(fn, "gamma", gamma);
  check_positive(fn, "B", B);
  check_at_least(fn, "max_steps", max_steps, 1);
  return oracle_unchecked(link, y, beta, m, B, oracle_steps(fn, B, gamma, max_steps));
}

void moreau_oracle_gradient(glm_link link,
                            const_vector_ref w,
                            const_vector_ref x,
                            double y,
                            double beta,
                            double gamma,
                            double B,
                            vector_ref g) {
  constexpr const char* fn = "moreau_oracle_gradient";
  check_same_size(fn, w, x);
  if (g.size() != x.size())
    throw_domain_error(fn, "g.size()", count(static_cast<long long>(g.size())),
                       "x.size() = " + count(static_cast<long long>(x.size())));
  const moreau_oracle_result r = moreau_oracle(link, y, beta, w.dot(x), gamma, B);
  g = r.derivative * x;  // Alg 4 step 5
}

}  // namespace dpkit::learners
