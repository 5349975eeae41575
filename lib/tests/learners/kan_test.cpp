// The KAN of WSK+26 (kan.hpp): the B-spline basis against two independent constructions (the
// closed-form cardinal cubic B-spline, and the general Cox–de Boor recursion on the knot vector
// written out below), partition of unity, sup norms; the activation constants; the network's
// gradient and Hessian against central finite differences, the Hessian's block-diagonal
// rank-one structure and Lemma B.1's spectral norm; training through the existing algorithms;
// the hard-margin solver on instances with a known margin; the NTK margin; bad input.
//
// Finite-difference tolerances. Central differences with step h_j = h·max(1, |w_j|),
// h = ε^{1/3} ≈ 6.1e-6 have truncation error ≤ h²/6·max|∂³| and rounding error ≈ ε|f|/h
// ≈ 4e-11·|f|. The network is C² in W for cubic splines (h″ is continuous, h‴ jumps at knots),
// so the gradient's differences are O(h²) ≈ 4e-11 times a third derivative of size O(1–100)
// (b‴ = ±1/h_knot³ ≈ 16 at h_knot = 0.4); the Hessian, from differences of the gradient, is
// only Lipschitz across a knot, where the central difference errs by up to h·|jump of ∂³| —
// O(1e-4) if a knot falls inside the stencil, which happens with probability ~1e-5 per unit at
// the fixed test points. Measured worst errors (4 seeds × tanh/sigmoid × 6 examples, m = 4,
// d = 3, p = 8, all 96 coordinates): 8.8e-11 for loss gradients, 8.0e-11 for loss-Hessian and
// 1.6e-10 for network-Hessian entries (relative to max(1, max |H|)). kFdGradient = 1e-7 and
// kFdHessian = 1e-6 (mollified, |Δ|/max(1, |x|)) keep a factor ≥ 1000 to those and leave room
// for one knot inside a stencil, while a wrong factor (1/√d, 1/√m), sign or a missing σ″ or h″
// term is an O(1e-2 .. 1) error.
#include "dpkit/learners/kan.hpp"

#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "dpkit/core/random.hpp"
#include "dpkit/core/tolerance.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/data.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using dpkit::random_stream;
using dpkit::sim::dataset;
using dpkit::learners::hard_margin;
using dpkit::learners::kan_activation;
using dpkit::learners::kan_model;
using dpkit::learners::kan_options;
using dpkit::learners::uniform_bspline;
using dpkit::sim::vector;

