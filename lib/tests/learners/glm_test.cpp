// SWX+23 Part I/II (glm.hpp): the surrogate's closed forms against Gauss–Kronrod quadrature of
// its defining integral, gradients and Hessian-vector products against central differences,
// Lemma 2 (convexity, 2B-Lipschitz) and Lemma 3 (pointwise, hence on common Monte Carlo draws),
// the Moreau prox against brute-force grid minimisation, Lemma 4's sandwich and prox
// localisation, Lemma 6's oracle error, the label laws' closed forms against quadrature, the
// exact two-dimensional population sampler against full-dimensional sampling, the polynomial
// kernel identity, the JL law (exact χ² probability), and the algorithms: exact sensitivity on
// coupled noise-free runs (Alg 2), the noise law of a phase (χ² test), the privacy bookkeeping,
// the inexact-oracle trajectory bound (Alg 5), the 2W ball (Alg 7), E[w_T] of Alg 8 in the
// Gaussian case, and bad input.
//
// Monte Carlo tolerances: every statistical assertion has failure probability ≤ 1e-6 by
// construction — an exact law (χ² quantiles, Clopper–Pearson) where the statistic's law is
// known, otherwise a CLT interval at 1 − 1e-6 (stated as an approximation where used).
#include "dpkit/learners/glm.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "dpkit/core/random.hpp"
#include "dpkit/sim/statistics.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using dpkit::random_stream;
using dpkit::sim::dataset;
using dpkit::learners::glm_design;
using dpkit::learners::glm_design_law;
using dpkit::learners::glm_label_noise;
using dpkit::learners::glm_link;
using dpkit::learners::glm_population;
using dpkit::learners::glm_result;
using dpkit::learners::glm_teacher;
using dpkit::learners::phased_sgd_options;
using dpkit::sim::random_key;
using dpkit::sim::vector;
namespace sim = dpkit::sim;
namespace learners = dpkit::learners;

namespace {

using gk = boost::math::quadrature::gauss_kronrod<double, 61>;
const glm_link kBounded[] = {glm_link::sigmoid, glm_link::tanh};
const glm_link kAll[] = {glm_link::sigmoid, glm_link::tanh, glm_link::relu};

vector random_unit_ball(Eigen::Index d, random_stream& s) {
  vector v(d);
  for (Eigen::Index j = 0; j < d; ++j) v(j) = s.normal();
  return v * (std::pow(s.uniform(), 1.0 / static_cast<double>(d)) / v.norm());
}

dataset sphere_data(std::size_t n, std::size_t d, glm_link link, std::uint64_t seed) {
  glm_population p;
  p.design = glm_design::coordinate(d, d, glm_design_law::unit_sphere);
  p.teacher.link = link;
  p.teacher.w_star = vector::Constant(static_cast<Eigen::Index>(d), 1.5 / std::sqrt(double(d)));
  p.teacher.noise = glm_label_noise::binary;
  random_stream fx(seed, 0, 0), fy(seed, 0, 4);
  return p.sample(n, fx, fy);
}

}  // namespace

// ---- links and surrogate ----------------------------------------------------------------------

TEST_CASE("glm surrogate closed forms match quadrature of the defining integral", "[glm]") {
  // ℓ = ∫_0^a (σ(z) − y) dz (SWX+23 eq. (2)); GK61 adaptive to 1e-14 is an independent value.
  const double as[] = {-30, -5, -1.3, -0.4, -1e-6, 0, 1e-9, 0.25, 0.9, 1, 3.7, 25};
  const double ys[] = {-1, 0, 0.3, 1};
  for (const glm_link link : kAll) {
    for (const double a : as) {
      for (const double y : ys) {
        auto integrand = [&](double z) { return learners::link_value(link, z) - y; };
        double ref = 0;
        if (a != 0) {
          const double lo = std::min(0.0, a), hi = std::max(0.0, a);
          ref = gk::integrate(integrand, lo, hi, 12, 1e-13) * (a > 0 ? 1 : -1);
        }
        CAPTURE(learners::to_string(link), a, y);
        const double got = learners::surrogate_loss(link, a, y);
        CHECK(std::abs(got - ref) <= 1e-12 * std::max(1.0, std::abs(ref)));
        CHECK(learners::surrogate_derivative(link, a, y) == learners::link_value(link, a) - y);
      }
    }
    // Small |a|: ∫_0^a σ = σ(0)a + σ′(0)a²/2 + O(a³) (relative accuracy, no cancellation).
    const double a = 1e-7;
    const double series =
        learners::link_value(link, 0) * a + 0.5 * learners::link_derivative(link, 1e-300) * a * a;
    if (link != glm_link::relu)
      CHECK(std::abs(learners::link_integral(link, a) - series) <= 1e-12 * std::abs(series) + 1e-30);
  }
  CHECK(learners::link_lipschitz(glm_link::sigmoid) == 0.25);
  CHECK(learners::link_range_bound(glm_link::tanh) == 1);
  CHECK(std::isinf(learners::link_range_bound(glm_link::relu)));
  // Tails: no overflow.
  CHECK(std::isfinite(learners::link_integral(glm_link::sigmoid, 800)));
  CHECK(std::abs(learners::link_integral(glm_link::tanh, -800) - (800 - std::log(2.0))) < 1e-12 * 800);
}

