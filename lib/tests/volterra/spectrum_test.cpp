// Problem descriptions: grouping of per-coordinate eigen-data against sums written out here,
// the covariance builder against the explicit eigen-decomposition it must reproduce (random
// orthogonal basis), the LKSP25 design against its exact eigen-structure,
// the Marchenko–Pastur CDF against quadrature of its density, CSV round trips, bad input.
#include <Eigen/QR>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpkit/volterra/spectrum.hpp"
#include "support/test_util.hpp"

namespace vt = dpkit::volterra;
using Catch::Matchers::Contains;
using dpkit::test::relative_error;

namespace {

const vt::problem_parameters kParams{0.1, 0.01, 1.3};

double sum_multiplicity(const vt::problem& p) {
  double s = 0;
  for (const auto& g : p.groups) s += g.multiplicity;
  return s;
}

// A unique scratch file, removed at scope exit.
struct temp_file {
  std::filesystem::path path;
  explicit temp_file(const char* name)
      : path(std::filesystem::temp_directory_path() /
             (std::string("dpkit_volterra_") + name + "_" +
              std::to_string(reinterpret_cast<std::uintptr_t>(this)) + ".csv")) {}
  ~temp_file() { std::filesystem::remove(path); }
};

}  // namespace

TEST_CASE("from_eigenvalues groups equal eigenvalues and sums the statistics",
          "[volterra][spectrum]") {
  const std::vector<double> lambda{2, 1, 2, 0.5, 1};
  const std::vector<double> x0{1, -2, 0.5, 3, 0};
  const std::vector<double> xt{0.3, 0.1, -1, 2, 0.7};
  const vt::problem p = vt::from_eigenvalues(lambda, x0, xt, kParams);
  REQUIRE(p.groups.size() == 3);
  CHECK(p.d == 5);
  CHECK(p.ridge == 0.1);
  CHECK(p.label_noise == 0.01);
  CHECK(p.sigma == 1.3);
  // Decreasing order; group λ = 2 holds coordinates 0 and 2.
  const vt::eigen_group& g = p.groups[0];
  CHECK(g.eigenvalue == 2);
  CHECK(g.multiplicity == 2);
  CHECK(relative_error(g.e0_sq, 0.7 * 0.7 + 1.5 * 1.5) < 1e-15);
  CHECK(relative_error(g.xstar_sq, 0.3 * 0.3 + 1.0) < 1e-15);
  CHECK(relative_error(g.e0_xstar, 0.7 * 0.3 + 1.5 * -1) < 1e-15);
  CHECK(p.groups[1].eigenvalue == 1);
  CHECK(p.groups[1].multiplicity == 2);
  CHECK(relative_error(p.groups[1].e0_sq, 2.1 * 2.1 + 0.7 * 0.7) < 1e-15);
  CHECK(p.groups[2].multiplicity == 1);
  CHECK(relative_error(vt::trace(p), 2 * 2 + 2 * 1 + 0.5) < 1e-15);

  // Within the tolerance: merged into one group at the multiplicity-weighted mean eigenvalue.
  const std::vector<double> close{1.0, 1.0 + 1e-13, 1.0 - 1e-13};
  const std::vector<double> z(3, 0.0);
  const vt::problem merged = vt::from_eigenvalues(close, z, z, kParams);
  REQUIRE(merged.groups.size() == 1);
  CHECK(relative_error(merged.groups[0].eigenvalue, 1.0) < 1e-15);
  CHECK(vt::from_eigenvalues(close, z, z, kParams, 0.0).groups.size() == 3);
}