namespace {

using dpkit::test::kNan;
constexpr double kFdGradient = 1e-7;
constexpr double kFdHessian = 1e-6;
using dpkit::test::kFdStep;

// ---- independent constructions of the basis ----------------------------------------------------

// The cardinal cubic B-spline N_3 on [0, 4] and its first two derivatives, piece by piece
// (de Boor, A Practical Guide to Splines, ch. IX; e.g. N_3(x) = x³/6 on [0, 1)).
double cardinal_cubic(double x, int r) {
  if (x < 0 || x >= 4) return 0;
  if (x < 1) return r == 0 ? x * x * x / 6 : r == 1 ? x * x / 2 : x;
  if (x < 2)
    return r == 0   ? (-3 * x * x * x + 12 * x * x - 12 * x + 4) / 6
           : r == 1 ? (-9 * x * x + 24 * x - 12) / 6
                    : -3 * x + 4;
  if (x < 3)
    return r == 0   ? (3 * x * x * x - 24 * x * x + 60 * x - 44) / 6
           : r == 1 ? (9 * x * x - 48 * x + 60) / 6
                    : 3 * x - 8;
  const double u = 4 - x;
  return r == 0 ? u * u * u / 6 : r == 1 ? -u * u / 2 : u;
}

// The Cox–de Boor recursion on a general knot vector, in its textbook recursive form (with the
// convention 0/0 = 0), and the general derivative formula
// B′_{i,k} = k/(t_{i+k} − t_i)·B_{i,k−1} − k/(t_{i+k+1} − t_{i+1})·B_{i+1,k−1}, applied twice for
// B″ (de Boor ch. IX–X). Independent of the library's uniform-knot triangle.
struct cox_de_boor {
  std::vector<double> t;
  double b(int i, int k, double v) const {
    if (k == 0) return t[i] <= v && v < t[i + 1] ? 1.0 : 0.0;
    const double l = t[i + k] - t[i], r = t[i + k + 1] - t[i + 1];
    return (l > 0 ? (v - t[i]) / l * b(i, k - 1, v) : 0.0) +
           (r > 0 ? (t[i + k + 1] - v) / r * b(i + 1, k - 1, v) : 0.0);
  }
  double derivative(int i, int k, int order, double v) const {
    if (order == 0) return b(i, k, v);
    const double l = t[i + k] - t[i], r = t[i + k + 1] - t[i + 1];
    return (l > 0 ? k / l * derivative(i, k - 1, order - 1, v) : 0.0) -
           (r > 0 ? k / r * derivative(i + 1, k - 1, order - 1, v) : 0.0);
  }
};

cox_de_boor knots_of(const uniform_bspline& basis) {
  cox_de_boor c;
  const long last = static_cast<long>(basis.grid_size()) + 2L * basis.degree();
  for (long i = 0; i <= last; ++i) c.t.push_back(basis.knot(i));
  return c;
}

// ---- models -------------------------------------------------------------------------------------

std::shared_ptr<const dataset> margin_data(std::size_t n, std::size_t d, std::uint64_t seed) {
  random_stream s(seed, 0, 0);
  vector v = vector::Ones(static_cast<Eigen::Index>(d));
  return std::make_shared<const dataset>(dpkit::sim::unit_ball_margin_data(n, v, 0.1, s));
}

kan_model make_kan(std::size_t n, std::size_t d, const kan_options& o, std::uint64_t seed = 7) {
  random_stream s(seed, 0, 1);
  const uniform_bspline basis(o.grid_size, o.spline_degree, o.grid_lower, o.grid_upper);
  return kan_model(margin_data(n, d, seed), o,
                   dpkit::learners::kan_second_layer(o.width, basis.size(), s));
}

vector random_weights(const kan_model& f, std::uint64_t seed) {
  random_stream s(seed, 0, 1);
  return dpkit::learners::kan_initial_weights(f.width(), f.input_dimension(), f.basis_size(), s);
}

double mollified_max(const vector& a, const vector& b) {
  double worst = 0;
  for (Eigen::Index j = 0; j < a.size(); ++j)
    worst = std::fmax(worst, dpkit::test::mollified_error(a(j), b(j)));
  return worst;
}

double step_for(double x) {
  return kFdStep * std::fmax(1, std::abs(x));
}

}  // namespace

// ---- basis
// ----------------------------------------------------------------------------------------

TEST_CASE("uniform_bspline: cubic basis equals the closed-form cardinal cubic B-spline", "[kan]") {
  for (const double lower : {-1.0, -2.5}) {
    const uniform_bspline basis(5, 3, lower, lower + 2);  // h = 0.4
    const double h = basis.spacing();
    REQUIRE(basis.size() == 8);
    CHECK_THAT(h, WithinRel(0.4, 1e-15));
    // A grid of points across and beyond the support, including knots (v = t_q exactly).
    for (int s = -10; s <= 170; ++s) {
      const double v = basis.knot(0) + s * h / 12;
      for (int r = 0; r <= 2; ++r) {
        const vector b = basis.evaluate(v, r);
        for (std::size_t q = 0; q < basis.size(); ++q) {
          const double expected =
              cardinal_cubic((v - basis.knot(static_cast<long>(q))) / h, r) / std::pow(h, r);
          CAPTURE(v, r, q);
          // Values O(1) (×h^{−r} for derivatives): rounding of (v − t_q)/h and the recursion.
          CHECK_THAT(b(static_cast<Eigen::Index>(q)), WithinAbs(expected, 1e-13 / std::pow(h, r)));
        }
      }
    }
  }
}

