// The Gaussian law of linearised HSGD (LKSP25 eq. (10)) against independent computations:
//  * the first two moments of the linear SDE (9) integrated as a dense matrix ODE in the
//    ORIGINAL coordinates (ṁ = −γ(Am − Σx̃), V̇ = −γ(AV + VA) + γ²(2PΣ + σ²I)/d with P taken
//    from m and V themselves) by Boost.Odeint at tight tolerance — no eigendecomposition, no
//    Volterra solver, no interpolation — for constant, polynomially decaying and step-decay γ;
//  * the closed form of a λ = 0 eigen-coordinate, w = γσ²(1 − e^{−2γδt})/(2dδ), m = e^{−γδt}x0;
//  * the Householder basis of the two-level Σ against a dense eigendecomposition;
//  * the interpolation error estimate against the error actually made; edges and bad input.
#include <Eigen/Dense>
#include <boost/numeric/odeint/integrate/integrate_adaptive.hpp>
#include <boost/numeric/odeint/stepper/generation.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_dopri5.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpkit/hsgd/law.hpp"
#include "support/test_util.hpp"
#include "support/random_linear.hpp"

namespace hs = dpkit::hsgd;
namespace vt = dpkit::volterra;
using Catch::Matchers::Contains;

namespace {

using dpkit::test::random_orthogonal;
using dpkit::test::random_vector;

// The linear SDE (9)'s mean and covariance in original coordinates, as one dense ODE.
struct dense_moments {
  Eigen::VectorXd m;
  Eigen::MatrixXd V;
  double P = NAN;
};

class dense_sde {
 public:
  dense_sde(Eigen::MatrixXd sigma,
            Eigen::VectorXd x0,
            Eigen::VectorXd xt,
            double delta,
            double label,
            double noise,
            vt::schedule gamma)
      : S_(std::move(sigma)),
        x0_(std::move(x0)),
        xt_(std::move(xt)),
        delta_(delta),
        label_(label),
        sigma2_(noise * noise),
        gamma_(std::move(gamma)) {
    d_ = static_cast<int>(S_.rows());
    A_ = S_ + delta_ * Eigen::MatrixXd::Identity(d_, d_);
  }

  double P_of(const Eigen::VectorXd& m, const Eigen::MatrixXd& V) const {
    const Eigen::VectorXd e = m - xt_;
    return 0.5 * (e.dot(S_ * e) + (S_ * V).trace() + label_);
  }

  // Moments at each requested time (increasing), integrating piecewise between the schedule's
  // breakpoints so that no step crosses a jump of γ.
  std::vector<dense_moments> at(const std::vector<double>& times) const {
    namespace odeint = boost::numeric::odeint;
    using state = std::vector<double>;
    const int d = d_;
    state x(static_cast<std::size_t>(d + d * d), 0.0);
    for (int i = 0; i < d; ++i) x[static_cast<std::size_t>(i)] = x0_[i];
    double now = 0;
    auto stepper = odeint::make_controlled(1e-13, 1e-13, odeint::runge_kutta_dopri5<state>());
    std::vector<dense_moments> out;
    const std::vector<double> cuts = gamma_.breakpoints(times.back());
    for (double target : times) {
      std::vector<double> stops;
      for (double b : cuts)
        if (b > now && b < target) stops.push_back(b);
      stops.push_back(target);
      for (double stop : stops) {
        // γ inside [now, stop): at the segment's end, the rate's left limit (γ may jump there).
        auto rhs = [&](const state& y, state& dy, double t) {
          const double g = t >= stop ? gamma_.left_limit(stop) : gamma_.rate(t);
          Eigen::Map<const Eigen::VectorXd> m(y.data(), d);
          Eigen::Map<const Eigen::MatrixXd> V(y.data() + d, d, d);
          Eigen::Map<Eigen::VectorXd> dm(dy.data(), d);
          Eigen::Map<Eigen::MatrixXd> dV(dy.data() + d, d, d);
          const double P = P_of(m, V);
          dm = -g * (A_ * m - S_ * xt_);
          dV = -g * (A_ * V + V * A_) +
               g * g / d * (2 * P * S_ + sigma2_ * Eigen::MatrixXd::Identity(d, d));
        };
        if (stop > now) odeint::integrate_adaptive(stepper, rhs, x, now, stop, (stop - now) / 64);
        now = stop;
      }
      dense_moments mo;
      mo.m = Eigen::Map<const Eigen::VectorXd>(x.data(), d);
      mo.V = Eigen::Map<const Eigen::MatrixXd>(x.data() + d, d, d);
      mo.P = P_of(mo.m, mo.V);
      out.push_back(mo);
    }
    return out;
  }