TEST_CASE("from_covariance reproduces the explicit eigen-decomposition", "[volterra][spectrum]") {
  // Σ = Q diag(λ) Qᵀ with a random orthogonal Q; x0 = Q a, x̃ = Q b. Eigenvalues with
  // multiplicity 3 and 2 check that the group sums do not depend on the (arbitrary)
  // eigenvectors chosen inside a degenerate eigenspace.
  const int d = 9;
  std::mt19937_64 rng(20240917);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd M(d, d);
  for (int j = 0; j < d; ++j)
    for (int i = 0; i < d; ++i) M(i, j) = normal(rng);
  const Eigen::MatrixXd Q = Eigen::HouseholderQR<Eigen::MatrixXd>(M).householderQ();
  const std::vector<double> lambda{1.7, 0.9, 0.9, 0.9, 0.4, 0.25, 0.25, 0.05, 0.0};
  Eigen::VectorXd a(d), b(d);
  for (int i = 0; i < d; ++i) {
    a(i) = normal(rng);
    b(i) = normal(rng);
  }
  const Eigen::MatrixXd S =
      Q * Eigen::Map<const Eigen::VectorXd>(lambda.data(), d).asDiagonal() * Q.transpose();
  const Eigen::MatrixXd Ssym = 0.5 * (S + S.transpose());
  const vt::problem from_matrix = vt::from_covariance(Ssym, Q * a, Q * b, kParams);
  const vt::problem explicit_ =
      vt::from_eigenvalues(lambda, std::vector<double>(a.data(), a.data() + d),
                           std::vector<double>(b.data(), b.data() + d), kParams);
  REQUIRE(explicit_.groups.size() == 6);
  REQUIRE(from_matrix.groups.size() == explicit_.groups.size());
  for (std::size_t g = 0; g < explicit_.groups.size(); ++g) {
    CAPTURE(g);
    const vt::eigen_group &u = from_matrix.groups[g], &v = explicit_.groups[g];
    CHECK(std::abs(u.eigenvalue - v.eigenvalue) < 1e-14);
    CHECK(u.multiplicity == v.multiplicity);
    CHECK(std::abs(u.e0_sq - v.e0_sq) < 1e-13 * (1 + v.e0_sq));
    CHECK(std::abs(u.xstar_sq - v.xstar_sq) < 1e-13 * (1 + v.xstar_sq));
    CHECK(std::abs(u.e0_xstar - v.e0_xstar) < 1e-13 * (1 + std::abs(v.e0_xstar)));
  }
}

TEST_CASE("LKSP25 design: Sigma = I/(12d) + 11^T/(4d) has two eigen-groups",
          "[volterra][spectrum]") {
  const long long d = 200;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unif(0, 1 / std::sqrt(double(d)));
  std::normal_distribution<double> normal;
  Eigen::VectorXd x0(d), xt(d);
  for (long long i = 0; i < d; ++i) {
    xt(i) = unif(rng);  // x̃ ~ U(0, 1/√d) per coordinate, as LKSP25 §5
    x0(i) = normal(rng);
  }
  const vt::problem design =
      vt::lksp25_design(d, std::vector<double>(x0.data(), x0.data() + d),
                         std::vector<double>(xt.data(), xt.data() + d), kParams);
  REQUIRE(design.groups.size() == 2);
  const double dd = double(d);
  CHECK(relative_error(design.groups[0].eigenvalue, 0.25 + 1 / (12 * dd)) < 1e-15);
  CHECK(design.groups[0].multiplicity == 1);
  CHECK(relative_error(design.groups[1].eigenvalue, 1 / (12 * dd)) < 1e-15);
  CHECK(design.groups[1].multiplicity == d - 1);
  CHECK(relative_error(vt::trace(design), 1.0 / 3) < 1e-14);  // tr Σ = d·E a² = 1/3
  // The spike carries u = 𝟏/√d; uᵀx̃ ≈ ½.
  CHECK(std::abs(std::sqrt(design.groups[0].xstar_sq) - 0.5) < 0.1);

  // The dense route finds the same groups.
  const Eigen::MatrixXd S =
      Eigen::MatrixXd::Identity(d, d) / (12 * dd) + Eigen::MatrixXd::Constant(d, d, 1 / (4 * dd));
  const vt::problem dense = vt::from_covariance(S, x0, xt, kParams);
  REQUIRE(dense.groups.size() == 2);
  for (std::size_t g = 0; g < 2; ++g) {
    CAPTURE(g);
    CHECK(relative_error(dense.groups[g].eigenvalue, design.groups[g].eigenvalue) < 1e-12);
    CHECK(dense.groups[g].multiplicity == design.groups[g].multiplicity);
    CHECK(relative_error(dense.groups[g].e0_sq, design.groups[g].e0_sq) < 1e-11);
    CHECK(relative_error(dense.groups[g].xstar_sq, design.groups[g].xstar_sq) < 1e-11);
    CHECK(relative_error(dense.groups[g].e0_xstar, design.groups[g].e0_xstar) < 1e-10);
  }
}