TEST_CASE("uniform_bspline: degrees 3 to 7 equal the general Cox-de Boor recursion", "[kan]") {
  for (const int k : {3, 4, 5, 7}) {
    for (const std::size_t grid : {1u, 4u, 9u}) {
      const uniform_bspline basis(grid, k, -1, 1);
      const cox_de_boor ref = knots_of(basis);
      random_stream s(11, static_cast<std::uint64_t>(k), grid);
      for (int trial = 0; trial < 40; ++trial) {
        const double v =
            s.uniform(basis.knot(0) - 0.1, basis.knot(static_cast<long>(grid) + 2 * k) + 0.1);
        for (int r = 0; r <= 2; ++r) {
          const vector b = basis.evaluate(v, r);
          for (std::size_t q = 0; q < basis.size(); ++q) {
            CAPTURE(k, grid, v, r, q);
            const double expected = ref.derivative(static_cast<int>(q), k, r, v);
            CHECK_THAT(b(static_cast<Eigen::Index>(q)),
                       WithinAbs(expected, 1e-12 * std::pow(basis.spacing(), -r)));
          }
        }
      }
    }
  }
}

TEST_CASE("uniform_bspline: nonzero up to a derivative order is the full triangle's prefix",
          "[kan]") {
  // The per-unit hot path asks only for the orders it uses; the orders it asks for must be the
  // same bits as the full evaluation (every training result depends on them), the rest 0.
  using values_t = std::array<double, uniform_bspline::kMaxDegree + 1>;
  for (const int k : {3, 4, 7}) {
    const uniform_bspline basis(5, k, -1, 1);
    random_stream s(12, static_cast<std::uint64_t>(k), 0);
    for (int trial = 0; trial < 200; ++trial) {
      const double v = s.uniform(basis.knot(0) - 0.1, basis.knot(5 + 2 * k) + 0.1);
      values_t f0{}, f1{}, f2{};
      const long first = basis.nonzero(v, f0, f1, f2);
      for (int top = 0; top <= 2; ++top) {
        values_t d0{}, d1{}, d2{};
        d1.fill(7), d2.fill(7);  // stale values: must come back 0 above `top`
        CAPTURE(k, v, top);
        CHECK(basis.nonzero(v, d0, d1, d2, top) == first);
        CHECK(d0 == f0);
        CHECK(d1 == (top >= 1 ? f1 : values_t{}));
        CHECK(d2 == (top >= 2 ? f2 : values_t{}));
      }
    }
  }
}

TEST_CASE("uniform_bspline: nonnegative partition of unity on [lower, upper], zero outside",
          "[kan]") {
  for (const int k : {3, 5}) {
    const uniform_bspline basis(6, k, -1, 1);
    for (int s = 0; s <= 600; ++s) {
      const double v = -1 + s / 300.0;
      const vector b = basis.evaluate(v, 0);
      CAPTURE(k, v);
      CHECK(b.minCoeff() >= 0);
      CHECK_THAT(b.sum(), WithinAbs(1.0, 4 * dpkit::tol::kMachineEps));
      // Σ b′ = Σ b″ = 0 (derivatives of the constant 1).
      CHECK_THAT(basis.evaluate(v, 1).sum(), WithinAbs(0.0, 1e-13));
      CHECK_THAT(basis.evaluate(v, 2).sum(), WithinAbs(0.0, 1e-12));
      // At most k + 1 nonzero.
      CHECK((b.array() != 0).count() <= k + 1);
    }
    const double far = basis.knot(6 + 2 * k) + 1e-9;
    CHECK(basis.evaluate(far, 0).isZero(0));
    CHECK(basis.evaluate(basis.knot(0) - 1e-9, 2).isZero(0));
  }
}

