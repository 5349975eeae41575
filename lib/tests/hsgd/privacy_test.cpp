// Rényi DP of noisy HSGD (LKSP25 §4.2, Thms 4.3–4.5) against independent dense constructions:
//  * the neighbouring processes (11)–(13) built densely in ORIGINAL coordinates from their
//    definitions (C_i = I − h(aaᵀ + δI), Φ(t,s) = e^{−A(Γ(t)−Γ(s))} from the test's own
//    eigen-pairs, the SDE noise V(t) − ΦV(s)Φᵀ), and D_α of the resulting Gaussians by the dense
//    O(d³) divergence::renyi_divergence (itself checked against 50-digit quadrature) — for the
//    last iterate, for ALL J iterates jointly (a sequential source-matrix construction: no
//    Markov reduction, no chain precision) and for their average;
//  * the paper errors corrected: the printed argument order of Lemma C.2 / (14) gives
//    D_α(P₂‖P₁), a different number (docs/findings.md); the suffix-only rule of Thm 4.4
//    undercounts when s > t_1 (docs/hsgd.md);
//  * the s-mixtures (15), (21), (24) against composite Simpson sums of the dense integrand on
//    fine grids, written in the paper's literal form log((T − t)/T + (1/T)∫e^{(α−1)D});
//  * the mean-gap proxy against h‖r₁a₁ − r₂a₂‖ computed densely; (ε, δ) against the RDP
//    conversion formulas written out by hand; edges and bad input.
#include <Eigen/Dense>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "dpkit/divergence/gaussian_renyi.hpp"
#include "dpkit/hsgd/privacy.hpp"
#include "support/test_util.hpp"
#include "support/random_linear.hpp"

namespace hs = dpkit::hsgd;
namespace vt = dpkit::volterra;
namespace dv = dpkit::divergence;
using Catch::Matchers::Contains;
using dpkit::test::relative_error;

namespace {

// ---- a random problem with a known eigendecomposition -------------------------------------------

struct setup {
  int d = 0;
  Eigen::MatrixXd Q;       // the test's eigenvectors (columns)
  Eigen::VectorXd lambda;  // the test's eigenvalues
  Eigen::MatrixXd sigma;
  Eigen::VectorXd x0, xt;
  vt::problem_parameters prm;
  vt::schedule gamma = vt::schedule::constant(1.0);
  double T = 1.5;
};

using dpkit::test::random_orthogonal;
using dpkit::test::random_vector;

setup make_setup(int d, std::vector<double> lambda, vt::schedule gamma, unsigned seed) {
  std::mt19937_64 rng(seed);
  setup S;
  S.d = d;
  S.Q = random_orthogonal(d, rng);
  S.lambda = Eigen::Map<const Eigen::VectorXd>(lambda.data(), d);
  S.sigma = S.Q * S.lambda.asDiagonal() * S.Q.transpose();
  S.sigma = 0.5 * (S.sigma + S.sigma.transpose());
  S.x0 = random_vector(d, rng, 1.0);
  S.xt = random_vector(d, rng, 0.5);
  S.prm = {0.1, 0.01, 0.7};
  S.gamma = std::move(gamma);
  return S;
}

hs::gaussian_law make_law(const setup& S) {
  return hs::gaussian_law::from_covariance(S.sigma, S.x0, S.xt, S.prm, S.gamma, S.T);
}

hs::record random_record(int d, std::mt19937_64& rng, double scale) {
  std::normal_distribution<double> z;
  return {random_vector(d, rng, scale), z(rng)};
}

// `rows` records from random_record, in row order.
hs::dataset random_dataset(int rows, int d, std::mt19937_64& rng, double scale) {
  hs::dataset data;
  data.features.resize(rows, d);
  data.labels.resize(rows);
  for (int i = 0; i < rows; ++i) {
    const hs::record r = random_record(d, rng, scale);
    data.features.row(i) = r.a.transpose();
    data.labels[i] = r.b;
  }
  return data;
}

hs::record record_of(const hs::dataset& data, long long i) {
  return {data.features.row(i).transpose(), data.labels[i]};
}

// ---- dense constructions from the definitions ---------------------------------------------------

struct gaussian {
  Eigen::VectorXd mean;
  Eigen::MatrixXd cov;
};

class dense_model {
 public:
  dense_model(const setup& S, const hs::gaussian_law& law) : S_(S), law_(law) {
    const int d = S.d;
    A_ = S.sigma + S.prm.ridge * Eigen::MatrixXd::Identity(d, d);
    xstar_ = A_.ldlt().solve(S.sigma * S.xt);  // LKSP25 §4.1
    U_ = law.basis().matrix();
  }
  // Φ(t, s) = e^{−A(Γ(t)−Γ(s))} from the test's eigen-pairs.
  Eigen::MatrixXd Phi(double t, double s) const {
    const double dG = S_.gamma.integral(t) - S_.gamma.integral(s);
    const Eigen::VectorXd e = (-(S_.lambda.array() + S_.prm.ridge) * dG).exp();
    return S_.Q * e.asDiagonal() * S_.Q.transpose();
  }
  Eigen::VectorXd mean(double t) const { return xstar_ + Phi(t, 0) * (S_.x0 - xstar_); }
  // V(t) of LKSP25 (10) (eigen-variances from the law, tested in law_test).
  Eigen::MatrixXd V(double t) const { return U_ * law_.variances(t).asDiagonal() * U_.transpose(); }
  double h(double s) const { return S_.gamma.rate(s) / S_.d; }
  Eigen::MatrixXd C(const hs::record& r, double s) const {
    const int d = S_.d;
    return Eigen::MatrixXd::Identity(d, d) -
           h(s) * (r.a * r.a.transpose() + S_.prm.ridge * Eigen::MatrixXd::Identity(d, d));
  }

  // LKSP25 (11)–(13) at one release time t ≥ s.
  gaussian last(const hs::record& r, double t, double s) const {
    const int d = S_.d;
    const Eigen::MatrixXd Ci = C(r, s), P = Phi(t, s), Vs = V(s);
    const Eigen::VectorXd m_plus = Ci * mean(s) + h(s) * r.b * r.a;
    const Eigen::MatrixXd V_plus =
        Ci * Vs * Ci.transpose() + h(s) * h(s) * sq(S_.prm.sigma) * Eigen::MatrixXd::Identity(d, d);
    gaussian g;
    g.mean = P * m_plus + (Eigen::MatrixXd::Identity(d, d) - P) * xstar_;
    g.cov = P * V_plus * P.transpose() + (V(t) - P * Vs * P.transpose());
    g.cov = 0.5 * (g.cov + g.cov.transpose());
    return g;
  }