TEST_CASE("glm surrogate gradient and Hessian-vector match central differences", "[glm]") {
  random_stream s(7, 0, 0);
  const double h = 1e-6;
  auto data = std::make_shared<dataset>();
  data->features = Eigen::MatrixXd(3, 4);
  for (int i = 0; i < 3; ++i) data->features.row(i) = random_unit_ball(4, s).transpose();
  data->labels = Eigen::Vector3d(0.2, 1, -0.5);
  for (const glm_link link : kAll) {
    const learners::glm_surrogate f(data, link);
    for (std::size_t i = 0; i < 3; ++i) {
      vector w(4), g(4), hv(4), v(4);
      for (int j = 0; j < 4; ++j) w(j) = s.normal(), v(j) = s.normal();
      f.gradient(i, w, g);
      f.hessian_vector(i, w, v, hv);
      vector g2(4);
      learners::surrogate_gradient(link, w, data->features.row(Eigen::Index(i)).transpose(),
                              data->labels(Eigen::Index(i)), g2);
      CHECK((g - g2).norm() <= 1e-15 * (1 + g.norm()));
      for (int j = 0; j < 4; ++j) {
        vector wp = w, wm = w;
        wp(j) += h;
        wm(j) -= h;
        const double fd = (f.loss(i, wp) - f.loss(i, wm)) / (2 * h);
        CAPTURE(learners::to_string(link), i, j);
        CHECK(std::abs(fd - g(j)) <= 1e-7);
      }
      // Hessian-vector: directional difference of the gradient (ReLU: skip if the kink is near).
      const double a = data->features.row(Eigen::Index(i)).dot(w);
      if (link == glm_link::relu && std::abs(a) < 1e-3) continue;
      vector gp(4), gm(4);
      f.gradient(i, w + h * v, gp);
      f.gradient(i, w - h * v, gm);
      CHECK(((gp - gm) / (2 * h) - hv).norm() <= 1e-7 * (1 + v.norm()));
    }
  }
}

TEST_CASE("glm Lemma 2: the surrogate is convex and 2B-Lipschitz on the unit ball", "[glm]") {
  random_stream s(11, 0, 0);
  for (const glm_link link : kBounded) {
    const double B = 1;
    for (int k = 0; k < 2000; ++k) {
      const vector x = random_unit_ball(5, s);
      vector w1(5), w2(5);
      for (int j = 0; j < 5; ++j) w1(j) = 4 * s.normal(), w2(j) = 4 * s.normal();
      const double y = s.uniform(-B, B), lambda = s.uniform();
      const double l1 = learners::surrogate_loss(link, w1, x, y),
                   l2 = learners::surrogate_loss(link, w2, x, y);
      const double mid = learners::surrogate_loss(link, vector(lambda * w1 + (1 - lambda) * w2), x, y);
      CHECK(mid <= lambda * l1 + (1 - lambda) * l2 + 1e-12 * (1 + std::abs(l1) + std::abs(l2)));
      CHECK(std::abs(l1 - l2) <= 2 * B * (w1 - w2).norm() * (1 + 1e-12));
    }
  }
}

// ---- labels and populations --------------------------------------------------------------------

TEST_CASE("glm teacher conditional moments match quadrature and the label draws", "[glm]") {
  glm_teacher t;
  t.link = glm_link::relu;
  t.w_star = vector::Ones(2);
  t.noise = glm_label_noise::uniform;
  t.noise_scale = 0.7;
  t.clamp = 1.2;
  for (const double b : {-2.0, -0.1, 0.0, 0.3, 0.9, 1.4, 3.0}) {
    const double s = std::max(b, 0.0), h = t.noise_scale, c = t.clamp;
    auto cl = [&](double xi) { return std::clamp(s + xi, -c, c); };
    auto cl2 = [&](double xi) { return std::pow(std::clamp(s + xi, -c, c), 2); };
    // Split at the clamp's kinks ξ = ±c − s so that each piece is a polynomial (GK exact).
    std::vector<double> cuts{-h};
    for (const double k : {-c - s, c - s})
      if (k > -h && k < h) cuts.push_back(k);
    cuts.push_back(h);
    std::sort(cuts.begin(), cuts.end());
    double mean = 0, second = 0;
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      mean += gk::integrate(cl, cuts[i], cuts[i + 1], 0) / (2 * h);
      second += gk::integrate(cl2, cuts[i], cuts[i + 1], 0) / (2 * h);
    }
    CAPTURE(b);
    CHECK(std::abs(t.conditional_mean(b) - mean) <= 1e-13);
    CHECK(std::abs(t.conditional_variance(b) - (second - mean * mean)) <= 1e-13);
  }
  CHECK_FALSE(t.well_specified());
  // Binary tanh labels: y ∈ {−1, 1} with E[y|b] = tanh b. Draw frequency at b = 0.4 vs
  // Clopper–Pearson at 1 − 1e-6 (exact).
  glm_teacher tb;
  tb.link = glm_link::tanh;
  tb.w_star = vector::Ones(1);
  CHECK(std::abs(tb.conditional_mean(0.4) - std::tanh(0.4)) < 1e-15);
  CHECK(std::abs(tb.conditional_variance(0.4) - (1 - std::tanh(0.4) * std::tanh(0.4))) < 1e-15);
  CHECK(tb.well_specified());
  random_stream s(3, 0, 4);
  std::size_t ones = 0;
  const std::size_t n = 20000;
  for (std::size_t k = 0; k < n; ++k) {
    const double y = tb.draw(0.4, s);
    REQUIRE((y == 1 || y == -1));
    ones += y == 1;
  }
  const auto ci = sim::clopper_pearson(ones, n, 1 - 1e-6);
  CHECK(ci.lower <= 0.5 * (1 + std::tanh(0.4)));
  CHECK(ci.upper >= 0.5 * (1 + std::tanh(0.4)));
}