TEST_CASE("uniform_bspline: sup norms are 2/3, 2/(3h), 2/h^2 for cubics and bound samples",
          "[kan]") {
  const uniform_bspline cubic(5, 3, -1, 1);
  const double h = cubic.spacing();
  CHECK_THAT(cubic.sup_norm(0), WithinRel(2.0 / 3, 1e-14));
  CHECK_THAT(cubic.sup_norm(1), WithinRel(2 / (3 * h), 1e-14));
  CHECK_THAT(cubic.sup_norm(2), WithinRel(2 / (h * h), 1e-14));
  for (const int k : {4, 6}) {
    const uniform_bspline basis(3, k, -1, 1);
    for (int r = 0; r <= 2; ++r) {
      double sampled = 0;
      for (int s = 0; s <= 20000; ++s) {
        const double v = basis.knot(0) + s * (basis.knot(3 + 2 * k) - basis.knot(0)) / 20000;
        sampled = std::fmax(sampled, basis.evaluate(v, r).cwiseAbs().maxCoeff());
      }
      CAPTURE(k, r);
      CHECK(basis.sup_norm(r) >= sampled * (1 - 1e-14));
      CHECK_THAT(basis.sup_norm(r), WithinRel(sampled, 1e-6));
    }
  }
}

TEST_CASE("activation sup norms match dense sampling of tanh and the logistic function", "[kan]") {
  for (const auto a : {kan_activation::tanh, kan_activation::sigmoid}) {
    // σ′ and σ″ from closed forms written here (not the library's stable evaluation).
    double d1 = 0, d2 = 0;
    for (int s = -200000; s <= 200000; ++s) {
      const double x = s * 1e-4;
      if (a == kan_activation::tanh) {
        const double t = std::tanh(x);
        d1 = std::fmax(d1, 1 - t * t);
        d2 = std::fmax(d2, std::abs(-2 * t * (1 - t * t)));
      } else {
        const double g = 1 / (1 + std::exp(-x));
        d1 = std::fmax(d1, g * (1 - g));
        d2 = std::fmax(d2, std::abs(g * (1 - g) * (1 - 2 * g)));
      }
    }
    const auto b = dpkit::learners::sup_norms(a);
    CAPTURE(dpkit::learners::to_string(a));
    CHECK(b.value == 1);
    CHECK_THAT(b.first, WithinRel(d1, 1e-9));
    CHECK(b.second >= d2);
    CHECK_THAT(b.second, WithinRel(d2, 1e-7));  // sampling at 1e-4 near a smooth maximum
  }
}

// ---- the network: derivatives
// ------------------------------------------------------------------------

TEST_CASE("kan_model: loss gradient equals central differences", "[kan]") {
  for (const auto a : {kan_activation::tanh, kan_activation::sigmoid}) {
    kan_options o;
    o.width = 4;
    o.activation = a;
    const kan_model f = make_kan(6, 3, o);
    REQUIRE(f.dimension() == 4 * 3 * 8);
    const vector w = random_weights(f, 3);
    for (std::size_t i = 0; i < f.examples(); ++i) {
      vector g(w.size()), fd(w.size());
      f.gradient(i, w, g);
      for (Eigen::Index j = 0; j < w.size(); ++j) {
        vector plus = w, minus = w;
        plus(j) += step_for(w(j));
        minus(j) -= step_for(w(j));
        fd(j) = (f.loss(i, plus) - f.loss(i, minus)) / (plus(j) - minus(j));
      }
      CAPTURE(dpkit::learners::to_string(a), i);
      CHECK(mollified_max(g, fd) < kFdGradient);
    }
  }
}