 private:
  Eigen::MatrixXd S_, A_;
  Eigen::VectorXd x0_, xt_;
  double delta_, label_, sigma2_;
  vt::schedule gamma_;
  int d_ = 0;
};

double max_rel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& ref) {
  return (a - ref).cwiseAbs().maxCoeff() / ref.cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE("hsgd law: mean and covariance and P_t equal the dense moments of the linear SDE (9)",
          "[hsgd][law]") {
  struct schedule_case {
    const char* name;
    vt::schedule gamma;
  };
  const std::vector<schedule_case> schedules = {
      {"constant(1.5)", vt::schedule::constant(1.5)},
      {"polynomial_decay(3, 2, 1)", vt::schedule::polynomial_decay(3, 2, 1)},
      {"step_decay(2, 0.5, 0.4)", vt::schedule::step_decay(2, 0.5, 0.4)},
  };
  const int d = 5;
  std::mt19937_64 rng(20040);
  const Eigen::MatrixXd Q = random_orthogonal(d, rng);
  // A repeated eigenvalue (one eigen-group of multiplicity 2) and a small one.
  const Eigen::VectorXd lambda = (Eigen::VectorXd(d) << 1.2, 0.7, 0.7, 0.3, 0.05).finished();
  const Eigen::MatrixXd sigma = Q * lambda.asDiagonal() * Q.transpose();
  const Eigen::VectorXd x0 = random_vector(d, rng, 1.0), xt = random_vector(d, rng, 0.7);
  const vt::problem_parameters prm{0.1, 0.05, 0.8};
  const double T = 1.2;
  const std::vector<double> times = {0.013, 0.3, 0.4, 0.4137, 0.77, 0.8, 1.2};
  for (const auto& sc : schedules) {
    CAPTURE(sc.name);
    const Eigen::MatrixXd sym = 0.5 * (sigma + sigma.transpose());
    const hs::gaussian_law law = hs::gaussian_law::from_covariance(sym, x0, xt, prm, sc.gamma, T);
    REQUIRE(law.status().converged());
    CHECK(law.group_count() == 4);
    CHECK(law.interpolation_error() < 1e-8);
    const dense_sde ref(sym, x0, xt, prm.ridge, prm.label_noise, prm.sigma, sc.gamma);
    const std::vector<dense_moments> mo = ref.at(times);
    const Eigen::MatrixXd U = law.basis().matrix();
    for (std::size_t i = 0; i < times.size(); ++i) {
      const double t = times[i];
      CAPTURE(t);
      const Eigen::VectorXd m = law.basis().from_eigen(law.mean(t));
      const Eigen::MatrixXd V = U * law.variances(t).asDiagonal() * U.transpose();
      const double em = (m - mo[i].m).cwiseAbs().maxCoeff() / mo[i].m.cwiseAbs().maxCoeff();
      const double eV = max_rel(V, mo[i].V);
      const double eP = dpkit::test::relative_error(law.P(t), mo[i].P);
      INFO("mean " << em << ", covariance " << eV << ", P " << eP);
      CHECK(em < 1e-10);
      CHECK(eV < 1e-8);
      CHECK(eP < 1e-8);
    }
  }
}

TEST_CASE("hsgd law: a zero eigenvalue has the closed-form variance and mean", "[hsgd][law]") {
  // λ = 0: ẇ = −2γδw + γ²σ²/d, so w = γσ²(1 − e^{−2γδt})/(2dδ); κ = δ and x⋆ = 0, so m =
  // e^{−γδt}x0.
  const double gamma = 2.5, delta = 0.3, sigma = 1.1;
  const std::vector<double> lambda = {0.0, 0.9, 0.4};
  const Eigen::VectorXd x0 = Eigen::Vector3d(0.7, -0.2, 1.5), xt = Eigen::Vector3d(0.4, 1.0, -0.3);
  const hs::gaussian_law law(hs::eigenbasis::identity(3), lambda, x0, xt, {delta, 0.0, sigma},
                             vt::schedule::constant(gamma), 2.0);
  const std::size_t g0 = static_cast<std::size_t>(law.group_of()[0]);
  CHECK(law.eigenvalue(g0) == 0.0);
  for (double t : {0.0, 0.001, 0.37, 1.0, 1.999, 2.0}) {
    CAPTURE(t);
    const double w = gamma * sigma * sigma * -std::expm1(-2 * gamma * delta * t) / (2 * 3 * delta);
    const double m = std::exp(-gamma * delta * t) * x0[0];
    CHECK(dpkit::test::relative_error(law.variances(t)[0], w) < 1e-9);
    CHECK(dpkit::test::relative_error(law.mean(t)[0], m) < 1e-14);
  }
}

TEST_CASE("hsgd law: the Householder two-level basis agrees with a dense eigendecomposition",
          "[hsgd][law]") {
  const int d = 6;
  std::mt19937_64 rng(77);
  const Eigen::VectorXd x0 = random_vector(d, rng, 2.0), xt = random_vector(d, rng, 0.4);
  const double lb = 1.0 / (12.0 * d), l1 = 0.25 + lb;
  const Eigen::VectorXd u = Eigen::VectorXd::Ones(d) / std::sqrt(double(d));
  const Eigen::MatrixXd sigma =
      lb * Eigen::MatrixXd::Identity(d, d) + (l1 - lb) * u * u.transpose();
  const vt::problem_parameters prm{0.1, 1e-5, 1.5};
  const vt::schedule gamma = vt::schedule::constant(3.0);
  const hs::gaussian_law a = hs::gaussian_law::lksp25_design(x0, xt, prm, gamma, 1.5);
  const hs::gaussian_law b = hs::gaussian_law::from_covariance(sigma, x0, xt, prm, gamma, 1.5);
  CHECK(a.basis().type() == hs::eigenbasis::kind::householder);
  CHECK(a.group_count() == 2);
  const Eigen::MatrixXd H = a.basis().matrix();
  CHECK((H.transpose() * H - Eigen::MatrixXd::Identity(d, d)).cwiseAbs().maxCoeff() < 1e-15);
  CHECK(std::abs(std::abs(H.col(0).dot(u)) - 1) < 1e-15);
  // Σ is diagonal in the reflection's basis.
  const Eigen::MatrixXd D = H.transpose() * sigma * H;
  CHECK((D - Eigen::MatrixXd(D.diagonal().asDiagonal())).cwiseAbs().maxCoeff() < 1e-16);
  const Eigen::MatrixXd Ua = a.basis().matrix(), Ub = b.basis().matrix();
  for (double t : {0.0, 0.1, 0.9, 1.5}) {
    CAPTURE(t);
    CHECK(dpkit::test::relative_error(a.P(t), b.P(t)) < 1e-12);
    const Eigen::MatrixXd Va = Ua * a.variances(t).asDiagonal() * Ua.transpose();
    const Eigen::MatrixXd Vb = Ub * b.variances(t).asDiagonal() * Ub.transpose();
    if (t > 0) CHECK(max_rel(Va, Vb) < 1e-12);
    CHECK((a.basis().from_eigen(a.mean(t)) - b.basis().from_eigen(b.mean(t))).norm() <
          1e-13 * x0.norm());
  }
}

TEST_CASE("hsgd law: the interpolation error estimate bounds the error made", "[hsgd][law]") {
  const std::vector<double> lambda = {2.0, 1.0, 0.5, 0.1};
  const Eigen::VectorXd x0 = Eigen::Vector4d(1, -1, 0.5, 2), xt = Eigen::Vector4d(0.3, 0.2, 0, 1);
  const vt::problem_parameters prm{0.05, 0.1, 1.0};
  const vt::schedule gamma = vt::schedule::polynomial_decay(4, 1, 1);
  hs::law_options coarse;
  coarse.grid_intervals = 8;
  const hs::gaussian_law rough(hs::eigenbasis::identity(4), lambda, x0, xt, prm, gamma, 3.0,
                               coarse);
  const hs::gaussian_law fine(hs::eigenbasis::identity(4), lambda, x0, xt, prm, gamma, 3.0);
  CHECK(fine.interpolation_error() < 1e-9);
  CHECK(rough.interpolation_error() > 1e-8);  // the coarse grid is visibly coarse
  double scale = 0;
  for (double t : fine.grid()) scale = std::max(scale, fine.variances(t).maxCoeff());
  double worst = 0;
  for (int i = 1; i < 300; ++i) {
    const double t = 3.0 * i / 300.0 + 1e-3 * std::sin(i);
    if (t > 3.0) continue;
    worst = std::max(worst, (rough.variances(t) - fine.variances(t)).cwiseAbs().maxCoeff() / scale);
  }
  INFO("actual " << worst << " vs estimate " << rough.interpolation_error());
  CHECK(worst <= rough.interpolation_error());
}

TEST_CASE("hsgd law: bad input is rejected with the check_* message", "[hsgd][law]") {
  const Eigen::VectorXd x0 = Eigen::Vector2d(1, 2), xt = Eigen::Vector2d(0, 1);
  const std::vector<double> lambda = {1.0, 0.5};
  const vt::schedule g = vt::schedule::constant(1.0);
  const vt::problem_parameters prm{0.1, 0.0, 1.0};
  const hs::eigenbasis I2 = hs::eigenbasis::identity(2);
  REQUIRE_THROWS_WITH(hs::gaussian_law(I2, std::vector<double>{1.0, -0.5}, x0, xt, prm, g, 1.0),
                      Contains("eigenvalues[1] is -0.5, but must be finite and >= 0"));
  REQUIRE_THROWS_WITH(hs::gaussian_law(I2, lambda, Eigen::Vector3d(1, 2, 3), xt, prm, g, 1.0),
                      Contains("x0.size() is 3, but must be d = 2"));
  REQUIRE_THROWS_WITH(hs::gaussian_law(I2, lambda, x0, xt, prm, g, 0.0),
                      Contains("horizon is 0, but must be finite and > 0"));
  REQUIRE_THROWS_WITH(hs::gaussian_law(I2, lambda, x0, xt, {-0.1, 0.0, 1.0}, g, 1.0),
                      Contains("params.ridge is -0.1"));
  REQUIRE_THROWS_WITH(hs::eigenbasis::dense(Eigen::Matrix2d::Ones()), Contains("max |U^T U - I|"));
  REQUIRE_THROWS_AS(hs::eigenbasis::householder(Eigen::Vector2d::Zero()), std::domain_error);
  const hs::gaussian_law law(I2, lambda, x0, xt, prm, g, 1.0);
  REQUIRE_THROWS_WITH(law.mean(1.5), Contains("gaussian_law::mean: t is 1.5, but must be in [0, "
                                              "horizon] = [0, 1]"));
  REQUIRE_THROWS_AS(law.variances(-1e-9), std::domain_error);
  REQUIRE_THROWS_AS(law.P(std::nan("")), std::domain_error);
  std::vector<double> wrong(3);
  REQUIRE_THROWS_WITH(law.group_variances(0.5, wrong), Contains("out.size() is 3"));
}