TEST_CASE("glm designs: norms, rank, and the exact 2-d projection sampler", "[glm]") {
  random_stream sb(5, 0, 1);
  for (const glm_design_law law : {glm_design_law::unit_sphere, glm_design_law::unit_ball,
                                   glm_design_law::gaussian, glm_design_law::isotropic_ball}) {
    for (const std::size_t theta :
         {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(6)}) {
      const glm_design g = glm_design::random_subspace(8, theta, law, sb);
      random_stream sx(5, theta, 0);
      const Eigen::MatrixXd x = g.sample(4000, sx);
      // Rows lie in span(P) and within the law's radius.
      const Eigen::MatrixXd resid = x - x * g.basis * g.basis.transpose();
      CHECK(resid.cwiseAbs().maxCoeff() < 1e-12);
      CHECK(x.rowwise().norm().maxCoeff() <= g.max_norm());
      if (law == glm_design_law::unit_sphere)
        CHECK((x.rowwise().norm().array() - 1).abs().maxCoeff() < 1e-14);
      // Excess risk two ways: the O(1) projection sampler (glm_population) vs direct evaluation on
      // full-dimensional rows. Both are sample means of the same law; CLT z-test at 1 − 1e-6
      // (|z| ≤ 4.9; an approximation, both estimates average 4000+ bounded terms).
      glm_population p;
      p.design = g;
      p.teacher.link = glm_link::tanh;
      p.teacher.w_star = vector::LinSpaced(8, -1, 1.2);
      vector w = vector::LinSpaced(8, 0.7, -0.4);
      random_stream sm(5, theta, 9);
      const learners::mc_estimate e = p.excess_risk(glm_link::tanh, w, 40000, sm);
      learners::mc_estimate direct;
      {
        double sum = 0, sum2 = 0;
        for (Eigen::Index i = 0; i < x.rows(); ++i) {
          const double v =
              std::pow(std::tanh(x.row(i).dot(w)) - std::tanh(x.row(i).dot(p.teacher.w_star)), 2);
          sum += v, sum2 += v * v;
        }
        const double n = double(x.rows());
        direct.value = sum / n;
        direct.standard_error =
            std::sqrt(std::max(0.0, sum2 / n - direct.value * direct.value) / (n - 1));
      }
      CAPTURE(learners::to_string(law), theta, e.value, e.standard_error, direct.value,
              direct.standard_error);
      const double se = std::hypot(e.standard_error, direct.standard_error);
      CHECK(std::abs(e.value - direct.value) <= 4.9 * se + 1e-15);
    }
  }
}

TEST_CASE("glm Lemma 3 holds pointwise, so on common Monte Carlo draws", "[glm]") {
  for (const glm_link link : kAll) {
    glm_population p;
    p.design = glm_design::coordinate(6, 4, glm_design_law::unit_ball);
    p.teacher.link = link;
    p.teacher.w_star = vector::LinSpaced(6, 1, -2);
    p.teacher.noise = link == glm_link::relu ? glm_label_noise::uniform : glm_label_noise::binary;
    p.teacher.noise_scale = 0.3;
    random_stream sw(17, 0, 1);
    for (int k = 0; k < 5; ++k) {
      vector w(6);
      for (int j = 0; j < 6; ++j) w(j) = 2 * sw.normal();
      random_stream s1(17, std::uint64_t(k), 2), s2(17, std::uint64_t(k), 2);
      const auto ex = p.excess_risk(link, w, 5000, s1);
      const auto sx = p.surrogate_excess_risk(link, w, 5000, s2);
      CAPTURE(learners::to_string(link), ex.value, sx.value);
      CHECK(ex.value <= 2 * learners::link_lipschitz(link) * sx.value * (1 + 1e-12));
      CHECK(sx.value >= 0);
    }
    // At w*, the excess and surrogate excess vanish.
    random_stream s3(17, 9, 2);
    CHECK(p.excess_risk(link, p.teacher.w_star, 100, s3).value <= 1e-25);
  }
}

TEST_CASE("glm label correlation: E[yx] = w*/2 for noiseless ReLU on N(0, I)", "[glm]") {
  // SWX+23 §4.2: χ^{σw} = E[ReLU(⟨w, x⟩)x] = w/2 for x ~ N(0, I_d).
  glm_population p;
  p.design = glm_design::coordinate(4, 4, glm_design_law::gaussian);
  p.teacher.link = glm_link::relu;
  p.teacher.noise = glm_label_noise::none;
  p.teacher.w_star = Eigen::Vector4d(0.5, -1, 2, 0.25);
  const vector c = p.label_correlation();
  CHECK((c - p.teacher.w_star / 2).norm() <= 1e-10);
  // Bounded laws: E[σ(b) z₁] against a direct Monte Carlo mean of y x (CLT z-test at 1 − 1e-6,
  // Bonferroni over coordinates: |z| ≤ 5.3).
  p.design = glm_design::coordinate(3, 3, glm_design_law::unit_sphere);
  p.teacher = glm_teacher{};
  p.teacher.link = glm_link::sigmoid;
  p.teacher.w_star = Eigen::Vector3d(2, -1, 0.5);
  const vector c2 = p.label_correlation();
  random_stream fx(21, 0, 0), fy(21, 0, 4);
  const dataset d = p.sample(200000, fx, fy);
  const Eigen::MatrixXd yx = d.features.array().colwise() * d.labels.array();
  const vector mean = yx.colwise().mean().transpose();
  for (Eigen::Index j = 0; j < 3; ++j) {
    const double sd =
        std::sqrt((yx.col(j).array() - mean(j)).square().sum() / double(yx.rows() - 1));
    CHECK(std::abs(mean(j) - c2(j)) <= 5.3 * sd / std::sqrt(double(yx.rows())));
  }
}