  // The joint law of (X_{t_1}, …, X_{t_J}) for the process using record r at time s, by
  // sequential composition: X = Gξ + μ with independent standard sources ξ.
  gaussian joint(const hs::record& r, const std::vector<double>& times, double s) const {
    const int d = S_.d;
    const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(d, d);
    Eigen::MatrixXd G(d, 0);
    Eigen::VectorXd mu = S_.x0;
    double now = 0;
    auto append = [&](const Eigen::MatrixXd& F, const Eigen::MatrixXd& noise_sqrt) {
      Eigen::MatrixXd Gn(d, G.cols() + noise_sqrt.cols());
      Gn << F * G, noise_sqrt;
      G = Gn;
    };
    auto advance = [&](double to) {
      if (!(to > now)) return;
      const Eigen::MatrixXd P = Phi(to, now);
      Eigen::MatrixXd N = V(to) - P * V(now) * P.transpose();  // the SDE noise over [now, to]
      N = 0.5 * (N + N.transpose());
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(N);
      const Eigen::VectorXd ev = es.eigenvalues().cwiseMax(0.0).cwiseSqrt();
      append(P, es.eigenvectors() * ev.asDiagonal());
      mu = P * mu + (I - P) * xstar_;
      now = to;
    };
    std::vector<Eigen::MatrixXd> Gs;
    std::vector<Eigen::VectorXd> mus;
    bool jumped = false;
    for (double tau : times) {
      if (!jumped && s <= tau) {
        advance(s);
        const Eigen::MatrixXd Ci = C(r, s);
        append(Ci, h(s) * S_.prm.sigma * I);
        mu = Ci * mu + h(s) * r.b * r.a;
        jumped = true;
      }
      advance(tau);
      Gs.push_back(G);
      mus.push_back(mu);
    }
    const Eigen::Index J = static_cast<Eigen::Index>(times.size()), n = G.cols();
    Eigen::MatrixXd all = Eigen::MatrixXd::Zero(J * d, n);
    gaussian g;
    g.mean.resize(J * d);
    for (Eigen::Index j = 0; j < J; ++j) {
      all.block(j * d, 0, d, Gs[j].cols()) = Gs[j];
      g.mean.segment(j * d, d) = mus[j];
    }
    g.cov = all * all.transpose();
    return g;
  }

  static gaussian blocks(const gaussian& g, int d, Eigen::Index from, Eigen::Index count) {
    return {g.mean.segment(from * d, count * d),
            g.cov.block(from * d, from * d, count * d, count * d)};
  }
  static gaussian average(const gaussian& g, int d) {
    const Eigen::Index J = g.mean.size() / d;
    Eigen::MatrixXd Abar(d, J * d);
    for (Eigen::Index j = 0; j < J; ++j)
      Abar.block(0, j * d, d, d) = Eigen::MatrixXd::Identity(d, d) / static_cast<double>(J);
    return {Abar * g.mean, Abar * g.cov * Abar.transpose()};
  }

  Eigen::VectorXd xstar() const { return xstar_; }

 private:
  static double sq(double x) { return x * x; }
  const setup& S_;
  const hs::gaussian_law& law_;
  Eigen::MatrixXd A_, U_;
  Eigen::VectorXd xstar_;
};

// D_α(p ‖ q) densely; +inf where the dense formula reports M not positive definite.
double dense_divergence(const gaussian& p, const gaussian& q, double alpha) {
  try {
    return dv::renyi_divergence(dv::multivariate_normal{p.mean, p.cov},
                                dv::multivariate_normal{q.mean, q.cov}, alpha);
  } catch (const std::domain_error& e) {
    if (std::string(e.what()).find("otherwise D_alpha(p||q) = +inf") != std::string::npos)
      return INFINITY;
    throw;
  }
}

}  // namespace

TEST_CASE("hsgd privacy: the neighbouring processes equal the dense construction of (11)-(13)",
          "[hsgd][privacy]") {
  const setup S =
      make_setup(6, {1.7, 1.1, 0.8, 0.5, 0.2, 0.07}, vt::schedule::polynomial_decay(3, 2, 1), 11);
  const hs::gaussian_law law = make_law(S);
  const dense_model M(S, law);
  std::mt19937_64 rng(5);
  const hs::record r1 = random_record(S.d, rng, 0.4), r2 = random_record(S.d, rng, 0.4);
  const Eigen::MatrixXd U = law.basis().matrix();
  for (auto [t, s] : std::vector<std::pair<double, double>>{{0.9, 0.3}, {1.5, 0.0}, {0.4, 0.4}}) {
    CAPTURE(t, s);
    const hs::neighbouring_law nl = hs::neighbouring_processes(law, r1, r2, t, s);
    const gaussian g1 = M.last(r1, t, s), g2 = M.last(r2, t, s);
    CHECK((U * nl.mean1 - g1.mean).norm() < 1e-12 * g1.mean.norm());
    CHECK((U * nl.mean2 - g2.mean).norm() < 1e-12 * g2.mean.norm());
    const Eigen::MatrixXd V1 = U * nl.covariance(1) * U.transpose();
    const Eigen::MatrixXd V2 = U * nl.covariance(2) * U.transpose();
    CHECK((V1 - g1.cov).cwiseAbs().maxCoeff() < 1e-12 * g1.cov.cwiseAbs().maxCoeff());
    CHECK((V2 - g2.cov).cwiseAbs().maxCoeff() < 1e-12 * g2.cov.cwiseAbs().maxCoeff());
  }
  REQUIRE_THROWS_WITH(hs::neighbouring_processes(law, r1, r2, 0.3, 0.5),
                      Contains("s is 0.5, but must be <= t = 0.3"));
}