TEST_CASE("family builders: isotropic, spiked, power law", "[volterra][spectrum]") {
  const vt::energies e{4.0, 1.0, -0.5};
  const vt::problem iso = vt::isotropic(50, 0.3, e, kParams);
  REQUIRE(iso.groups.size() == 1);
  CHECK(iso.groups[0].multiplicity == 50);
  CHECK(iso.groups[0].e0_sq == 4.0);
  CHECK(iso.groups[0].e0_xstar == -0.5);

  const std::vector<double> spikes{3.0, 1.0, 3.0};
  const vt::problem sp = vt::spiked(10, 0.2, spikes, e, kParams);
  REQUIRE(sp.groups.size() == 3);
  CHECK(sp.groups[0].eigenvalue == 3.0);
  CHECK(sp.groups[0].multiplicity == 2);
  CHECK(sp.groups[2].eigenvalue == 0.2);
  CHECK(sp.groups[2].multiplicity == 7);
  CHECK(relative_error(sp.groups[2].e0_sq, 4.0 * 7 / 10) < 1e-15);  // spread by multiplicity
  CHECK(relative_error(vt::trace(sp), 3 + 3 + 1 + 7 * 0.2) < 1e-15);

  const vt::problem pl = vt::power_law(100, 1.5, 1.0, e, kParams);
  REQUIRE(pl.groups.size() == 100);
  CHECK(relative_error(vt::trace(pl), 1.0) < 1e-14);
  CHECK(relative_error(pl.groups[0].eigenvalue / pl.groups[9].eigenvalue, std::pow(10.0, 1.5)) <
        1e-14);
  double e0 = 0;
  for (const auto& g : pl.groups) e0 += g.e0_sq;
  CHECK(relative_error(e0, 4.0) < 1e-14);
  CHECK(vt::power_law(100, 0.0, 2.0, e, kParams).groups.size() == 1);
}

TEST_CASE("Marchenko-Pastur: the closed-form CDF equals quadrature of the density",
          "[volterra][spectrum]") {
  boost::math::quadrature::tanh_sinh<double> integrator;
  for (double c : {0.25, 0.5, 0.999, 1.0, 2.0, 4.0}) {
    const double s2 = 0.7;
    const double a = s2 * std::pow(1 - std::sqrt(c), 2), b = s2 * std::pow(1 + std::sqrt(c), 2);
    auto density = [&](double x) {
      return std::sqrt(std::max(0.0, (b - x) * (x - a))) / (2 * std::numbers::pi * s2 * c * x);
    };
    const double atom = c > 1 ? 1 - 1 / c : 0.0;
    for (double q : {0.05, 0.3, 0.5, 0.77, 0.95}) {
      const double x = a + q * (b - a);
      CAPTURE(c, x);
      // tanh-sinh copes with the square-root (and, at c = 1, 1/√x) end-point behaviour; its
      // default tolerance √ε is too loose for this comparison.
      const double quad = atom + integrator.integrate(density, a, x, 1e-14);
      CHECK(std::abs(vt::marchenko_pastur_cdf(x, c, s2) - quad) < 1e-14);
    }
    CHECK(vt::marchenko_pastur_cdf(b, c, s2) == 1.0);
    CHECK(vt::marchenko_pastur_cdf(-1, c, s2) == 0.0);
  }
}