// ---- Moreau envelope and Algorithm 4 ------------------------------------------------------------

TEST_CASE("glm Moreau prox matches brute-force grid minimisation", "[glm]") {
  random_stream s(31, 0, 0);
  for (const glm_link link : kAll) {
    for (int k = 0; k < 20; ++k) {
      const double y = s.uniform(-1, 1), beta = std::exp(s.uniform(-2, 4)), m = 4 * s.normal();
      const double B = 1;
      const double p = learners::moreau_prox(link, y, beta, m);
      // Grid on [m − 4B/β, m + 4B/β] (Algorithm 4's localisation, also for ReLU: |ReLU(u) − y| at
      // the prox is ≤ |y| + |prox| — we widen the ReLU grid generously).
      const double half =
          link == glm_link::relu ? 4 * (std::abs(m) + 2) / std::min(beta, 1.0) : 4 * B / beta;
      const int N = 200000;
      const double h = 2 * half / N;
      double best = std::numeric_limits<double>::infinity(), arg = 0;
      for (int i = 0; i <= N; ++i) {
        const double u = m - half + i * h;
        const double v = learners::surrogate_loss(link, u, y) + 0.5 * beta * (u - m) * (u - m);
        if (v < best) best = v, arg = u;
      }
      CAPTURE(learners::to_string(link), y, beta, m, p, arg, h);
      // Strongly convex objective: the grid minimiser is a neighbour of the true one.
      CHECK(std::abs(p - arg) <= h * (1 + 1e-9));
      const double env = learners::moreau_envelope(link, y, beta, m);
      CHECK(env <= best + 1e-12 * (1 + std::abs(best)));
      if (link != glm_link::relu) {
        // h(u) is 6B-Lipschitz on 𝒬 (proof of Lemma 6), so the grid value is within 6B·h.
        CHECK(best - env <= 6 * B * h + 1e-12 * (1 + std::abs(best)));
        CHECK(std::abs(p - m) <= 4 * B / beta);  // prox localisation
      }
      // Lemma 4(b): ℓ_β′(m) = β(m − prox(m)), against a central difference of the envelope
      // (ℓ_β′ is β-Lipschitz: truncation ≤ β·δ).
      const double dlt = 1e-6 / std::max(1.0, beta);
      const double fd = (learners::moreau_envelope(link, y, beta, m + dlt) -
                         learners::moreau_envelope(link, y, beta, m - dlt)) /
                        (2 * dlt);
      const double der = learners::moreau_derivative(link, y, beta, m);
      CHECK(std::abs(der - beta * (m - p)) <= 1e-9 * (1 + std::abs(der)));
      CHECK(std::abs(fd - der) <= 1e-5 * (1 + std::abs(der)));
    }
  }
}

TEST_CASE("glm Lemma 4 sandwich and prox localisation on random points", "[glm]") {
  random_stream s(37, 0, 0);
  for (const glm_link link : kBounded) {
    const double B = 1, G = 2 * B;  // g^y is 2B-Lipschitz (|σ − y| ≤ 2B)
    for (int k = 0; k < 3000; ++k) {
      const double y = s.uniform(-B, B), beta = std::exp(s.uniform(-3, 6)), m = 10 * s.normal();
      const double l = learners::surrogate_loss(link, m, y), lb = learners::moreau_envelope(link, y, beta, m);
      const double slack = 1e-12 * (1 + std::abs(l));
      CHECK(lb <= l + slack);
      CHECK(l <= lb + G * G / (2 * beta) + slack);
      const double p = learners::moreau_prox(link, y, beta, m);
      CHECK(std::abs(p - m) <= 4 * B / beta);
      // Lemma 4(a): |ℓ_β′| ≤ G.
      CHECK(std::abs(learners::moreau_derivative(link, y, beta, m)) <= G);
    }
  }
}

TEST_CASE("glm Algorithm 4 error is at most 12B/sqrt(T_o) (Lemma 6)", "[glm]") {
  random_stream s(41, 0, 0);
  for (const glm_link link : kBounded) {
    for (const double gamma : {0.5, 0.1}) {
      for (int k = 0; k < 25; ++k) {
        const double B = 1, y = s.uniform(-B, B), beta = std::exp(s.uniform(-2, 3)),
                     m = 3 * s.normal();
        const auto r = learners::moreau_oracle(link, y, beta, m, gamma, B);
        CHECK(r.steps == static_cast<long long>(std::ceil(144 * B * B / (gamma * gamma))));
        const double exact = learners::moreau_derivative(link, y, beta, m);
        CAPTURE(learners::to_string(link), gamma, y, beta, m, r.derivative, exact);
        CHECK(std::abs(r.derivative - exact) <= 12 * B / std::sqrt(double(r.steps)));
        CHECK(std::abs(r.derivative - exact) <= gamma);
      }
    }
  }
  // Vector form: ‖𝒪 − ∇f_β‖ ≤ γ‖x‖.
  const vector w = Eigen::Vector3d(1, -2, 0.5), x = Eigen::Vector3d(0.3, 0.2, -0.6);
  vector g(3);
  learners::moreau_oracle_gradient(glm_link::sigmoid, w, x, 0.7, 2.0, 0.2, 1.0, g);
  const vector exact = learners::moreau_derivative(glm_link::sigmoid, 0.7, 2.0, w.dot(x)) * x;
  CHECK((g - exact).norm() <= 0.2 * x.norm());
}