TEST_CASE("hsgd privacy: the O(d) Renyi divergence equals the dense O(d^3) formula",
          "[hsgd][privacy]") {
  struct spectrum_case {
    const char* name;
    std::vector<double> lambda;
  };
  // Distinct eigenvalues (K of full rank 4), a repeated pair, and an isotropic Σ (one
  // eigen-group: v_i ∥ u_i, K of rank 2).
  const std::vector<spectrum_case> spectra = {
      {"distinct", {1.9, 1.3, 0.9, 0.6, 0.35, 0.15, 0.05}},
      {"repeated", {1.2, 1.2, 0.7, 0.7, 0.7, 0.3, 0.3}},
      {"isotropic", {0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6}},
  };
  const std::vector<std::pair<double, double>> ts = {{0.9, 0.3},  {1.5, 0.0},  {0.5, 0.5},
                                                     {1.0, 0.02}, {0.6, 0.59}, {1.2, 1.19999}};
  double worst = 0;
  int compared = 0, infinite = 0;
  unsigned seed = 100;
  for (const auto& sc : spectra) {
    const setup S = make_setup(7, sc.lambda, vt::schedule::constant(2.5), ++seed);
    const hs::gaussian_law law = make_law(S);
    const dense_model M(S, law);
    std::mt19937_64 rng(seed);
    std::vector<std::pair<hs::record, hs::record>> pairs;
    for (int p = 0; p < 3; ++p)
      pairs.emplace_back(random_record(S.d, rng, 0.5), random_record(S.d, rng, 0.5));
    // Same features, different labels: u₁ = u₂, a rank-deficient K.
    pairs.emplace_back(pairs[0].first, hs::record{pairs[0].first.a, pairs[0].first.b + 1.3});
    for (const auto& [r1, r2] : pairs)
      for (const auto& [t, s] : ts) {
        const gaussian g1 = M.last(r1, t, s), g2 = M.last(r2, t, s);
        for (double alpha : {1.5, 2.0, 4.0, 40.0}) {
          CAPTURE(sc.name, t, s, alpha);
          const double fwd = dense_divergence(g1, g2, alpha);
          const double rev = dense_divergence(g2, g1, alpha);
          const double f = hs::renyi_divergence(law, r1, r2, t, s, alpha, hs::renyi_order::forward);
          const double p = hs::renyi_divergence(law, r1, r2, t, s, alpha, hs::renyi_order::paper);
          const double y =
              hs::renyi_divergence(law, r1, r2, t, s, alpha, hs::renyi_order::symmetric);
          for (auto [mine, ref] :
               {std::pair{f, fwd}, std::pair{p, rev}, std::pair{y, std::max(fwd, rev)}}) {
            INFO(dpkit::test::describe_mismatch(mine, ref));
            if (std::isinf(ref)) {
              ++infinite;
              CHECK(mine == INFINITY);
              continue;
            }
            ++compared;
            const double e = relative_error(mine, ref);
            worst = std::max(worst, e);
            CHECK(e < 1e-9);
          }
        }
      }
  }
  INFO("compared " << compared << " finite values (" << infinite << " +inf), worst " << worst);
  CHECK(compared > 400);
  CHECK(infinite > 0);  // α = 40 next to the jump is not positive definite: both flag it
  // s > t: the processes coincide.
  const setup S = make_setup(7, spectra[0].lambda, vt::schedule::constant(2.5), 1);
  const hs::gaussian_law law = make_law(S);
  std::mt19937_64 rng(1);
  const hs::record r1 = random_record(S.d, rng, 0.5), r2 = random_record(S.d, rng, 0.5);
  CHECK(hs::renyi_divergence(law, r1, r2, 0.5, 0.6, 2.0) == 0.0);
  CHECK(std::abs(hs::renyi_divergence(law, r1, r1, 0.9, 0.3, 2.0)) < 1e-15);
}

TEST_CASE("hsgd privacy: the paper's argument order of Lemma C.2 and eq. (14) gives another number",
          "[hsgd][privacy]") {
  // LKSP25 Lemma C.2: M_α = αV₁ + (1 − α)V₂ as printed is D_α(P₂ ‖ P₁). With labels far apart the
  // two orders differ visibly; the paper's order matches the dense D_α(P₂‖P₁), not D_α(P₁‖P₂).
  const setup S = make_setup(5, {1.5, 1.0, 0.6, 0.3, 0.1}, vt::schedule::constant(3.0), 3);
  const hs::gaussian_law law = make_law(S);
  const dense_model M(S, law);
  const hs::record r1{Eigen::VectorXd::Constant(5, 0.45), 2.0};
  const hs::record r2{Eigen::VectorXd::Constant(5, -0.1), -1.0};
  const double t = 0.6, s = 0.45, alpha = 3.0;
  const gaussian g1 = M.last(r1, t, s), g2 = M.last(r2, t, s);
  const double correct = dense_divergence(g1, g2, alpha), swapped = dense_divergence(g2, g1, alpha);
  const double fwd = hs::renyi_divergence(law, r1, r2, t, s, alpha, hs::renyi_order::forward);
  const double paper = hs::renyi_divergence(law, r1, r2, t, s, alpha, hs::renyi_order::paper);
  INFO("correct " << correct << ", paper order " << paper);
  CHECK(relative_error(fwd, correct) < 1e-10);
  CHECK(relative_error(paper, swapped) < 1e-10);
  CHECK(std::abs(paper - fwd) > 0.05 * fwd);
}