TEST_CASE("Marchenko-Pastur at extreme ratios: the CDF against quadrature, the bins near s^2",
          "[volterra][spectrum]") {
  // The closed form cancels terms of size 1/(4c) (c/4) for small (large) c; at c = 1e-20 it put
  // the whole spectrum at 4s² and 0. Outside [1e-4, 1e4] the library integrates the angle
  // density too (Gauss–Kronrod); the reference is another quadrature of it (tanh-sinh), so the
  // independent checks here are the bins near s² below and the switch points 1e-4 and 1e4,
  // where both sides of the switch must agree with it.
  boost::math::quadrature::tanh_sinh<double> integrator;
  for (double c : {1e-20, 1e-12, 1e-6, 1e-4, 1e4, 1e8}) {
    const double s2 = 0.7;
    const double a = s2 * std::pow(1 - std::sqrt(c), 2), b = s2 * std::pow(1 + std::sqrt(c), 2);
    const double atom = c > 1 ? 1 - 1 / c : 0.0;
    // In the angle variable x = s²(1 + c) − 2s²√c cos θ the density is (2/π) sin²θ/(A − B cos θ)
    // (A = 1 + c, B = 2√c): quadrature of it, not the closed form.
    for (double theta : {0.3, 1.0, 2.0, 3.0}) {
      CAPTURE(c, theta);
      const double x = s2 * (1 + c) - 2 * s2 * std::sqrt(c) * std::cos(theta);
      // The angle of the rounded x (at c = 1e-20, x carries θ to about 1e-6 only).
      const double theta_x =
          std::acos(std::clamp((s2 * (1 + c) - x) / (2 * s2 * std::sqrt(c)), -1.0, 1.0));
      const double quad =
          atom + 2 / std::numbers::pi * integrator.integrate(
                                            [&](double phi) {
                                              return std::pow(std::sin(phi), 2) /
                                                     (1 + c - 2 * std::sqrt(c) * std::cos(phi));
                                            },
                                            0.0, theta_x, 1e-14);
      if (x > a && x < b)
        CHECK(std::abs(vt::marchenko_pastur_cdf(x, c, s2) - quad) < 1e-12 * std::max(1.0, atom));
    }
  }
  const vt::energies e{2.0, 1.0, 0.0};
  for (double c : {1e-20, 1e-12}) {
    CAPTURE(c);
    const vt::problem p = vt::marchenko_pastur(10, c, 1.0, 4, e, kParams);
    // The support is s²(1 ± √c)²: every bin mean within 2√c (+ rounding) of s².
    for (const auto& g : p.groups) CHECK(std::abs(g.eigenvalue - 1.0) <= 2 * std::sqrt(c) + 1e-12);
  }
}

TEST_CASE("Marchenko-Pastur quantile discretisation", "[volterra][spectrum]") {
  const vt::energies e{2.0, 1.0, 0.0};
  for (double c : {0.5, 3.0}) {
    CAPTURE(c);
    const long long G = 200, d = 1000;
    const double s2 = 0.7;
    const vt::problem p = vt::marchenko_pastur(d, c, s2, G, e, kParams);
    CHECK(relative_error(sum_multiplicity(p), double(d)) < 1e-13);
    // The bin means keep the first moment exactly: tr Σ = d·s².
    CHECK(relative_error(vt::trace(p), d * s2) < 1e-12);
    // Each bin mean lies in its own quantile bin: F(λ_j) ∈ [(j−1)/G, j/G] (groups decreasing).
    const double atom = c > 1 ? 1 - 1 / c : 0.0;
    double m2 = 0;
    std::size_t j = 0;
    for (const auto& g : p.groups) {
      m2 += g.multiplicity * g.eigenvalue * g.eigenvalue / double(d);
      if (g.eigenvalue == 0) {  // the merged bins inside the atom
        CHECK(g.multiplicity / double(d) <= atom + 1e-12);
        continue;
      }
      const double upper = 1 - double(j) / double(G), lower = 1 - double(j + 1) / double(G);
      const double F = vt::marchenko_pastur_cdf(g.eigenvalue, c, s2);
      CHECK(F >= lower - 1e-12);
      CHECK(F <= upper + 1e-12);
      ++j;
    }
    // Second moment of the law: s⁴(1 + c); the discretisation drops the within-bin variance
    // (measured 1.9e-5 for c = 0.5 and 2.0e-4 for c = 3 at G = 200).
    CHECK(relative_error(m2, s2 * s2 * (1 + c)) < 4e-4);
  }
}