// ---- features and JL ----------------------------------------------------------------------------

TEST_CASE("glm polynomial features realise the truncated multinomial kernel", "[glm]") {
  random_stream s(43, 0, 0);
  for (const int q : {0, 1, 2, 3, 4}) {
    const std::size_t d = 4;
    std::size_t count = 0;  // Σ_j C(d + j − 1, j) by direct counting of nondecreasing tuples
    for (int j = 0; j <= q; ++j) {
      double c = 1;
      for (int i = 1; i <= j; ++i) c = c * double(int(d) + i - 1) / i;
      count += std::size_t(std::llround(c));
    }
    CHECK(learners::polynomial_feature_dimension(d, q) == count);
    for (int k = 0; k < 10; ++k) {
      const vector x = random_unit_ball(4, s), xp = random_unit_ball(4, s);
      const vector px = learners::polynomial_feature_map(x, q), pxp = learners::polynomial_feature_map(xp, q);
      REQUIRE(std::size_t(px.size()) == count);
      double K = 0;
      for (int j = 0; j <= q; ++j) K += std::pow(x.dot(xp), j);
      K /= q + 1;
      CHECK(std::abs(px.dot(pxp) - K) <= 1e-14);
      CHECK(px.norm() <= 1 + 1e-15);
    }
  }
  REQUIRE_THROWS_AS(learners::polynomial_feature_map(vector::Ones(3), 9), std::domain_error);
}

TEST_CASE("glm JL matrix: squared norms follow chi2_m over m exactly (Def 6)", "[glm]") {
  // ‖Φu‖² ~ χ²_m/m for a unit u when Φ = R/√m with R_ij ~ N(0, 1). The frequency of
  // |‖Φu‖² − 1| > α must lie in the Clopper–Pearson interval (1 − 1e-6) of the exact value.
  const std::size_t m = 20, d = 5;
  const double alpha = 0.3;
  const boost::math::chi_squared_distribution<double> chi{static_cast<double>(m)};
  const double p_exact = boost::math::cdf(chi, m * (1 - alpha)) +
                         boost::math::cdf(boost::math::complement(chi, m * (1 + alpha)));
  const vector u = vector::Ones(d) / std::sqrt(double(d));
  std::size_t fails = 0;
  const std::size_t R = 20000;
  for (std::size_t r = 0; r < R; ++r) {
    random_stream s(47, r, 5);
    const Eigen::MatrixXd phi = learners::jl_matrix(m, d, s);
    fails += std::abs((phi * u).squaredNorm() - 1) > alpha;
  }
  const auto ci = sim::clopper_pearson(fails, R, 1 - 1e-6);
  CAPTURE(p_exact, ci.estimate);
  CHECK(ci.lower <= p_exact);
  CHECK(ci.upper >= p_exact);
}

// ---- algorithms ---------------------------------------------------------------------------------

TEST_CASE("glm phase sizes and Alg 2 privacy bookkeeping", "[glm]") {
  CHECK(learners::phase_sizes(2) == std::vector<std::size_t>{1});
  CHECK(learners::phase_sizes(100) == std::vector<std::size_t>{50, 25, 12, 6, 3, 1});
  CHECK(learners::phase_sizes(64) == std::vector<std::size_t>{32, 16, 8, 4, 2, 1});
  const dataset data = sphere_data(100, 3, glm_link::sigmoid, 1);
  phased_sgd_options o;
  o.epsilon = 0.7;
  o.delta = 1e-6;
  o.eta = 2;
  const glm_result r = learners::phased_sgd(data, o, random_key{1, 0, 0});
  REQUIRE(r.releases.size() == 6);
  for (std::size_t i = 0; i < r.releases.size(); ++i) {
    const double eta_i = 2 / std::pow(4.0, double(i + 1));
    CHECK(std::abs(r.releases[i].eta - eta_i) <= 1e-16);
    CHECK(std::abs(r.releases[i].sensitivity - 4 * eta_i) <= 1e-15);
    CHECK(std::abs(r.releases[i].noise_std - 8 * eta_i * std::sqrt(std::log(1e6)) / 0.7) <= 1e-14);
  }
  // z = τ_i/(4Bη_i) = 2√log(1/δ)/ε; one release per record.
  CHECK(std::abs(r.privacy.noise_multiplier - 2 * std::sqrt(std::log(1e6)) / 0.7) <= 1e-12);
  CHECK(r.privacy.compositions == 1);
  // Override: std = z × sensitivity.
  o.noise_multiplier = 1.5;
  const glm_result r2 = learners::phased_sgd(data, o, random_key{1, 0, 0});
  CHECK(std::abs(r2.privacy.noise_multiplier - 1.5) <= 1e-15);
  CHECK(std::abs(r2.releases[2].noise_std - 1.5 * r2.releases[2].sensitivity) <= 1e-16);
  // Alg 3: z = 2√log(2/δ)/ε, output Φᵀ w_k.
  o.noise_multiplier = 0;
  o.jl_dim = 7;
  const glm_result r3 = learners::jl_phased_sgd(data, o, random_key{1, 0, 0});
  CHECK(std::abs(r3.privacy.noise_multiplier - 2 * std::sqrt(std::log(2e6)) / 0.7) <= 1e-12);
  REQUIRE(r3.jl.rows() == 7);
  CHECK((r3.w - r3.jl.transpose() * r3.w_reduced).norm() <= 1e-14);
  // Noise off.
  o.add_noise = false;
  const glm_result r4 = learners::phased_sgd(data, o, random_key{1, 0, 0});
  CHECK(r4.privacy.noise_multiplier == 0);
  CHECK(r4.w == r4.phase_averages.back());
  CHECK_THAT(r4.privacy.note, Contains("not private"));
}