TEST_CASE("hsgd privacy: J iterates and their average equal dense block-covariance constructions",
          "[hsgd][privacy]") {
  const setup S =
      make_setup(6, {1.6, 1.0, 0.7, 0.4, 0.4, 0.1}, vt::schedule::step_decay(1.2, 0.6, 0.7), 21);
  const hs::gaussian_law law = make_law(S);
  const dense_model M(S, law);
  std::mt19937_64 rng(9);
  const hs::record r1 = random_record(S.d, rng, 0.35), r2 = random_record(S.d, rng, 0.35);
  const std::vector<double> times = {0.2, 0.55, 0.9, 1.4};
  const int d = S.d;
  double worst = 0;
  bool undercount_seen = false;
  // s before t₁, between release times, at a release time, across the γ jump at 0.7, after t_J.
  for (double s : {0.0, 0.1, 0.2, 0.3, 0.55, 0.72, 1.3, 1.45}) {
    const gaussian j1 = M.joint(r1, times, s), j2 = M.joint(r2, times, s);
    const gaussian a1 = dense_model::average(j1, d), a2 = dense_model::average(j2, d);
    for (double alpha : {1.5, 2.0, 3.0}) {
      CAPTURE(s, alpha);
      const double joint = s > times.back() ? 0.0 : dense_divergence(j1, j2, alpha);
      const double joint_rev = s > times.back() ? 0.0 : dense_divergence(j2, j1, alpha);
      const double avg = s > times.back() ? 0.0 : dense_divergence(a1, a2, alpha);
      const double it = hs::renyi_divergence_iterates(law, r1, r2, times, s, alpha);
      const double itp =
          hs::renyi_divergence_iterates(law, r1, r2, times, s, alpha, hs::renyi_order::paper);
      const double av = hs::renyi_divergence_average(law, r1, r2, times, s, alpha);
      for (auto [mine, ref] :
           {std::pair{it, joint}, std::pair{itp, joint_rev}, std::pair{av, avg}}) {
        INFO(dpkit::test::describe_mismatch(mine, ref));
        const double e = ref == 0 ? std::abs(mine) : relative_error(mine, ref);
        worst = std::max(worst, e);
        CHECK(e < 1e-9);
      }
      // The paper's suffix rule (Thm 4.4): D_α of the blocks t_ℓ..t_J only. Exact when s ≤ t₁;
      // a strict lower bound (data processing) once a pre-s block exists.
      Eigen::Index l = 0;
      while (l < 4 && times[static_cast<std::size_t>(l)] < s) ++l;
      if (l == 4 || std::isinf(joint)) continue;  // (ours matched the dense +inf above)
      const double suffix = dense_divergence(dense_model::blocks(j1, d, l, 4 - l),
                                             dense_model::blocks(j2, d, l, 4 - l), alpha);
      if (l == 0) {
        CHECK(relative_error(suffix, joint) < 1e-9);
      } else {
        CHECK(suffix < joint * (1 - 1e-3));
        undercount_seen = true;
      }
    }
  }
  CHECK(undercount_seen);
  INFO("worst relative error " << worst);
  CHECK(worst < 1e-9);
  // One release time: both reduce to the last iterate.
  const std::vector<double> one = {0.8};
  for (double s : {0.0, 0.35, 0.8}) {
    const double last = hs::renyi_divergence(law, r1, r2, 0.8, s, 2.0);
    CHECK(relative_error(hs::renyi_divergence_iterates(law, r1, r2, one, s, 2.0), last) < 1e-13);
    CHECK(relative_error(hs::renyi_divergence_average(law, r1, r2, one, s, 2.0), last) < 1e-13);
  }
}

namespace {

// Composite Simpson of F over [0, end] with the given interior cut points, n intervals per piece.
// The integrands jump at the cuts, so each piece's end values are its one-sided limits (taken
// 1e-13 inside: γ is right-continuous, and the left piece needs γ(cut⁻)).
template <class F>
double simpson(F&& f, std::vector<double> cuts, double end, int n) {
  cuts.insert(cuts.begin(), 0.0);
  cuts.push_back(end);
  double total = 0;
  for (std::size_t p = 0; p + 1 < cuts.size(); ++p) {
    const double a = cuts[p], b = cuts[p + 1], h = (b - a) / n;
    double sum = f(a) + f(p + 2 < cuts.size() ? b - 1e-13 : b);
    for (int i = 1; i < n; ++i) sum += (i % 2 ? 4.0 : 2.0) * f(a + i * h);
    total += sum * h / 3;
  }
  return total;
}

}  // namespace

TEST_CASE("hsgd privacy: the last-iterate mixture (15) equals a brute-force fine-grid sum",
          "[hsgd][privacy]") {
  // γ jumps at 0.5: the integrand jumps in s there (h = γ(s)/d), so both sides split at it.
  const setup S = make_setup(4, {1.4, 0.8, 0.3, 0.1}, vt::schedule::step_decay(1.0, 0.5, 0.5), 31);
  const hs::gaussian_law law = make_law(S);
  const dense_model M(S, law);
  std::mt19937_64 rng(3);
  const hs::dataset data = random_dataset(4, S.d, rng, 0.3);
  auto rec = [&](long long i) { return record_of(data, i); };
  const std::vector<hs::record_pair> pairs = {{0, 1}, {2, 3}, {1, 3}};
  const double alpha = 2.0, T = S.T;
  const std::vector<double> times = {0.3, 1.2};
  int switches = 0;  // changes of the maximising (pair, order) along s
  hs::mixture_options o;
  o.relative_tolerance = 1e-10;
  o.per_pair = true;
  const hs::rdp_trajectory tr = hs::last_iterate_rdp(law, data, pairs, times, alpha, o);
  REQUIRE(tr.converged());
  REQUIRE(tr.values.size() == 2);
  CHECK(tr.kind == dpkit::bound_kind::approximation);
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double t = times[k];
    CAPTURE(t);
    const std::vector<double> cuts = S.gamma.breakpoints(t);  // 0.5 and 1.0 where t > them
    // D_α(t; s, θ) densely, both orders (the default order is symmetric).
    auto D = [&](const hs::record_pair& pr, double s) {
      const gaussian g1 = M.last(rec(pr.first), t, s), g2 = M.last(rec(pr.second), t, s);
      return std::max(dense_divergence(g1, g2, alpha), dense_divergence(g2, g1, alpha));
    };
    // LKSP25 eq. (15) in its literal form: (1/(α−1))·log((T − t)/T + (1/T)∫_0^t e^{(α−1)D}).
    auto eps = [&](double integral) { return std::log((T - t) / T + integral / T) / (alpha - 1); };
    std::vector<double> pair_ref;
    for (const auto& pr : pairs) {
      const double I =
          simpson([&](double s) { return std::exp((alpha - 1) * D(pr, s)); }, cuts, t, 400);
      pair_ref.push_back(eps(I));
    }
    for (std::size_t q = 0; q < pairs.size(); ++q) {
      INFO("pair " << q << ": "
                   << dpkit::test::describe_mismatch(tr.values[k].pair_epsilons[q], pair_ref[q]));
      CHECK(relative_error(tr.values[k].pair_epsilons[q], pair_ref[q]) < 1e-8);
    }
    const auto worst_ref = std::max_element(pair_ref.begin(), pair_ref.end()) - pair_ref.begin();
    CHECK(tr.values[k].worst_pair == worst_ref);
    // The sup inside the integral has kinks where the maximising (pair, order) changes; Simpson
    // is O(h²) there, so the reference is the finer of two grids, checked to have converged,
    // and the test checks that it does contain such switches (the library splits at them).
    auto candidate = [&](double s, int c) {
      const hs::record_pair& pr = pairs[static_cast<std::size_t>(c / 2)];
      const gaussian g1 = M.last(rec(pr.first), t, s), g2 = M.last(rec(pr.second), t, s);
      return c % 2 == 0 ? dense_divergence(g1, g2, alpha) : dense_divergence(g2, g1, alpha);
    };
    auto sup = [&](double s) {
      double m = 0;
      for (int c = 0; c < 6; ++c) m = std::max(m, candidate(s, c));
      return std::exp((alpha - 1) * m);
    };
    int last_leader = -1;
    for (int i = 0; i <= 400; ++i) {
      const double s = t * i / 400;
      int leader = 0;
      for (int c = 1; c < 6; ++c)
        if (candidate(s, c) > candidate(s, leader)) leader = c;
      if (leader != last_leader && last_leader >= 0) ++switches;
      last_leader = leader;
    }
    const double coarse = eps(simpson(sup, cuts, t, 2000)), fine = eps(simpson(sup, cuts, t, 4000));
    INFO("sup: " << dpkit::test::describe_mismatch(tr.values[k].epsilon, fine) << ", grid change "
                 << relative_error(coarse, fine));
    CHECK(relative_error(coarse, fine) < 1e-7);
    CHECK(relative_error(tr.values[k].epsilon, fine) < 4 * relative_error(coarse, fine) + 1e-10);
    CHECK(tr.values[k].epsilon >=
          *std::max_element(tr.values[k].pair_epsilons.begin(), tr.values[k].pair_epsilons.end()));
    CHECK(tr.values[k].abs_error < 1e-9 * tr.values[k].epsilon);
  }
  INFO("switches of the maximiser: " << switches);
  CHECK(switches >= 1);
  // ε(0) = 0 (LKSP25 Thm 4.3: no step has used the record yet).
  const std::vector<double> zero = {0.0};
  CHECK(hs::last_iterate_rdp(law, data, pairs, zero, alpha).values[0].epsilon == 0.0);
}