TEST_CASE("kan_model: the network Hessian is block diagonal with blocks beta_j h h^T", "[kan]") {
  kan_options o;
  o.width = 3;
  const kan_model f = make_kan(4, 2, o);
  const vector w = random_weights(f, 5);
  const auto D = static_cast<Eigen::Index>(f.dimension());
  const auto dp = static_cast<Eigen::Index>(f.input_dimension() * f.basis_size());
  for (Eigen::Index i = 0; i < 4; ++i) {
    const vector x = f.data().features.row(i).transpose();
    // Central differences of ∇f column by column.
    Eigen::MatrixXd fd(D, D);
    for (Eigen::Index j = 0; j < D; ++j) {
      vector plus = w, minus = w, gp(D), gm(D);
      plus(j) += step_for(w(j));
      minus(j) -= step_for(w(j));
      f.output_gradient(plus, x, gp);
      f.output_gradient(minus, x, gm);
      fd.col(j) = (gp - gm) / (plus(j) - minus(j));
    }
    vector beta(3), h(dp);
    f.output_hessian_scales(w, x, beta);
    f.features(x, h);
    Eigen::MatrixXd exact = Eigen::MatrixXd::Zero(D, D);
    for (Eigen::Index j = 0; j < 3; ++j)
      exact.block(j * dp, j * dp, dp, dp) = beta(j) * h * h.transpose();
    CAPTURE(i);
    for (Eigen::Index a = 0; a < 3; ++a)
      for (Eigen::Index b = 0; b < 3; ++b) {
        // Block (a, b) of the differences: exactly 0 off the diagonal (unit b's gradient does
        // not read w_a at all), β_a h hᵀ on it.
        const Eigen::MatrixXd blk = fd.block(a * dp, b * dp, dp, dp);
        if (a != b) {
          CHECK(blk.isZero(0));
        } else {
          const Eigen::MatrixXd ex = exact.block(a * dp, a * dp, dp, dp);
          CHECK((blk - ex).cwiseAbs().maxCoeff() / std::fmax(1, ex.cwiseAbs().maxCoeff()) <
                kFdHessian);
        }
      }
    // Lemma B.1: ‖∇²f‖₂ = max_j |β_j|‖h‖², against a dense eigendecomposition.
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(exact);
    CHECK_THAT(f.output_hessian_norm(w, x),
               WithinRel(eig.eigenvalues().cwiseAbs().maxCoeff(), 1e-12));
    // Rank one per block.
    CHECK((eig.eigenvalues().array().abs() > 1e-12).count() <= 3);
  }
}

TEST_CASE("kan_model: loss Hessian and Hessian-vector products equal central differences",
          "[kan]") {
  for (const auto a : {kan_activation::tanh, kan_activation::sigmoid}) {
    kan_options o;
    o.width = 3;
    o.grid_size = 4;
    o.activation = a;
    const kan_model f = make_kan(5, 2, o, 13);
    const vector w = random_weights(f, 17);
    const auto D = w.size();
    random_stream s(19, 0, 0);
    for (std::size_t i = 0; i < f.examples(); ++i) {
      const Eigen::MatrixXd H = f.hessian(i, w);
      CHECK((H - H.transpose()).cwiseAbs().maxCoeff() == 0);
      Eigen::MatrixXd fd(D, D);
      for (Eigen::Index j = 0; j < D; ++j) {
        vector plus = w, minus = w, gp(D), gm(D);
        plus(j) += step_for(w(j));
        minus(j) -= step_for(w(j));
        f.gradient(i, plus, gp);
        f.gradient(i, minus, gm);
        fd.col(j) = (gp - gm) / (plus(j) - minus(j));
      }
      CAPTURE(dpkit::learners::to_string(a), i);
      CHECK((H - fd).cwiseAbs().maxCoeff() / std::fmax(1, H.cwiseAbs().maxCoeff()) < kFdHessian);
      // hessian_vector agrees with the dense matrix (same formula, different evaluation order).
      vector v(D), hv(D);
      s.fill_normal({v.data(), static_cast<std::size_t>(D)});
      f.hessian_vector(i, w, v, hv);
      CHECK(mollified_max(hv, H * v) < dpkit::tol::kTol3);
    }
  }
}