TEST_CASE("glm Alg 2 noiseless sensitivity on neighbouring datasets is at most 4B eta_i", "[glm]") {
  // Coupled noise-free runs on D and D′ that differ in one record of phase i: the phases before
  // i are identical, so ‖w̄_i(D) − w̄_i(D′)‖ is exactly the quantity bounded in the proof
  // of SWX+23 Thm 1. η = 2/G·4 makes η_1 = 2/G, the largest step the proof allows.
  random_stream s(53, 0, 0);
  double worst = 0;
  for (const glm_link link : kBounded) {
    const double G = learners::link_lipschitz(link);
    for (int trial = 0; trial < 20; ++trial) {
      const dataset data = sphere_data(64, 3, link, 100 + std::uint64_t(trial));
      phased_sgd_options o;
      o.link = link;
      o.add_noise = false;
      o.eta = 4 * 2 / G;
      const std::vector<std::size_t> sizes = learners::phase_sizes(64);
      std::size_t offset = 0;
      for (std::size_t i = 0; i < 3; ++i) {
        const std::size_t idx = offset + s.below(sizes[i]);
        // Replacement: the same x with the other label (the gradient changes by Δy·x, |Δy| up
        // to 2B for tanh). Note (−x, 1 − y) would be no change at all for the sigmoid:
        // ℓ(w; −x, 1 − y) = ℓ(w; x, y) since log(1 + e^{−a}) = log(1 + e^a) − a.
        const vector x = data.features.row(Eigen::Index(idx)).transpose();
        const double y = data.labels(Eigen::Index(idx));
        const double low = link == glm_link::tanh ? -1 : 0;
        const dataset dp = sim::replace_one(data, idx, x, y == 1 ? low : 1.0);
        const glm_result a = learners::phased_sgd(data, o, random_key{});
        const glm_result b = learners::phased_sgd(dp, o, random_key{});
        for (std::size_t j = 0; j < i; ++j) CHECK(a.phase_averages[j] == b.phase_averages[j]);
        const double diff = (a.phase_averages[i] - b.phase_averages[i]).norm();
        const double bound = a.releases[i].sensitivity;
        CHECK(std::abs(bound - 4 * a.releases[i].eta) <= 1e-15);
        CHECK(diff <= bound * (1 + 1e-12));
        worst = std::max(worst, diff / bound);
        offset += sizes[i];
      }
    }
  }
  INFO("largest observed ratio " << worst);
  CHECK(worst > 0.05);  // the change is seen (the test is not vacuous)
}

TEST_CASE("glm Alg 2 output noise has the law N(0, tau_k^2 I)", "[glm]") {
  // ζ_k = w_k − w̄_k exactly (phase_averages holds w̄_k of the noisy run). Over R replicates and
  // d coordinates, Σ(ζ/τ_k)² ~ χ²_{Rd} exactly; two-sided test at total level 1e-6.
  const dataset data = sphere_data(32, 4, glm_link::sigmoid, 2);
  phased_sgd_options o;
  o.epsilon = 0.5;
  o.eta = 1;
  double stat = 0;
  const int R = 1500;
  for (int r = 0; r < R; ++r) {
    const glm_result g = learners::phased_sgd(data, o, random_key{9, std::uint64_t(r), 0});
    const double tau = 8 * g.releases.back().eta * std::sqrt(std::log(1 / o.delta)) / o.epsilon;
    stat += ((g.w - g.phase_averages.back()) / tau).squaredNorm();
  }
  const boost::math::chi_squared_distribution<double> chi(R * 4.0);
  CAPTURE(stat, R * 4);
  CHECK(stat >= boost::math::quantile(chi, 5e-7));
  CHECK(stat <= boost::math::quantile(boost::math::complement(chi, 5e-7)));
}

TEST_CASE("glm Alg 1 and Alg 9 dispatch on the paper's thresholds", "[glm]") {
  const dataset data = sphere_data(100, 4, glm_link::sigmoid, 3);
  phased_sgd_options o;
  o.theta_rank = 4;  // θ^{3/2}/n = 0.08
  o.epsilon = 0.1;
  CHECK(learners::dp_glm(data, o, random_key{}).branch == "Alg 2");
  o.epsilon = 0.07;
  o.jl_dim = 5;
  const glm_result r = learners::dp_glm(data, o, random_key{});
  CHECK(r.branch == "Alg 3");
  CHECK(r.w.size() == 4);
  // Alg 9 on degree-2 features (k = 15): θ/n = 0.15.
  o.theta_rank = 0;
  o.epsilon = 0.2;
  const glm_result k2 = learners::dp_kernel_glm(data, 2, o, random_key{});
  CHECK(k2.branch == "Alg 2");
  CHECK(k2.w.size() == 15);
  o.epsilon = 0.1;
  CHECK(learners::dp_kernel_glm(data, 2, o, random_key{}).branch == "Alg 3");
  const Eigen::VectorXd h = learners::kernel_predict(glm_link::sigmoid, k2.w, data.features, 2);
  CHECK(h.size() == 100);
  CHECK(((h.array() > 0) && (h.array() < 1)).all());
}