TEST_CASE("hsgd privacy: the J-iterate (21) and average (24) mixtures equal fine-grid sums",
          "[hsgd][privacy]") {
  const setup S = make_setup(4, {1.2, 0.9, 0.4, 0.2}, vt::schedule::constant(2.0), 41);
  const hs::gaussian_law law = make_law(S);
  const dense_model M(S, law);
  std::mt19937_64 rng(4);
  const hs::dataset data = random_dataset(2, S.d, rng, 0.6);
  const hs::record r1{data.features.row(0).transpose(), data.labels[0]};
  const hs::record r2{data.features.row(1).transpose(), data.labels[1]};
  const std::vector<hs::record_pair> pairs = {{0, 1}};
  const std::vector<double> times = {0.25, 0.6, 1.0};
  const double alpha = 2.5, T = S.T, tJ = times.back();
  hs::mixture_options o;
  o.relative_tolerance = 1e-10;
  o.order = hs::renyi_order::forward;
  const hs::rdp_value it = hs::iterates_rdp(law, data, pairs, times, alpha, o);
  const hs::rdp_value av = hs::average_rdp(law, data, pairs, times, alpha, o);
  REQUIRE(it.converged());
  REQUIRE(av.converged());
  // The integrands jump at the release times (a block changes sides of s): split there.
  const std::vector<double> cuts = {0.25, 0.6};
  auto eps = [&](double I) { return std::log((T - tJ) / T + I / T) / (alpha - 1); };
  const double I_it = simpson(
      [&](double s) {
        return std::exp((alpha - 1) *
                        dense_divergence(M.joint(r1, times, s), M.joint(r2, times, s), alpha));
      },
      cuts, tJ, 120);
  const double I_av = simpson(
      [&](double s) {
        return std::exp((alpha - 1) *
                        dense_divergence(dense_model::average(M.joint(r1, times, s), S.d),
                                         dense_model::average(M.joint(r2, times, s), S.d), alpha));
      },
      cuts, tJ, 120);
  INFO("iterates " << dpkit::test::describe_mismatch(it.epsilon, eps(I_it)));
  INFO("average " << dpkit::test::describe_mismatch(av.epsilon, eps(I_av)));
  CHECK(relative_error(it.epsilon, eps(I_it)) < 1e-7);
  CHECK(relative_error(av.epsilon, eps(I_av)) < 1e-7);
  CHECK(it.time == tJ);
  // Releasing more can only cost more: ε of the joint release ≥ ε of its last block.
  const std::vector<double> last = {tJ};
  CHECK(it.epsilon >= hs::last_iterate_rdp(law, data, pairs, last, alpha, o).values[0].epsilon);
}

TEST_CASE("hsgd privacy: the discrete mixture over SGD steps equals its literal finite sum",
          "[hsgd][privacy]") {
  // d = 8, T = 1.5: n = 12 SGD steps; the record used at step l enters at s_l = (l − 1)/d.
  // Reference: the discrete mixture (docs/hsgd.md) written out with dense covariances, e^{(α−1)ε} =
  // (1/n)[#{l : s_l ≥ t} + Σ_{s_l < t} e^{(α−1) max D(t; s_l)}], the max over pairs and orders.
  const setup S = make_setup(8, {1.4, 1.1, 0.8, 0.6, 0.4, 0.3, 0.2, 0.1},
                             vt::schedule::step_decay(1.0, 0.5, 0.5), 41);
  const hs::gaussian_law law = make_law(S);
  const dense_model M(S, law);
  std::mt19937_64 rng(5);
  const hs::dataset data = random_dataset(3, S.d, rng, 0.3);
  auto rec = [&](long long i) { return record_of(data, i); };
  const std::vector<hs::record_pair> pairs = {{0, 1}, {1, 2}};
  const double alpha = 3.0;
  const int n = 12;
  const std::vector<double> times = {0.5, 0.9, 1.5};  // t·d = 4, 7.2, 12
  hs::mixture_options o;
  o.positions = hs::position_mixture::discrete;
  o.per_pair = true;
  const hs::rdp_trajectory tr = hs::last_iterate_rdp(law, data, pairs, times, alpha, o);
  REQUIRE(tr.converged());
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double t = times[k];
    CAPTURE(t);
    double sum_sup = 0;
    std::vector<double> sum_pair(pairs.size(), 0.0);
    int used = 0;
    for (int l = 1; l <= n; ++l) {
      const double s = (l - 1) / double(S.d);
      double sup = 0;
      if (s < t) {
        ++used;
        for (std::size_t q = 0; q < pairs.size(); ++q) {
          const gaussian g1 = M.last(rec(pairs[q].first), t, s);
          const gaussian g2 = M.last(rec(pairs[q].second), t, s);
          const double D =
              std::max(dense_divergence(g1, g2, alpha), dense_divergence(g2, g1, alpha));
          sum_pair[q] += std::exp((alpha - 1) * D);
          sup = std::max(sup, D);
        }
        sum_sup += std::exp((alpha - 1) * sup);
      } else {
        sum_sup += 1;
        for (double& x : sum_pair) x += 1;
      }
    }
    CHECK(used == static_cast<int>(std::ceil(t * S.d - 1e-9)));
    const double ref = std::log(sum_sup / n) / (alpha - 1);
    INFO(dpkit::test::describe_mismatch(tr.values[k].epsilon, ref));
    CHECK(relative_error(tr.values[k].epsilon, ref) < 1e-9);
    CHECK(tr.values[k].abs_error == 0.0);
    CHECK(tr.values[k].evaluations == used);
    for (std::size_t q = 0; q < pairs.size(); ++q)
      CHECK(relative_error(tr.values[k].pair_epsilons[q], std::log(sum_pair[q] / n) / (alpha - 1)) <
            1e-9);
  }
  // T·d must count the steps.
  const hs::gaussian_law odd =
      hs::gaussian_law::from_covariance(S.sigma, S.x0, S.xt, S.prm, S.gamma, 1.51);
  CHECK_THROWS_AS(hs::last_iterate_rdp(odd, data, pairs, times, alpha, o), std::domain_error);
}

