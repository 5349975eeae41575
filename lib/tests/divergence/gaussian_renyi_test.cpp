#include "dpkit/divergence/gaussian_renyi.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "dpkit/core/csv.hpp"
#include "dpkit/core/tolerance.hpp"
#include "dpkit/divergence/rdp.hpp"
#include "support/check_accuracy.hpp"

using Catch::Matchers::Contains;
using dpkit::test::check_accuracy_case;
using dpkit::test::relative_error;
using namespace dpkit::tol;
namespace dv = dpkit::divergence;

TEST_CASE("Gaussian Renyi divergences match 50-digit quadrature",
          "[divergence][renyi][reference]") {
  for (const char* id : {"renyi_divergence_1d", "renyi_divergence_3d"}) {
    SECTION(id) {
      check_accuracy_case(id);
    }
  }
}

TEST_CASE("argument order: D(P||Q) uses M = alpha V_Q + (1 - alpha) V_P", "[divergence][renyi]") {
  // Independent 1-D quadrature (6 digits): LKSP25 Lemma C.2's formula gives
  // 1.129679 for the first case, which is D(Q||P).
  const dv::univariate_normal p{0.0, 1.0}, q{0.5, 1.3 * 1.3};
  CHECK(std::abs(dv::renyi_divergence(p, q, 2.0) - 0.196220) < 5e-7);
  CHECK(std::abs(dv::renyi_divergence(q, p, 2.0) - 1.129679) < 5e-7);
  const dv::univariate_normal p2{0.0, 1.2 * 1.2}, q2{1.0, 1.0};
  CHECK(std::abs(dv::renyi_divergence(p2, q2, 2.5) - 3.853752) < 5e-7);
}

TEST_CASE("unit-variance Gaussians give the GDP Renyi curve alpha mu^2 / 2",
          "[divergence][renyi]") {
  for (double mu : {0.1, 1.0, 4.0}) {
    for (double alpha : {1.5, 2.0, 10.0, 100.0}) {
      CAPTURE(mu, alpha);
      const double d =
          dv::renyi_divergence(dv::univariate_normal{0, 1}, dv::univariate_normal{mu, 1}, alpha);
      CHECK(relative_error(d, dv::gdp_rdp(mu, alpha)) < kTol1);
    }
  }
}

TEST_CASE("multivariate reduces to sums of univariate divergences", "[divergence][renyi]") {
  // Diagonal covariances: D_α is additive over independent coordinates.
  dv::multivariate_normal p{Eigen::Vector3d(0.1, -0.4, 1.0),
                            Eigen::Vector3d(1.0, 0.5, 2.0).asDiagonal()};
  dv::multivariate_normal q{Eigen::Vector3d(0.0, 0.3, 0.2),
                            Eigen::Vector3d(1.5, 0.7, 1.0).asDiagonal()};
  for (double alpha : {0.5, 1.0, 1.7, 1.9}) {
    double sum = 0;
    for (int i = 0; i < 3; ++i)
      sum += dv::renyi_divergence(dv::univariate_normal{p.mean(i), p.covariance(i, i)},
                                  dv::univariate_normal{q.mean(i), q.covariance(i, i)}, alpha);
    CAPTURE(alpha);
    CHECK(relative_error(dv::renyi_divergence(p, q, alpha), sum) < kTol2);
  }
}

TEST_CASE("alpha -> 1 approaches the KL divergence", "[divergence][renyi]") {
  const dv::univariate_normal p{0.3, 0.8}, q{-0.2, 1.4};
  const double kl = dv::renyi_divergence(p, q, 1.0);
  // KL closed form, written independently: log(s₂/s₁) + (s₁² + Δ²)/(2s₂²) − ½.
  CHECK(relative_error(kl, 0.5 * std::log(1.4 / 0.8) + (0.8 + 0.25) / 2.8 - 0.5) < kTol1);
  CHECK(std::abs(dv::renyi_divergence(p, q, 1 + 1e-6) - kl) < 1e-6);
  CHECK(std::abs(dv::renyi_divergence(p, q, 1 - 1e-6) - kl) < 1e-6);
  CHECK(dv::renyi_divergence(p, p, 2.0) == 0.0);
}

TEST_CASE("infinite divergences and bad covariances are rejected clearly", "[divergence][renyi]") {
  const auto t = dpkit::read_csv(dpkit::test::reference_path("gaussian_renyi_3d_invalid.csv"));
  REQUIRE(t.rows.size() >= 1);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    dv::multivariate_normal p{Eigen::VectorXd(3), Eigen::MatrixXd(3, 3)}, q = p;
    for (int a = 0; a < 3; ++a) {
      p.mean(a) = t.at(i, "m1_" + std::to_string(a + 1));
      q.mean(a) = t.at(i, "m2_" + std::to_string(a + 1));
      for (int b = 0; b < 3; ++b) {
        p.covariance(a, b) = t.at(i, "V1_" + std::to_string(a + 1) + std::to_string(b + 1));
        q.covariance(a, b) = t.at(i, "V2_" + std::to_string(a + 1) + std::to_string(b + 1));
      }
    }
    CAPTURE(t.where(i));
    REQUIRE_THROWS_WITH(
        dv::renyi_divergence(p, q, t.at(i, "alpha")),
        Contains("alpha*q.covariance + (1-alpha)*p.covariance (smallest LDLT pivot) is") &&
            Contains("but must be > 0, positive definite (otherwise D_alpha(p||q) = +inf)"));
  }
  REQUIRE_THROWS_WITH(
      dv::renyi_divergence(dv::univariate_normal{0, 1}, dv::univariate_normal{0, 0.25}, 3.0),
      Contains("alpha*q.variance + (1-alpha)*p.variance is -1.25, but must be > 0"));
  REQUIRE_THROWS_AS(
      dv::renyi_divergence(dv::univariate_normal{0, 1}, dv::univariate_normal{0, 1}, 0.0),
      std::domain_error);
  REQUIRE_THROWS_AS(
      dv::renyi_divergence(dv::univariate_normal{0, -1}, dv::univariate_normal{0, 1}, 2.0),
      std::domain_error);
  dv::multivariate_normal a{Eigen::Vector2d(0, 0), Eigen::Matrix2d::Identity()};
  dv::multivariate_normal b{Eigen::Vector3d(0, 0, 0), Eigen::Matrix3d::Identity()};
  REQUIRE_THROWS_WITH(dv::renyi_divergence(a, b, 2.0),
                      Contains("q.mean.size() is 3, but must be equal to p.mean.size() = 2"));
  dv::multivariate_normal asym{Eigen::Vector2d(0, 0),
                               (Eigen::Matrix2d() << 1, 0.5, 0.1, 1).finished()};
  REQUIRE_THROWS_WITH(dv::renyi_divergence(asym, a, 2.0), Contains("a symmetric matrix"));
  dv::multivariate_normal indefinite{Eigen::Vector2d(0, 0),
                                     (Eigen::Matrix2d() << 1, 2, 2, 1).finished()};
  REQUIRE_THROWS_WITH(dv::renyi_divergence(indefinite, a, 0.5),
                      Contains("p.covariance (smallest LDLT pivot)"));
}