TEST_CASE("glm Alg 5 with the Alg 4 oracle stays within gamma sum eta_i n_i of the exact oracle",
          "[glm]") {
  // Noise off, η_i ≤ 2/β: the exact-oracle steps are non-expansive, and each Alg 4 step errs by
  // ≤ γ‖x‖ ≤ γ (Lemma 6), so after t steps the trajectories differ by ≤ γ Σ_{steps} η_i.
  const dataset data = sphere_data(32, 3, glm_link::tanh, 4);
  phased_sgd_options o;
  o.link = glm_link::tanh;
  o.add_noise = false;
  o.beta_smooth = 2;
  o.eta = 4;  // η_1 = 1 ≤ 2/β
  const glm_result exact = learners::moreau_phased_sgd(data, o, random_key{});
  o.oracle = learners::moreau_oracle_kind::algorithm4;
  o.gamma_oracle = 0.2;
  const glm_result pgd = learners::moreau_phased_sgd(data, o, random_key{});
  CHECK(pgd.oracle_steps == 3600);
  double budget = 0;
  for (const auto& r : pgd.releases) budget += 0.2 * r.eta * double(r.samples);
  CHECK((exact.w - pgd.w).norm() <= budget);
  // Sensitivity bookkeeping (proof of Thm 4): 4Bη_i + γη_i(n_i + 1); 0-γ for the exact oracle.
  CHECK(std::abs(pgd.releases[0].sensitivity - (4 + 0.2 * 17) * 1.0) <= 1e-14);
  CHECK(std::abs(exact.releases[0].sensitivity - 4.0) <= 1e-15);
  CHECK(exact.privacy.note.find("eta_1 = 1 <= 2/beta") != std::string::npos);
  // Alg 6 runs and reports its JL data.
  o.oracle = learners::moreau_oracle_kind::exact;
  o.jl_dim = 6;
  o.eta = 0;
  const glm_result j = learners::jl_moreau_phased_sgd(data, o, random_key{});
  CHECK(j.w.size() == 3);
  CHECK(j.w_reduced.size() == 6);
}

TEST_CASE("glm Alg 7 stays in the 2W ball and reports T compositions", "[glm]") {
  glm_population p;
  p.design = glm_design::coordinate(5, 5, glm_design_law::unit_sphere);
  p.teacher.link = glm_link::relu;
  p.teacher.noise = glm_label_noise::uniform;
  p.teacher.noise_scale = 0.2;
  p.teacher.w_star = vector::Constant(5, 0.4);
  random_stream fx(61, 0, 0), fy(61, 0, 4);
  const dataset data = p.sample(200, fx, fy);
  learners::relu_pgd_options o;
  o.W_norm = 1;
  o.B_bound = 1.2;
  o.epsilon = 0.05;  // large noise: the projection is active
  o.steps = 50;
  o.jl_dim = 8;
  const glm_result r = learners::relu_dp_pgd(data, o, random_key{3, 0, 0});
  CHECK(r.w_reduced.norm() <= 2 * o.W_norm * (1 + 1e-12));
  CHECK(r.privacy.compositions == 50);
  const double z = std::sqrt(2 * 50 * std::log(2 / o.delta)) / o.epsilon;
  CHECK(std::abs(r.privacy.noise_multiplier - z) <= 1e-12 * z);
  CHECK(std::abs(r.releases[0].sensitivity - 4 * (4 + 1.2) / 200) <= 1e-15);
  // Without JL, the iterate average itself is in the ball.
  o.use_jl = false;
  const glm_result r2 = learners::relu_dp_pgd(data, o, random_key{3, 0, 0});
  CHECK(r2.w.norm() <= 2 * o.W_norm * (1 + 1e-12));
  CHECK(r2.jl.size() == 0);
}