TEST_CASE("hsgd privacy: the discrete mixture is the left Riemann sum of the continuous one",
          "[hsgd][privacy]") {
  // With a constant γ and one pair in one order the integrand f(s) = expm1((α−1)D(t; s)) is
  // smooth on [0, t], and e^{(α−1)ε} − 1 = (1/T)∫₀ᵗ f (continuous) or (1/n)Σ_{l<td} f(s_l)
  // (discrete, step h = 1/d). Euler–Maclaurin: discrete − continuous =
  // [−(h/2)(f(t) − f(0)) + (h²/12)(f′(t) − f′(0))]/T + O(h⁴), f′ by one-sided differences.
  std::vector<double> lambda(40);
  for (int i = 0; i < 40; ++i) lambda[static_cast<std::size_t>(i)] = 0.2 + 1.2 * i / 39.0;
  const setup S = make_setup(40, lambda, vt::schedule::constant(2.0), 43);
  const hs::gaussian_law law = make_law(S);
  std::mt19937_64 rng(9);
  const hs::record r1 = random_record(S.d, rng, 0.3), r2 = random_record(S.d, rng, 0.3);
  hs::dataset data{Eigen::MatrixXd(2, S.d), Eigen::Vector2d(r1.b, r2.b)};
  data.features.row(0) = r1.a.transpose();
  data.features.row(1) = r2.a.transpose();
  const std::vector<hs::record_pair> pairs = {{0, 1}};
  const double alpha = 2.0, t = 1.0, T = S.T;
  const std::vector<double> times = {t};
  hs::mixture_options o;
  o.order = hs::renyi_order::forward;
  o.relative_tolerance = 1e-12;
  const double cont = hs::last_iterate_rdp(law, data, pairs, times, alpha, o).values[0].epsilon;
  o.positions = hs::position_mixture::discrete;
  const double disc = hs::last_iterate_rdp(law, data, pairs, times, alpha, o).values[0].epsilon;
  auto f = [&](double s) {
    return std::expm1((alpha - 1) * hs::renyi_divergence(law, r1, r2, t, s, alpha));
  };
  const double gap = std::expm1((alpha - 1) * disc) - std::expm1((alpha - 1) * cont);
  const double h = 1.0 / S.d, e = 1e-4;
  const double df0 = (-3 * f(0) + 4 * f(e) - f(2 * e)) / (2 * e);
  const double dft = (3 * f(t) - 4 * f(t - e) + f(t - 2 * e)) / (2 * e);
  const double first = -h / 2 * (f(t) - f(0)) / T, second = h * h / 12 * (dft - df0) / T;
  INFO("discrete − continuous " << gap << ", Euler–Maclaurin terms " << first << ", " << second);
  CHECK(std::abs(first) > 1e-3 * std::expm1((alpha - 1) * cont));  // the gap is resolvable
  CHECK(std::abs(gap - first) < 0.1 * std::abs(first));
  CHECK(std::abs(gap - first - second) < 0.2 * std::abs(gap - first));
}

TEST_CASE("hsgd privacy: the law's interpolation error estimate covers a grid change",
          "[hsgd][privacy]") {
  // ε from a law kept on a coarse grid (64 intervals) against the default grid: the change must
  // be within the coarse law's law_error = ε·interpolation_error() (an estimate, measured ≈ 1e-3
  // of the actual change on LKSP25 §5), and the default grid's estimate must be tiny.
  const setup S =
      make_setup(6, {1.6, 1.0, 0.7, 0.4, 0.2, 0.05}, vt::schedule::cosine(4.0, 0.2, 1.5), 47);
  std::mt19937_64 rng(12);
  const hs::dataset data = random_dataset(4, S.d, rng, 0.3);
  const std::vector<hs::record_pair> pairs = hs::all_pairs(4);
  const std::vector<double> times = {0.2, 0.7, 1.5};
  hs::mixture_options o;
  o.relative_tolerance = 1e-11;
  hs::law_options coarse_grid;
  coarse_grid.grid_intervals = 64;
  const hs::gaussian_law fine = make_law(S);
  const hs::gaussian_law coarse =
      hs::gaussian_law::from_covariance(S.sigma, S.x0, S.xt, S.prm, S.gamma, S.T, coarse_grid);
  const hs::rdp_trajectory a = hs::last_iterate_rdp(fine, data, pairs, times, 2.0, o);
  const hs::rdp_trajectory b = hs::last_iterate_rdp(coarse, data, pairs, times, 2.0, o);
  REQUIRE(a.converged());
  REQUIRE(b.converged());
  CHECK(coarse.interpolation_error() > 1e3 * fine.interpolation_error());
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double change = std::abs(b.values[k].epsilon - a.values[k].epsilon);
    INFO("t = " << times[k] << ": change " << change << ", coarse law_error "
                << b.values[k].law_error << ", fine law_error " << a.values[k].law_error);
    CHECK(b.values[k].law_error > 0);
    CHECK(change <= b.values[k].law_error);
    CHECK(a.values[k].law_error < 1e-7 * a.values[k].epsilon);
  }
}