TEST_CASE("kan_model: output, describe and the loss at extreme margins", "[kan]") {
  kan_options o;
  o.width = 2;
  const kan_model f = make_kan(3, 2, o);
  CHECK(f.describe() ==
        "KAN (n = 3, d = 2, m = 2, p = 8: cubic B-splines, G = 5 on [-1, 1], tanh)");
  const vector w = random_weights(f, 1);
  for (std::size_t i = 0; i < 3; ++i) {
    const vector x = f.data().features.row(static_cast<Eigen::Index>(i)).transpose();
    const double y = f.data().labels(static_cast<Eigen::Index>(i));
    CHECK_THAT(f.loss(i, w), WithinRel(std::log1p(std::exp(-y * f.output(w, x))), 1e-14));
  }
  // f_W(x) = (1/√m) Σ_j ⟨c_j, h(σ(s_j))⟩ written out directly.
  const vector x = f.data().features.row(0).transpose();
  vector h(16);
  f.features(x, h);
  double direct = 0;
  for (Eigen::Index j = 0; j < 2; ++j) {
    const double s = w.segment(j * 16, 16).dot(h) / std::sqrt(2.0);
    direct += f.second_layer().segment(j * 8, 8).dot(f.basis().evaluate(std::tanh(s), 0));
  }
  CHECK_THAT(f.output(w, x), WithinRel(direct / std::sqrt(2.0), 1e-14));
  // A huge second layer gives margins of ±1e3: the loss stays finite (log1p on the safe side).
  const kan_model big(std::make_shared<const dataset>(f.data()), o, 1e4 * f.second_layer());
  for (std::size_t i = 0; i < 3; ++i) {
    const double l = big.loss(i, w);
    CHECK(std::isfinite(l));
    CHECK(l >= 0);
  }
}

TEST_CASE("kan_model: trained by the existing noisy-gradient algorithms", "[kan]") {
  kan_options o;
  o.width = 8;
  const kan_model f = make_kan(40, 2, o, 23);
  const vector w0 = random_weights(f, 29);
  dpkit::sim::noisy_gradient_options gd;
  gd.batches = dpkit::sim::batch_rule::full;
  gd.steps = 200;
  gd.learning_rate = 0.5;
  const vector w_gd = dpkit::sim::run_noisy_gradient(f, gd, w0, {1, 0, 0});
  CHECK(f.empirical_risk(w_gd) < 0.5 * f.empirical_risk(w0));
  // DP-λCGD (WSK+26 Alg. 1): shuffled batches, clipping, correlated noise, ball projection.
  dpkit::sim::noisy_gradient_options dp;
  dp.batches = dpkit::sim::batch_rule::shuffled;
  dp.batch_size = 10;
  dp.steps = 50;
  dp.learning_rate = 0.2;
  dp.noise = 0.05;
  dp.correlation = 0.5;
  dp.clip = 1;
  dp.constraint = dpkit::sim::projection::ball(w0, 5);
  const vector w_dp = dpkit::sim::run_noisy_gradient(f, dp, w0, {1, 0, 0});
  CHECK((w_dp - w0).norm() <= 5 * (1 + 1e-12));
  CHECK(std::isfinite(f.empirical_risk(w_dp)));
}

// ---- hard margin
// ------------------------------------------------------------------------------------