TEST_CASE("glm Alg 8 mean iterate follows the exact Gaussian-case recursion to 2E[yx]", "[glm]") {
  // x ~ N(0, I_d): ∇L^ℓ_𝒫(w) = w/2 − E[yx] exactly, and each chunk's gradient is
  // conditionally unbiased given w_{i−1} (disjoint chunks), so with noise off
  //   E[w_T] = (1 − (1 − η/2)^T) w*_ℓ,   w*_ℓ = 2E[yx]   (w_0 = 0)
  // exactly. Labels: clamp(ReLU(⟨w*, x⟩) + U[−h, h], ±B) (misspecified, opt > 0). The mean over
  // R independent replicates is compared with a t interval at 1 − 1e-6 per coordinate
  // (Bonferroni over d; a CLT approximation, w_T being a sum of many small martingale steps).
  glm_population p;
  p.design = glm_design::coordinate(3, 3, glm_design_law::gaussian);
  p.teacher.link = glm_link::relu;
  p.teacher.noise = glm_label_noise::uniform;
  p.teacher.noise_scale = 0.5;
  p.teacher.clamp = 1.5;
  p.teacher.w_star = Eigen::Vector3d(1, -0.5, 0.3);
  const vector target = 2 * p.label_correlation();
  learners::adaptive_gd_options o;
  o.add_noise = false;
  o.steps = 150;
  o.B_bound = 1.5;
  const int R = 150;
  const std::size_t n = 150 * 40;
  Eigen::MatrixXd outs(R, 3);
  for (int r = 0; r < R; ++r) {
    random_stream fx(71, std::uint64_t(r), 0), fy(71, std::uint64_t(r), 4);
    const dataset data = p.sample(n, fx, fy);
    outs.row(r) = learners::adaptive_batched_gd(data, o, random_key{}).w.transpose();
  }
  const double shrink = 1 - std::pow(1 - o.eta / 2, 150.0);
  const vector mean = outs.colwise().mean().transpose();
  for (Eigen::Index j = 0; j < 3; ++j) {
    const double sd = std::sqrt((outs.col(j).array() - mean(j)).square().sum() / (R - 1));
    const auto ci = sim::mean_interval(mean(j), sd, R, 1 - 1e-6 / 3);
    CAPTURE(j, mean(j), shrink * target(j), ci.lower, ci.upper);
    CHECK(ci.lower <= shrink * target(j));
    CHECK(ci.upper >= shrink * target(j));
  }
  // And the target is where GD converges: the bias (1 − η/2)^T‖w*_ℓ‖ is below 1e-3 here.
  CHECK((mean - target).norm() <= (1 - shrink) * target.norm() + 0.05);
  // Privacy bookkeeping with noise on: corrected sensitivity 2R_x(R_x‖w‖ + B)/m at w_0 = 0.
  o.add_noise = true;
  o.corrected_sensitivity = true;
  random_stream fx(71, 999, 0), fy(71, 999, 4);
  const dataset data = p.sample(n, fx, fy);
  const glm_result g = learners::adaptive_batched_gd(data, o, random_key{});
  CHECK(std::abs(g.releases[0].sensitivity - 2 * std::sqrt(3.0) * 1.5 / 40) <= 1e-15);
  CHECK(std::abs(g.privacy.noise_multiplier - std::sqrt(8 * std::log(1.25e5))) <= 1e-12);
  CHECK(g.privacy.compositions == 1);
  CHECK(g.features_over_bound > 0);  // Gaussian rows exceed √d about half the time
}

TEST_CASE("glm bad input throws domain_error", "[glm]") {
  const dataset data = sphere_data(16, 3, glm_link::sigmoid, 5);
  phased_sgd_options o;
  o.link = glm_link::relu;
  REQUIRE_THROWS_AS(learners::phased_sgd(data, o, random_key{}), std::domain_error);
  o.link = glm_link::sigmoid;
  o.delta = 1;
  REQUIRE_THROWS_WITH(learners::phased_sgd(data, o, random_key{}), Contains("options.delta"));
  o.delta = 1e-5;
  o.epsilon = 0;
  REQUIRE_THROWS_AS(learners::phased_sgd(data, o, random_key{}), std::domain_error);
  o.epsilon = 1;
  dataset big = data;
  big.features(0, 0) = 2;  // ‖x‖ > 1
  REQUIRE_THROWS_WITH(learners::phased_sgd(big, o, random_key{}), Contains("<= 1"));
  dataset bad_y = data;
  bad_y.labels(0) = 3;
  REQUIRE_THROWS_AS(learners::moreau_phased_sgd(bad_y, o, random_key{}), std::domain_error);
  o.w0 = vector::Zero(5);
  REQUIRE_THROWS_AS(learners::phased_sgd(data, o, random_key{}), std::domain_error);
  o.w0 = vector();
  o.oracle = learners::moreau_oracle_kind::algorithm4;  // default γ = B/(n ln n): T_o too large
  o.max_oracle_steps = 1000;
  REQUIRE_THROWS_WITH(learners::moreau_phased_sgd(data, o, random_key{}), Contains("gamma"));
  REQUIRE_THROWS_AS(learners::phase_sizes(1), std::domain_error);
  REQUIRE_THROWS_AS(learners::moreau_prox(glm_link::sigmoid, 0.5, 0, 1), std::domain_error);
  REQUIRE_THROWS_AS(learners::moreau_oracle(glm_link::sigmoid, 0.5, 1, 1, 0, 1), std::domain_error);
  REQUIRE_THROWS_AS(learners::glm_design::coordinate(3, 4, glm_design_law::unit_ball),
                    std::domain_error);
  REQUIRE_THROWS_AS(learners::jl_matrix(0, 3, *std::make_unique<random_stream>(1, 0, 0)),
                    std::domain_error);
  glm_teacher t;
  t.link = glm_link::relu;
  t.w_star = vector::Ones(3);
  REQUIRE_THROWS_AS(learners::glm_labels(data.features, t, *std::make_unique<random_stream>(1, 0, 0)),
                    std::domain_error);
  learners::adaptive_gd_options a;
  a.steps = 17;  // > n
  REQUIRE_THROWS_AS(learners::adaptive_batched_gd(data, a, random_key{}), std::domain_error);
  learners::relu_pgd_options r;
  r.W_norm = -1;
  REQUIRE_THROWS_AS(learners::relu_dp_pgd(data, r, random_key{}), std::domain_error);
  vector g(2);
  REQUIRE_THROWS_AS(learners::surrogate_gradient(glm_link::tanh, vector::Ones(3), vector::Ones(3), 0, g),
                    std::domain_error);
}