TEST_CASE("hsgd privacy: the mixture survives exp overflow by log-sum-exp scaling",
          "[hsgd][privacy]") {
  // Labels ±60 make (α − 1)D reach ≈ 4000 near s = t: e^{(α−1)D} overflows a double, so the
  // library rescales by e^{−max}. Reference: Simpson in log space, graded towards s = t.
  const std::vector<double> lambda = {1.0, 0.5, 0.2};
  const Eigen::VectorXd x0 = Eigen::Vector3d(0.5, -0.3, 0.2), xt = Eigen::Vector3d(0.1, 0.2, 0.3);
  const hs::gaussian_law law(hs::eigenbasis::identity(3), lambda, x0, xt, {0.1, 0.0, 0.05},
                             vt::schedule::constant(1.0), 1.0);
  hs::dataset data{Eigen::MatrixXd(2, 3), Eigen::Vector2d(60.0, -60.0)};
  data.features << 0.2, 0.1, 0.0, 0.0, 0.1, 0.2;
  const hs::record r1{data.features.row(0).transpose(), 60.0};
  const hs::record r2{data.features.row(1).transpose(), -60.0};
  const std::vector<hs::record_pair> pairs = {{0, 1}};
  const double alpha = 2.0, t = 1.0, T = 1.0;
  hs::mixture_options o;
  o.order = hs::renyi_order::forward;
  o.relative_tolerance = 1e-10;
  const std::vector<double> times = {t};
  const hs::rdp_trajectory tr = hs::last_iterate_rdp(law, data, pairs, times, alpha, o);
  REQUIRE(tr.converged());
  auto g = [&](double s) { return (alpha - 1) * hs::renyi_divergence(law, r1, r2, t, s, alpha); };
  // Simpson on [0, t − 0.05] and [t − 0.05, t], the weights and log-values kept apart.
  std::vector<std::pair<double, double>> nodes;  // (weight, g)
  for (auto [a, b, n] : {std::tuple{0.0, t - 0.05, 200}, std::tuple{t - 0.05, t, 20000}}) {
    const double h = (b - a) / n;
    for (int i = 0; i <= n; ++i)
      nodes.emplace_back(h / 3 * (i == 0 || i == n ? 1 : (i % 2 ? 4 : 2)), g(a + i * h));
  }
  double gmax = 0;
  for (const auto& [w, v] : nodes) gmax = std::max(gmax, v);
  CHECK(gmax > 1000);  // e^{gmax} overflows
  double sum = 0;
  for (const auto& [w, v] : nodes) sum += w * std::exp(v - gmax);
  // ε = [g_max + log(e^{−g_max}(T − t)/T + Σ/T)]/(α − 1), LKSP25 eq. (15).
  const double ref = (gmax + std::log(std::exp(-gmax) * (T - t) / T + sum / T)) / (alpha - 1);
  INFO(dpkit::test::describe_mismatch(tr.values[0].epsilon, ref));
  CHECK(relative_error(tr.values[0].epsilon, ref) < 1e-9);
}

TEST_CASE("hsgd privacy: the mean-gap proxy and pair screens", "[hsgd][privacy]") {
  const setup S = make_setup(5, {1.3, 0.9, 0.5, 0.5, 0.2}, vt::schedule::constant(2.0), 51);
  const hs::gaussian_law law = make_law(S);
  const dense_model M(S, law);
  std::mt19937_64 rng(8);
  const hs::dataset data = random_dataset(8, S.d, rng, 0.5);
  const std::vector<hs::record_pair> pairs = hs::all_pairs(8);
  CHECK(pairs.size() == 28);
  const double s = 0.4;
  const std::vector<double> proxy = hs::mean_gap_proxy(law, data, pairs, s);
  const Eigen::VectorXd ms = M.mean(s);
  const double h = 2.0 / S.d;
  for (std::size_t q = 0; q < pairs.size(); ++q) {
    const Eigen::VectorXd a1 = data.features.row(pairs[q].first).transpose();
    const Eigen::VectorXd a2 = data.features.row(pairs[q].second).transpose();
    const double res1 = data.labels[pairs[q].first] - a1.dot(ms);
    const double res2 = data.labels[pairs[q].second] - a2.dot(ms);
    // ‖m₁(s⁺) − m₂(s⁺)‖ of the dense construction, too.
    const gaussian g1 = M.last({a1, data.labels[pairs[q].first]}, s, s);
    const gaussian g2 = M.last({a2, data.labels[pairs[q].second]}, s, s);
    CHECK(relative_error(proxy[q], h * (res1 * a1 - res2 * a2).norm()) < 1e-12);
    CHECK(relative_error(proxy[q], (g1.mean - g2.mean).norm()) < 1e-12);
  }
  const std::vector<hs::record_pair> top = hs::top_pairs_by_proxy(law, data, pairs, s, 3);
  REQUIRE(top.size() == 3);
  const double pmax = *std::max_element(proxy.begin(), proxy.end());
  const auto first = std::find_if(pairs.begin(), pairs.end(), [&](const hs::record_pair& p) {
    return p.first == top[0].first && p.second == top[0].second;
  });
  CHECK(proxy[static_cast<std::size_t>(first - pairs.begin())] == pmax);
  const std::vector<hs::record_pair> ext = hs::extreme_label_pairs(data, 2);
  REQUIRE(ext.size() == 4);
  Eigen::Index imax = 0, imin = 0;
  data.labels.maxCoeff(&imax);
  data.labels.minCoeff(&imin);
  CHECK(ext[0].first == imax);
  CHECK(ext[0].second == imin);
  REQUIRE_THROWS_WITH(hs::extreme_label_pairs(data, 5),
                      Contains("count is 5, but must be <= n/2 = 4"));
}