TEST_CASE("problem CSV round trip is bit-identical", "[volterra][spectrum]") {
  const vt::problem p = vt::marchenko_pastur(1000, 0.5, 0.7, 37, {2.0, 1.0, -0.25}, kParams);
  temp_file f("roundtrip");
  vt::write_problem_csv(p, f.path);
  const vt::problem q = vt::read_problem_csv(f.path);
  CHECK(q.d == p.d);
  CHECK(q.ridge == p.ridge);
  CHECK(q.label_noise == p.label_noise);
  CHECK(q.sigma == p.sigma);
  REQUIRE(q.groups.size() == p.groups.size());
  for (std::size_t g = 0; g < p.groups.size(); ++g) {
    CAPTURE(g);
    CHECK(q.groups[g].eigenvalue == p.groups[g].eigenvalue);
    CHECK(q.groups[g].multiplicity == p.groups[g].multiplicity);
    CHECK(q.groups[g].e0_sq == p.groups[g].e0_sq);
    CHECK(q.groups[g].xstar_sq == p.groups[g].xstar_sq);
    CHECK(q.groups[g].e0_xstar == p.groups[g].e0_xstar);
  }
  std::ostringstream text;
  vt::write_problem_csv(p, text);
  CHECK_THAT(text.str(), Contains("# d: 1000\n") && Contains("# ridge: 0.1\n") &&
                             Contains("eigenvalue,multiplicity,e0_sq,xstar_sq,e0_xstar\n"));
}

TEST_CASE("problem CSV: malformed files are rejected", "[volterra][spectrum]") {
  temp_file f("bad");
  auto write = [&](const std::string& text) { std::ofstream(f.path) << text; };
  const std::string header = "# d: 2\n# ridge: 0.1\n# label_noise: 0\n# sigma: 1\n";
  const std::string columns = "eigenvalue,multiplicity,e0_sq,xstar_sq,e0_xstar\n";

  write(header + columns + "1,1,1,1,0.5\n2,1,1,1,0\n");
  CHECK(vt::read_problem_csv(f.path).groups.size() == 2);

  write("# d: 2\n# ridge: 0.1\n# label_noise: 0\n" + columns + "1,2,1,1,0\n");
  CHECK_THROWS_WITH(vt::read_problem_csv(f.path), Contains("missing header line '# sigma"));
  write("# d: 2.5\n# ridge: 0.1\n# label_noise: 0\n# sigma: 1\n" + columns + "1,2,1,1,0\n");
  CHECK_THROWS_WITH(vt::read_problem_csv(f.path), Contains("not an integer"));
  write(header + "eigenvalue,multiplicity,e0_sq,xstar_sq\n1,2,1,1\n");
  CHECK_THROWS_WITH(vt::read_problem_csv(f.path), Contains("no column named 'e0_xstar'"));
  write(header + columns + "1,2,1,abc,0\n");
  CHECK_THROWS_AS(vt::read_problem_csv(f.path), std::runtime_error);
  // Values out of their domain: std::domain_error from validate().
  write(header + columns + "1,3,1,1,0\n");  // Σk = 3 ≠ d
  CHECK_THROWS_WITH(vt::read_problem_csv(f.path),
                    Contains("sum of multiplicities is 3, but must be d = 2"));
  write(header + columns + "-1,2,1,1,0\n");
  CHECK_THROWS_AS(vt::read_problem_csv(f.path), std::domain_error);
  CHECK_THROWS_AS(vt::read_problem_csv(f.path.string() + ".absent"), std::runtime_error);
}