TEST_CASE("hard_margin: instances with a known margin", "[kan]") {
  SECTION("two orthogonal unit vectors: gamma = 1/sqrt(2), u = (1, 1)/sqrt(2)") {
    const Eigen::Matrix2d phi = Eigen::Matrix2d::Identity();
    const auto r = hard_margin(phi);
    CHECK(r.converged());
    CHECK_THAT(r.gamma, WithinRel(1 / std::sqrt(2.0), 1e-9));
    CHECK_THAT(r.direction(0), WithinRel(1 / std::sqrt(2.0), 1e-9));
    CHECK_THAT(r.direction(1), WithinRel(1 / std::sqrt(2.0), 1e-9));
  }
  SECTION("e_1, e_2, e_3 with interior and duplicate points: gamma = 1/sqrt(3)") {
    Eigen::MatrixXd phi(3, 6);
    phi << 1, 0, 0, 2, 1, 0,  //
        0, 1, 0, 2, 1, 1,     //
        0, 0, 1, 2, 1, 0;
    const auto r = hard_margin(phi);
    CHECK(r.converged());
    CHECK_THAT(r.gamma, WithinRel(1 / std::sqrt(3.0), 1e-9));
    CHECK(r.gamma <= r.gamma_upper);
    // Dual weights 1/3 on the three vertices (the duplicate e_2 may share its weight).
    CHECK_THAT(r.weights(0), WithinAbs(1.0 / 3, 1e-8));
    CHECK_THAT(r.weights(1) + r.weights(5), WithinAbs(1.0 / 3, 1e-8));
    CHECK_THAT(r.weights(3) + r.weights(4), WithinAbs(0.0, 1e-8));
  }
  SECTION("symmetric pairs (1, +-a) and (2, +-b): the separator is e_1, gamma = 1") {
    for (const double a : {0.1, 1.0, 7.0}) {
      Eigen::MatrixXd phi(2, 4);
      phi << 1, 1, 2, 2, a, -a, 3, -3;
      const auto r = hard_margin(phi);
      CAPTURE(a);
      CHECK(r.converged());
      CHECK_THAT(r.gamma, WithinRel(1.0, 1e-9));
      CHECK_THAT(r.direction(0), WithinRel(1.0, 1e-9));
      CHECK_THAT(r.direction(1), WithinAbs(0.0, 1e-4));
    }
  }
  SECTION("XOR-like labels x = (+-1, 1) with y = +1 and x = (+-1, -1) with y = -1") {
    // φ_i = y_i x_i = (±1, 1) twice: the max-margin direction is (0, 1) with margin 1.
    Eigen::MatrixXd phi(2, 4);
    phi << 1, -1, -1, 1, 1, 1, 1, 1;
    const auto r = hard_margin(phi);
    CHECK_THAT(r.gamma, WithinRel(1.0, 1e-9));
  }
  SECTION("not separable: 0 in the convex hull") {
    Eigen::MatrixXd phi(2, 3);
    phi << 1, -1, 0, 0, 0.5, -0.5;
    const auto r = hard_margin(phi);
    CHECK(!r.separable());
    CHECK(r.converged());
    CHECK(r.gamma_upper <= 1e-9 * (1 + 1e-12));  // tolerance × max ‖φ_i‖ = 1e-9
    CHECK_THAT(r.message, Contains("not separable"));
  }
  SECTION("a random instance: the bracket is certified and tight") {
    random_stream s(31, 0, 0);
    Eigen::MatrixXd phi(20, 60);
    for (Eigen::Index j = 0; j < phi.cols(); ++j)
      for (Eigen::Index i = 0; i < phi.rows(); ++i) phi(i, j) = s.normal() + (i == 0 ? 3 : 0);
    const auto r = hard_margin(phi);
    CHECK(r.converged());
    CHECK_THAT(r.direction.norm(), WithinRel(1.0, 1e-14));
    CHECK_THAT((phi.transpose() * r.direction).minCoeff(), WithinRel(r.gamma, 1e-13));
    CHECK(r.gamma_upper >= r.gamma);
    CHECK(r.gamma_upper - r.gamma <= 1e-9 * r.gamma_upper);
    // KKT: every support point (α_i > 0) lies on the margin.
    for (Eigen::Index i = 0; i < phi.cols(); ++i)
      if (r.weights(i) > 1e-6) CHECK_THAT(phi.col(i).dot(r.direction), WithinRel(r.gamma, 1e-6));
  }
}

TEST_CASE("ntk_margin: a KAN on separable data has a positive certified NTK margin", "[kan]") {
  kan_options o;
  o.width = 8;
  const kan_model f = make_kan(40, 2, o, 37);
  const vector w0 = random_weights(f, 41);
  const auto r = dpkit::learners::ntk_margin(f, w0);
  CHECK(r.converged());
  CHECK(r.separable());
  const Eigen::MatrixXd phi = f.ntk_features(w0);
  CHECK_THAT((phi.transpose() * r.direction).minCoeff(), WithinRel(r.gamma, 1e-12));
  CHECK(r.gamma <= r.gamma_upper);
  // φ_i = y_i ∇f(x_i) column by column.
  vector g(phi.rows());
  f.output_gradient(w0, f.data().features.row(5).transpose(), g);
  CHECK(mollified_max(phi.col(5), f.data().labels(5) * g) == 0);
}