TEST_CASE("hsgd privacy: epsilon-delta from the RDP orders by the divergence conversions",
          "[hsgd][privacy]") {
  // The conversions written out (as in divergence/rdp.hpp): Mironov 2017 Prop 3; Balle et al. 2020
  // Thm 21; Asoodeh et al. 2021 Lemma 1; the best order and conversion wins, clamped at 0.
  const std::vector<double> alphas = {1.5, 2, 4, 8, 16, 32};
  const std::vector<double> rdp = {0.004, 0.006, 0.013, 0.03, 0.07, INFINITY};
  const double delta = 1e-5;
  double best = INFINITY;
  for (std::size_t i = 0; i + 1 < alphas.size(); ++i) {
    const double a = alphas[i], e = rdp[i];
    best = std::min(best, e + std::log(1 / delta) / (a - 1));
    best = std::min(best, e + std::log((a - 1) / a) - (std::log(delta) + std::log(a)) / (a - 1));
    best = std::min(best, std::log(std::expm1((a - 1) * e) / (a * delta) + 1) / (a - 1));
  }
  best = std::max(best, 0.0);
  const dv::rdp_epsilon_result r = hs::epsilon_delta(alphas, rdp, delta);
  CHECK(relative_error(r.value, best) < 1e-12);
  CHECK(r.kind == dpkit::bound_kind::approximation);
  CHECK_THAT(r.message, Contains("approximation for noisy SGD"));
  const std::vector<double> all_inf = {INFINITY, INFINITY};
  const std::vector<double> two = {2, 3};
  CHECK(hs::epsilon_delta(two, all_inf, delta).value == INFINITY);
  REQUIRE_THROWS_WITH(hs::epsilon_delta(two, std::vector<double>{0.1}, delta),
                      Contains("rdp_epsilons.size() is 1"));
  // The trajectory version: one RDP trajectory per order, converted at each time.
  const setup S = make_setup(3, {1.0, 0.5, 0.2}, vt::schedule::constant(1.0), 81);
  const hs::gaussian_law law = make_law(S);
  hs::dataset data{Eigen::MatrixXd(2, 3), Eigen::Vector2d(0.8, -0.6)};
  data.features << 0.3, -0.2, 0.4, -0.1, 0.5, 0.2;
  const std::vector<hs::record_pair> pairs = {{0, 1}};
  const std::vector<double> times = {0.4, 1.5}, orders = {2, 8};
  const auto eds = hs::last_iterate_epsilon_delta(law, data, pairs, times, orders, delta);
  REQUIRE(eds.size() == 2);
  for (std::size_t j = 0; j < 2; ++j) {
    const std::vector<double> rdp_j = {
        hs::last_iterate_rdp(law, data, pairs, times, 2.0).values[j].epsilon,
        hs::last_iterate_rdp(law, data, pairs, times, 8.0).values[j].epsilon};
    CHECK(eds[j].value == hs::epsilon_delta(orders, rdp_j, delta).value);
    CHECK(eds[j].kind == dpkit::bound_kind::approximation);
  }
  CHECK(eds[1].value > eds[0].value);  // ε(t) grows while the last iterate sees more steps
}

TEST_CASE("hsgd privacy: bad input is rejected with the check_* message", "[hsgd][privacy]") {
  const setup S = make_setup(3, {1.0, 0.5, 0.2}, vt::schedule::constant(1.0), 61);
  const hs::gaussian_law law = make_law(S);
  std::mt19937_64 rng(2);
  const hs::record r1 = random_record(3, rng, 0.5), r2 = random_record(3, rng, 0.5);
  REQUIRE_THROWS_WITH(hs::renyi_divergence(law, r1, r2, 1.0, 0.5, 1.0),
                      Contains("renyi_divergence: alpha is 1, but must be finite and > 1"));
  REQUIRE_THROWS_WITH(hs::renyi_divergence(law, r1, r2, 2.0, 0.5, 2.0),
                      Contains("t is 2, but must be in [0, T] = [0, 1.5], T the horizon"));
  REQUIRE_THROWS_WITH(
      hs::renyi_divergence(law, hs::record{Eigen::Vector2d(1, 1), 0.0}, r2, 1, 0.5, 2),
      Contains("first.a.size() is 2, but must be d = 3"));
  // The DP noise's variance per step (γσ/d)² must be a normal double: at γ = 1e-200 every
  // divergence came out NaN (the CLI's --learning-rate limit does not cover Python or a small σ).
  const setup tiny = make_setup(3, {1.0, 0.5, 0.2}, vt::schedule::constant(1e-200), 61);
  REQUIRE_THROWS_WITH(hs::renyi_divergence(make_law(tiny), r1, r2, 1.0, 0.5, 2.0),
                      Contains("learning_rate is 1e-200, but must be large enough that the DP "
                               "noise's variance per step, (gamma sigma / d)^2"));
  const std::vector<double> bad_times = {0.5, 0.5};
  REQUIRE_THROWS_WITH(
      hs::renyi_divergence_iterates(law, r1, r2, bad_times, 0.1, 2.0),
      Contains("times[1] is 0.5, but must be > the entry before it, 0.5 (strictly increasing)"));
  hs::dataset data{Eigen::MatrixXd::Ones(3, 3), Eigen::Vector3d(1, 2, 3)};
  const std::vector<hs::record_pair> bad_pair = {{0, 3}};
  const std::vector<double> times = {0.5};
  REQUIRE_THROWS_WITH(hs::last_iterate_rdp(law, data, bad_pair, times, 2.0),
                      Contains("pairs[0].second is 3, but must be in [0, 3)"));
  const std::vector<hs::record_pair> same = {{1, 1}};
  REQUIRE_THROWS_AS(hs::last_iterate_rdp(law, data, same, times, 2.0), std::domain_error);
  const hs::gaussian_law silent = hs::gaussian_law::from_covariance(
      S.sigma, S.x0, S.xt, {0.1, 0.01, 0.0}, vt::schedule::constant(1.0), 1.5);
  REQUIRE_THROWS_WITH(hs::renyi_divergence(silent, r1, r2, 1.0, 0.5, 2.0),
                      Contains("law.problem().sigma is 0, but must be finite and > 0"));
  hs::mixture_options o;
  o.max_intervals = 0;
  const std::vector<hs::record_pair> ok = {{0, 1}};
  REQUIRE_THROWS_WITH(hs::last_iterate_rdp(law, data, ok, times, 2.0, o),
                      Contains("options.max_intervals is 0"));
}

TEST_CASE("hsgd privacy: a budget of intervals that runs out is reported and not hidden",
          "[hsgd][privacy]") {
  const setup S = make_setup(3, {1.0, 0.5, 0.2}, vt::schedule::constant(2.0), 71);
  const hs::gaussian_law law = make_law(S);
  hs::dataset data{Eigen::MatrixXd(2, 3), Eigen::Vector2d(1.5, -1.0)};
  data.features << 0.5, 0.2, -0.3, -0.4, 0.6, 0.1;
  const std::vector<hs::record_pair> pairs = {{0, 1}};
  const std::vector<double> times = {1.2};
  hs::mixture_options o;
  o.max_intervals = 2;
  o.relative_tolerance = 1e-14;
  const hs::rdp_trajectory tr = hs::last_iterate_rdp(law, data, pairs, times, 2.0, o);
  CHECK(tr.termination == dpkit::termination_type::max_iterations);
  CHECK_THAT(tr.message, Contains("max_intervals"));
  CHECK(std::isfinite(tr.values[0].epsilon));
}