TEST_CASE("problem: bad input is rejected", "[volterra][spectrum]") {
  const vt::energies e{1, 1, 0};
  CHECK_THROWS_WITH(vt::from_groups({{1.0, -1.0, 0, 0, 0}}, 1, kParams),
                    "from_groups: groups[0].multiplicity is -1, but must be finite and > 0");
  CHECK_THROWS_WITH(vt::from_groups({{1.0, 1.0, 1.0, 1.0, 2.0}}, 1, kParams),
                    Contains("groups[0].e0_xstar is 2, but must be at most sqrt(e0_sq*xstar_sq)"));
  CHECK_THROWS_WITH(vt::from_groups({}, 1, kParams),
                    "from_groups: groups.size() is 0, but must be >= 1");
  CHECK_THROWS_AS(vt::from_groups({{NAN, 1.0, 0, 0, 0}}, 1, kParams), std::domain_error);
  CHECK_THROWS_WITH(vt::from_groups({{1.0, 1.0, 0, 0, 0}}, 1, {-0.1, 0, 0}),
                    "from_groups: ridge is -0.1, but must be finite and >= 0");
  CHECK_THROWS_AS(vt::from_groups({{1.0, 1.0, 0, 0, 0}}, 1, {0, 0, INFINITY}), std::domain_error);
  CHECK_THROWS_AS(vt::isotropic(0, 1, e, kParams), std::domain_error);
  CHECK_THROWS_AS(vt::isotropic(5, 1, {1, 1, 3}, kParams), std::domain_error);
  const std::vector<double> l{1, 2}, x{0, 0}, y{0};
  CHECK_THROWS_WITH(vt::from_eigenvalues(l, x, y, kParams),
                    "from_eigenvalues: xtilde.size() is 1, but must be d = 2");
  CHECK_THROWS_AS(vt::from_eigenvalues(std::vector<double>{-1, 2}, x, x, kParams),
                  std::domain_error);
  CHECK_THROWS_AS(vt::spiked(2, 1, std::vector<double>{1, 2, 3}, e, kParams), std::domain_error);
  CHECK_THROWS_AS(vt::marchenko_pastur(10, 0, 1, 5, e, kParams), std::domain_error);
  CHECK_THROWS_AS(vt::marchenko_pastur(10, 1, 1, 0, e, kParams), std::domain_error);
  CHECK_THROWS_AS(vt::power_law(10, -1, 1, e, kParams), std::domain_error);

  Eigen::MatrixXd asym(2, 2);
  asym << 1, 0.5, 0.4, 1;
  const Eigen::VectorXd z = Eigen::VectorXd::Zero(2);
  CHECK_THROWS_WITH(vt::from_covariance(asym, z, z, kParams), Contains("(symmetric)"));
  Eigen::MatrixXd indefinite(2, 2);
  indefinite << 1, 2, 2, 1;  // eigenvalues 3, −1
  CHECK_THROWS_WITH(vt::from_covariance(indefinite, z, z, kParams),
                    Contains("smallest eigenvalue of sigma_matrix is -0.99"));
  CHECK_THROWS_AS(vt::from_covariance(Eigen::MatrixXd::Identity(2, 3), z, z, kParams),
                  std::domain_error);
  CHECK_THROWS_AS(
      vt::from_covariance(Eigen::MatrixXd::Identity(2, 2), Eigen::VectorXd::Zero(3), z, kParams),
      std::domain_error);
}

TEST_CASE("lksp25_experiment: the paper's draws, both covariances, same coordinates",
          "[volterra]") {
  const long long d = 1000;
  const vt::problem_parameters prm{0.1, 1e-5, 1.5};
  const vt::problem design = vt::lksp25_experiment(d, vt::lksp25_sigma::design, 2, 7, prm);
  const vt::problem code = vt::lksp25_experiment(d, vt::lksp25_sigma::code, 2, 7, prm);
  REQUIRE(design.groups.size() == 2);
  REQUIRE(code.groups.size() == 1);
  // Exact structure: λ_1 = 1/4 + 1/(12d) once, 1/(12d) with multiplicity d − 1.
  CHECK(design.groups[0].eigenvalue == Approx(0.25 + 1 / 12000.0).epsilon(1e-14));
  CHECK(design.groups[1].multiplicity == d - 1);
  CHECK(code.groups[0].eigenvalue == Approx(1 / 12000.0).epsilon(1e-14));
  // The same draws: the totals over the groups are rotation invariant, so they agree.
  auto total = [](const vt::problem& p, double vt::eigen_group::*f) {
    double s = 0;
    for (const auto& g : p.groups) s += g.*f;
    return s;
  };
  for (auto f : {&vt::eigen_group::e0_sq, &vt::eigen_group::xstar_sq, &vt::eigen_group::e0_xstar})
    CHECK(total(design, f) == Approx(total(code, f)).epsilon(1e-10));
  // The law of the draws: |x~|² = 1/3 ± 0.0094 (x~_i iid U(0, 1/√d)), (u'x~)² = 1/4 ± 0.01,
  // |x0 − x~|² = d s² + 1/3 ± s² √(2d) = 4000.3 ± 179 (s = 2): 4 sd margins.
  CHECK(total(code, &vt::eigen_group::xstar_sq) == Approx(1 / 3.0).margin(0.04));
  CHECK(design.groups[0].xstar_sq == Approx(0.25).margin(0.04));
  CHECK(total(code, &vt::eigen_group::e0_sq) == Approx(4000.3).margin(720));
  CHECK_THROWS_AS(vt::lksp25_experiment(d, vt::lksp25_sigma::code, -1, 7, prm),
                  std::domain_error);
}