// ---- bad input
// ------------------------------------------------------------------------------------------

TEST_CASE("kan: bad input is rejected with the documented messages", "[kan]") {
  CHECK_THROWS_WITH(uniform_bspline(0, 3, -1, 1), Contains("grid_size is 0, but must be >= 1"));
  CHECK_THROWS_WITH(uniform_bspline(5, 2, -1, 1), Contains("degree is 2, but must be in [3, 7]"));
  CHECK_THROWS_WITH(uniform_bspline(5, 3, 1, 1), Contains("upper is 1, but must be > lower"));
  CHECK_THROWS_AS(uniform_bspline(5, 3, kNan, 1), std::domain_error);
  const uniform_bspline basis(5, 3, -1, 1);
  CHECK_THROWS_WITH(basis.evaluate(0.0, 3), Contains("derivative is 3"));
  CHECK_THROWS_WITH(basis.evaluate(kNan, 0), Contains("v is nan"));

  auto data = margin_data(4, 2, 1);
  kan_options o;
  o.width = 2;
  const vector c = vector::Ones(16);
  CHECK_THROWS_WITH(kan_model(nullptr, o, c), Contains("data is null"));
  CHECK_THROWS_WITH(kan_model(data, o, vector::Ones(3)), Contains("second_layer.size() is 3"));
  kan_options narrow = o;
  narrow.grid_lower = -0.5;
  CHECK_THROWS_WITH(kan_model(data, narrow, c), Contains("the range of tanh"));
  kan_options sigmoid = o;
  sigmoid.activation = kan_activation::sigmoid;
  sigmoid.grid_lower = 0;
  CHECK_THROWS_WITH(kan_model(data, sigmoid, c), Contains("features("));
  dataset bad = *data;
  bad.labels(1) = 0.5;
  CHECK_THROWS_WITH(kan_model(std::make_shared<const dataset>(bad), o, c),
                    Contains("label 1 is 0.5, but must be -1 or +1"));
  bad = *data;
  bad.features(2, 1) = 1.5;
  CHECK_THROWS_WITH(kan_model(std::make_shared<const dataset>(bad), o, c),
                    Contains("features(2, 1) is 1.5, but must be in the grid [-1, 1]"));
  kan_options zero = o;
  zero.width = 0;
  CHECK_THROWS_WITH(kan_model(data, zero, c), Contains("options.width is 0"));

  const kan_model f(data, o, c);
  CHECK_THROWS_WITH(f.output(vector::Zero(3), vector::Zero(2)), Contains("w.size() is 3"));
  CHECK_THROWS_WITH(f.hessian(9, vector::Zero(32)), Contains("i is 9"));
  CHECK_THROWS_WITH(dpkit::learners::ntk_margin(f, vector::Zero(5)), Contains("w0.size() is 5"));
  CHECK_THROWS_WITH(hard_margin(Eigen::MatrixXd(2, 0)), Contains("points.cols() is 0"));
  Eigen::MatrixXd nan_points = Eigen::MatrixXd::Ones(2, 2);
  nan_points(1, 0) = kNan;
  CHECK_THROWS_WITH(hard_margin(nan_points), Contains("points(1, 0) is nan"));
  dpkit::learners::margin_options mo;
  mo.tolerance = 0;
  CHECK_THROWS_WITH(hard_margin(Eigen::MatrixXd::Ones(2, 2), mo), Contains("options.tolerance"));
  random_stream s(1, 0, 0);
  CHECK_THROWS_WITH(dpkit::learners::kan_second_layer(0, 8, s), Contains("width is 0"));
}
