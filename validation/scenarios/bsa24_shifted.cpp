// BSA24 scenarios on its worst-case constructions (W1–W5, docs/shifted.md). The bounds come from
// the shifted module (dpkit/shifted/bounds.hpp); the simulator never sees them.
#include <cmath>
#include <memory>

#include "../harness/scenarios.hpp"
#include "dpkit/accounting/run_tradeoff.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/shifted/bounds.hpp"
#include "dpkit/shifted/interpolation.hpp"
#include "dpkit/shifted/noisy_sgd.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/sim/models.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "dpkit/subsampling/subsampled_tradeoff.hpp"

namespace dpkit::validation {
namespace {

scenario_result thm42_tight(const scenario_context& c) {
  // W1: ∇f_i = m x, ∇f′_{i*} = m x − L e_0; NoisyGD with η ≤ 2/(M + m) (M = m here).
  const std::size_t n = 10, dim = 2;
  const double m = 1, L = 2, eta = 0.5, sigma = 0.4;
  const long t = 25;
  const double cc = shifted::contraction(eta, m, m);  // M = m
  shifted::noisy_gradient_setting st;
  st.sensitivity = L;
  st.examples = static_cast<long long>(n);
  st.noise = sigma;
  st.learning_rate = eta;
  st.steps = t;
  st.contraction = cc;
  const double mu = shifted::noisy_gd_strongly_convex(st).mu;  // BSA24 Thm 4.2
  scenario_result r;
  r.id = "bsa24-thm4.2-tight";
  r.title = "NoisyGD, strongly convex: Thm 4.2 is exact on W1";
  r.source = "BSA24 Thm 4.2 / C.5 (Bok, Su & Altschuler 2024); construction W1 (docs/shifted.md)";
  r.claim = "T(X_t, X'_t) >= G(mu_4.2) for NoisyGD on (m/2)|x|^2 with one example shifted by L";
  r.parameters = {{"n", n},         {"d", dim},   {"m", m},  {"L", L},  {"eta", eta},
                  {"sigma", sigma}, {"steps", t}, {"c", cc}, {"mu", mu}};
  auto base = std::make_shared<sim::quadratic>(n, dim, m);
  sim::vector w = sim::vector::Zero(static_cast<Eigen::Index>(dim));
  w[0] = L;
  const sim::linearly_perturbed neighbour(base, n - 1, w);
  sim::noisy_gradient_options o;
  o.steps = t;
  o.learning_rate = eta;
  o.noise = sigma;
  std::vector<double> d, dp;
  run_pair(c, replicates_for(c, 20000, 400000), *base, neighbour, o, r.id, d, dp);
  audit_gdp_claim(d, dp, c.bound_factor * mu, r);
  r.figure.title = "NoisyGD on W1 (t = 25): empirical tradeoff vs Thm 4.2";
  return r;
}

scenario_result lmc_remark53(const scenario_context& c) {
  // Remark 5.3: F = (m/2)|x|², F′ = (m/2)|x − (L/m)v|², i.e. ∇F′ = m x − L v; LMC with step η.
  const std::size_t dim = 2;
  const double m = 1, L = 1.2, eta = 0.1;
  const long t = 400;  // c^{t} = 0.9^400 ≈ 5e-19: the stationary regime
  // Prop 5.1: T ≥ G(√((2 − ηm)/2) · L/√m), for all t; equality in the stationary limit.
  const double mu = shifted::lmc(L, m, eta).mu;
  scenario_result r;
  r.id = "bsa24-rem5.3-lmc";
  r.title = "LMC on the quadratic pair of Remark 5.3: Prop 5.1 is tight";
  r.source = "BSA24 Prop 5.1, Remark 5.3 (construction W3, docs/shifted.md)";
  r.claim = "T(X_t, X'_t) >= G(sqrt((2 - eta m)/2) L/sqrt(m)), tight as t grows";
  r.parameters = {{"d", dim}, {"m", m}, {"L", L}, {"eta", eta}, {"steps", t}, {"mu", mu}};
  auto base = std::make_shared<sim::quadratic>(1, dim, m);
  sim::vector w = sim::vector::Zero(static_cast<Eigen::Index>(dim));
  w[0] = L;
  const sim::linearly_perturbed neighbour(base, 0, w);
  const sim::noisy_gradient_options o = sim::lmc_options(eta, t);
  std::vector<double> d, dp;
  run_pair(c, replicates_for(c, 10000, 200000), *base, neighbour, o, r.id, d, dp);
  audit_gdp_claim(d, dp, c.bound_factor * mu, r);
  r.figure.title = "LMC (η = 0.1, t = 400) on Remark 5.3's pair against Prop 5.1";
  return r;
}

scenario_result lmc_cor52_logistic(const scenario_context& c) {
  // Cor 5.2 beyond Remark 5.3's quadratics: F(x) = log(1 + e^{−y aᵀx}) + (m/2)|x|² (one
  // logistic example with ridge m: m-strongly convex, M = m + |a|²/4 smooth, not quadratic) and
  // F′ = F − L⟨x, e_0⟩, so F − F′ is L-Lipschitz. LMC for t = 400 steps (c^t ≈ 5e-19: the
  // stationary law π(η) up to negligible terms) must satisfy G(√((2 − ηm)/2)·L/√m).
  const std::size_t dim = 2;
  const double m = 1, L = 1.2, eta = 0.1;
  const long t = 400;
  auto data = std::make_shared<sim::dataset>();
  data->features.resize(1, 2);
  data->features << 1.5, -0.5;
  data->labels = Eigen::VectorXd::Ones(1);
  const double M = m + data->features.row(0).squaredNorm() / 4;
  const double mu = shifted::lmc(L, m, eta).mu;  // Prop 5.1 / Cor 5.2
  scenario_result r;
  r.id = "bsa24-cor5.2-lmc-logistic";
  r.title = "LMC on a logistic potential: Prop 5.1 / Cor 5.2 hold off the quadratic case";
  r.source = "BSA24 Prop 5.1, Cor 5.2";
  r.claim =
      "T(X_t, X'_t) >= G(sqrt((2 - eta m)/2) L/sqrt(m)) for LMC on m-strongly convex F, F' with "
      "F - F' L-Lipschitz (here F logistic + ridge, not quadratic)";
  r.parameters = {{"d", dim},   {"m", m},     {"M", M},   {"L", L},
                  {"eta", eta}, {"steps", t}, {"mu", mu}, {"a", {1.5, -0.5}}};
  auto base = std::make_shared<sim::logistic_regression>(data, m);
  sim::vector w = sim::vector::Zero(static_cast<Eigen::Index>(dim));
  w[0] = L;
  const sim::linearly_perturbed neighbour(base, 0, w);
  const sim::noisy_gradient_options o = sim::lmc_options(eta, t);
  std::vector<double> d, dp;
  run_pair(c, replicates_for(c, 10000, 200000), *base, neighbour, o, r.id, d, dp);
  audit_gdp_claim(d, dp, c.bound_factor * mu, r);
  r.notes.push_back("eta = 0.1 <= 2/(M + m) = " + format_value(2 / (M + m)) +
                    " as Prop 5.1 requires; the logistic curvature makes the laws non-Gaussian "
                    "and the pair more private than the quadratic one of Remark 5.3");
  r.figure.title = "LMC (η = 0.1, t = 400) on a logistic potential against Prop 5.1 / Cor 5.2";
  return r;
}

scenario_result cgd_thm45(const scenario_context& c) {
  // W2 (Thm C.17's construction): the W1 quadratics under NoisyCGD with fixed batches
  // 0..b−1, b..2b−1, …; the differing example sits in the last batch. X_t is Gaussian with
  // μ_exact = μ_C.17, strictly below Thm 4.5's μ: the upper bound must hold, and the
  // estimate must sit at the lower bound.
  const std::size_t n = 20, b = 2, dim = 2;
  const long long l = static_cast<long long>(n / b), epochs = 5;
  const double m = 1, L = 2, eta = 0.05, sigma = 1;
  shifted::noisy_gradient_setting st;
  st.sensitivity = L;
  st.examples = static_cast<long long>(n);
  st.batch_size = static_cast<long long>(b);
  st.noise = sigma;
  st.learning_rate = eta;
  st.steps = l * epochs;
  st.contraction = shifted::contraction(eta, m, m);
  const double mu_upper = shifted::noisy_cgd_strongly_convex(st).mu;        // Thm 4.5
  const double mu_lower = shifted::noisy_cgd_strongly_convex_lower(st).mu;  // Thm C.17
  scenario_result r;
  r.id = "bsa24-thm4.5-cgd";
  r.title = "NoisyCGD, strongly convex: Thm 4.5 holds on W2, which attains Thm C.17";
  r.source = "BSA24 Thm 4.5 and Thm C.17 (construction W2, docs/shifted.md)";
  r.claim = "T(X_t, X'_t) >= G(mu_4.5); on W2 the curve is G(mu_C.17) with mu_C.17 < mu_4.5";
  r.parameters = {{"n", n},
                  {"b", b},
                  {"l", l},
                  {"epochs", epochs},
                  {"m", m},
                  {"L", L},
                  {"eta", eta},
                  {"sigma", sigma},
                  {"c", st.contraction},
                  {"mu_4.5", mu_upper},
                  {"mu_C.17", mu_lower}};
  auto base = std::make_shared<sim::quadratic>(n, dim, m);
  sim::vector w = sim::vector::Zero(static_cast<Eigen::Index>(dim));
  w[0] = L;
  const sim::linearly_perturbed neighbour(base, n - 1, w);  // in the last batch B_l
  sim::noisy_gradient_options o;
  o.batches = sim::batch_rule::cyclic;
  o.batch_size = b;
  o.steps = static_cast<long>(st.steps);
  o.learning_rate = eta;
  o.noise = sigma;
  std::vector<double> d, dp;
  run_pair(c, replicates_for(c, 20000, 400000), *base, neighbour, o, r.id, d, dp);
  audit_gdp_claim(d, dp, c.bound_factor * mu_upper, r);
  r.notes.push_back("Thm C.17 lower bound mu = " + format_value(mu_lower) +
                    " (the exact mu of this construction): estimate/lower = " +
                    format_value(r.estimate / mu_lower));
  r.figure.title = "NoisyCGD on W2 (l = 10, E = 5): empirical tradeoff vs Thm 4.5";
  return r;
}

scenario_result sgd_one_step(const scenario_context& c) {
  // W4 (BSA24 §C.4.1, one-step optimality of Thm 4.8): linear losses with ∇f_i = 0 (i ≠ i*),
  // ∇f_{i*} = (1 − λ)L u and ∇f′_{i*} = −λL u; one NoisySGD step from 0 with a uniform batch of
  // size b. ⟨X_1, u⟩ has the laws of T = f^(λ), which lies above C_p(G(L/(bσ))) and touches
  // it at one point (the claim of Thm 4.8 at t = 1 is tight).
  const std::size_t n = 4, b = 2;
  const double L = 6, sigma = 1, lambda = 0.5, eta = 1;
  const double p = static_cast<double>(b) / static_cast<double>(n);
  const double mu = L / (static_cast<double>(b) * sigma);
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n), 1), gp = g;
  g(0, 0) = (1 - lambda) * L;
  gp(0, 0) = -lambda * L;
  const sim::linear fd(g), fdp(gp);
  sim::noisy_gradient_options o;
  o.batches = sim::batch_rule::shuffled;
  o.batch_size = b;
  o.steps = 1;
  o.learning_rate = eta;
  o.noise = sigma;
  std::vector<double> d, dp;
  // X_1 = −η(ḡ + Z) with ḡ = (1 − λ)(L/b)V under D and −λ(L/b)V under D′ (V ~ Ber(p)):
  // X_1 is larger under D′.
  run_pair(c, replicates_for(c, 20000, 400000), fd, fdp, o, "bsa24-thm4.8-sgd-one-step", d, dp);
  const double mu_claim = c.bound_factor * mu;
  const subsampling::cp_gaussian_tradeoff claim(mu_claim, p);
  scenario_result r;
  r.id = "bsa24-thm4.8-sgd-one-step";
  r.title = "NoisySGD, one step on W4: Thm 4.8's C_p(G(L/(b sigma))) is touched by f^(lambda)";
  r.source = "BSA24 Thm 4.8, §C.4.1 one-step optimality (construction W4, docs/shifted.md)";
  r.claim = "T(X_1, X'_1) >= C_p(G(L/(b sigma))), with equality at one alpha for lambda = 1/2";
  r.parameters = {{"n", n},         {"b", b},           {"p", p},  {"L", L},
                  {"sigma", sigma}, {"lambda", lambda}, {"mu", mu}};
  audit_tradeoff_claim(
      d, dp, [&](double a) { return claim.beta(a); },
      "claimed bound C_p(G(" + format_value(std::round(mu_claim * 1e4) / 1e4) + "))", r);
  // The exact curve of the construction, f^(λ) (BSA24 §C.4.1 (c)), for the figure:
  // α(z) = 1 − (1 − p)Φ(z) − pΦ(z + (1 − λ)μ), f(α(z)) = (1 − p)Φ(z) + pΦ(z − λμ).
  series exact;
  exact.name = "exact curve of W4, f^{(λ)}";
  for (int i = 0; i <= 400; ++i) {
    const double z = -8 + 16.0 * i / 400;
    exact.x.push_back(1 - (1 - p) * normal_cdf(z) - p * normal_cdf(z + (1 - lambda) * mu));
    exact.y.push_back((1 - p) * normal_cdf(z) + p * normal_cdf(z - lambda * mu));
  }
  r.figure.data.push_back(exact);
  r.notes.push_back(
      "C_p(G(mu)) is the lower envelope of the f^(lambda); lambda = 1/2 touches it "
      "at alpha = p Phi(-mu/2) + (1 - p)/2 (BSA24 Sec C.4.1), so boxes straddle it there");
  r.figure.title = "One NoisySGD step on W4 (p = 1/2, L/(bσ) = 3) against Thm 4.8";
  return r;
}

// The tradeoff curve of a NoisySGD bound (a training run) as a claim: PLD-certified lower β on
// a grid of 2001 α; between grid points the claim is β at the next grid point (β decreases, so
// that stays a valid lower bound).
std::function<double(double)> certified_curve(const accounting::training_run& run) {
  std::vector<double> alphas(2001);
  for (std::size_t k = 0; k < alphas.size(); ++k) alphas[k] = static_cast<double>(k) / 2000;
  auto beta =
      std::make_shared<const std::vector<double>>(accounting::run_tradeoff(run, alphas).beta_lower);
  return [beta](double al) {
    const auto k = static_cast<std::size_t>(std::ceil(std::clamp(al, 0.0, 1.0) * 2000));
    return (*beta)[std::min(k, beta->size() - 1)];
  };
}

// A random logistic-regression pair: n examples of a Gaussian design (covariance 0.1 I in
// dimension d, seed stream 0) with logistic labels from x* = (1, …, 1) (stream 4), and D′ with
// the label of example i flipped. Flipping y_i changes ∇f_i by exactly y_i a_i
// (σ(t) + σ(−t) = 1), so the gradient sensitivity is L = |a_i|, and D′ pushes the iterates
// along −y_i a_i. M = ridge + max|a_j|²/4 bounds the smoothness.
struct logistic_pair {
  std::shared_ptr<sim::dataset> data, dprime;
  Eigen::VectorXd a;  // a_i
  double y = 0;       // y_i on D
  double M = 0;
};

logistic_pair make_logistic_pair(
    const scenario_context& c, std::size_t n, std::size_t dim, double ridge, std::size_t i) {
  random_stream design_stream(c.seed, 0, 0), label_stream(c.seed, 0, 4);
  logistic_pair out;
  out.data = std::make_shared<sim::dataset>();
  out.data->features = sim::gaussian_design(
      n, Eigen::VectorXd::Constant(static_cast<Eigen::Index>(dim), 0.1), design_stream);
  out.data->labels = sim::logistic_labels(
      out.data->features, Eigen::VectorXd::Ones(static_cast<Eigen::Index>(dim)), label_stream);
  out.a = out.data->features.row(static_cast<Eigen::Index>(i)).transpose();
  out.y = out.data->labels[static_cast<Eigen::Index>(i)];
  out.dprime = std::make_shared<sim::dataset>(sim::replace_one(*out.data, i, out.a, -out.y));
  out.M = ridge + out.data->features.rowwise().squaredNorm().maxCoeff() / 4;
  return out;
}

// Validity on a random problem: projected NoisyGD / NoisyCGD / NoisySGD on a logistic pair
// (make_logistic_pair, differing in the last example). The statistic ⟨X_t, −y_i a_i⟩/|a_i| is
// larger under D′; any statistic is a post-processing, so the claim must hold for it.
enum class batches { full, cyclic, stochastic };

scenario_result logistic_validity(const scenario_context& c, batches kind, bool constrained) {
  // Strongly convex: ridge 1, n = 20, d = 3, t ≈ 30. Constrained convex: no ridge (c = 1), the
  // ball of radius 1.5 (D = 3) and a long run, so that the diameter bound matters (n = 4, d = 2,
  // t = 600 ≥ 4Dn/(ηL)).
  // (Constrained NoisySGD, not registered, would use n = 40, b = 2, σ = 1: Thm 4.10 not vacuous.)
  const bool sgd = kind == batches::stochastic;
  const std::size_t n = constrained ? (sgd ? 40 : 4) : 20, dim = constrained ? 2 : 3;
  const std::size_t b = kind == batches::full ? n : constrained ? 2 : 5;
  const double ridge = constrained ? 0 : 1, eta = 0.2, radius = 1.5;
  const long long t = constrained ? 600 : kind == batches::cyclic ? 32 : 30;  // CGD: whole epochs
  const double sigma = constrained ? (sgd ? 1.0 : 0.5) : kind == batches::full ? 0.06 : 0.25;
  // The differing example is the last one: in the last batch of the cyclic order.
  const logistic_pair pair = make_logistic_pair(c, n, dim, ridge, n - 1);
  const Eigen::VectorXd& a = pair.a;
  const double y = pair.y, M = pair.M;
  const sim::logistic_regression f(pair.data, ridge), fp(pair.dprime, ridge);

  shifted::noisy_gradient_setting st;
  // Every μ of these bounds is linear in (L, D) jointly: the bound factor scales both.
  st.sensitivity = c.bound_factor * a.norm();
  if (constrained) st.diameter = c.bound_factor * 2 * radius;
  st.examples = static_cast<long long>(n);
  st.batch_size = static_cast<long long>(b);
  st.noise = sigma;
  st.learning_rate = eta;
  st.steps = t;
  st.contraction = shifted::contraction(eta, ridge, M);

  sim::noisy_gradient_options o;
  o.batches = kind == batches::full     ? sim::batch_rule::full
              : kind == batches::cyclic ? sim::batch_rule::cyclic
                                        : sim::batch_rule::shuffled;
  o.batch_size = b;
  o.steps = static_cast<long>(t);
  o.learning_rate = eta;
  o.noise = sigma;
  o.constraint = sim::projection::ball(sim::vector::Zero(dim), radius);
  const sim::vector direction = -y * a / a.norm();
  std::vector<double> d, dp;
  scenario_result r;
  const char* const ids[2][3] = {
      {"bsa24-thm4.2-logistic", "bsa24-thm4.5-logistic", "bsa24-thm4.9-logistic"},
      {"bsa24-thm4.3-logistic", "bsa24-thm4.6-logistic", "bsa24-thm4.10-logistic"}};
  const std::string id = ids[constrained ? 1 : 0][static_cast<int>(kind)];
  sample_pair(
      c, replicates_for(c, constrained ? 8000 : 20000, 400000), id,
      [&](std::uint64_t rep, double& x, double& yy) {
        x = sim::run_noisy_gradient(f, o, sim::vector::Zero(dim), {c.seed, rep, 0}).dot(direction);
        yy = sim::run_noisy_gradient(fp, o, sim::vector::Zero(dim), {c.seed, rep, 100})
                 .dot(direction);
      },
      d, dp);

  r.id = id;
  r.parameters = {
      {"n", n},       {"b", b},         {"d", dim},         {"ridge", ridge}, {"M", M},
      {"eta", eta},   {"sigma", sigma}, {"radius", radius}, {"steps", t},     {"c", st.contraction},
      {"L", a.norm()}};
  const std::string theorem = constrained ? (kind == batches::full     ? "Thm 4.3"
                                             : kind == batches::cyclic ? "Thm 4.6"
                                                                       : "Thm 4.10")
                                          : (kind == batches::full     ? "Thm 4.2"
                                             : kind == batches::cyclic ? "Thm 4.5"
                                                                       : "Thm 4.9");
  const std::string algorithm = kind == batches::full     ? "NoisyGD"
                                : kind == batches::cyclic ? "NoisyCGD"
                                                          : "NoisySGD";
  const std::string problem =
      constrained ? "logistic regression on a ball (convex)" : "ridge logistic regression";
  r.title = "Projected " + algorithm + " on " + problem + " never violates " + theorem;
  if (kind == batches::stochastic) {
    // Thm 4.9 / 4.10 by PLD at the best τ; its tradeoff curve on a fine α grid. The claim between
    // grid points is the certified lower β at the next grid point (β decreases): still valid.
    const shifted::sgd_bound bound = constrained ? shifted::noisy_sgd_constrained_convex(st, 1e-5)
                                                 : shifted::noisy_sgd_strongly_convex(st, 1e-5);
    r.source = "BSA24 " + theorem + " (tau optimised, PLD-certified curve); random problem";
    r.claim = "T(X_t, X'_t) >= the " + theorem + " tradeoff curve (PLD lower bound)";
    r.parameters["tau"] = bound.tau;
    audit_tradeoff_claim(d, dp, certified_curve(bound.run),
                         "claimed bound: " + theorem + " (tau = " + std::to_string(bound.tau) + ")",
                         r);
  } else {
    // Strongly convex: the closed forms. Constrained: the optimisation problem (its best τ is at
    // least as good as the theorems' general forms).
    const shifted::gdp_bound bound =
        constrained ? (kind == batches::full ? shifted::noisy_gd_shifted(st)
                                             : shifted::noisy_cgd_shifted(st))
                    : (kind == batches::full ? shifted::noisy_gd_strongly_convex(st)
                                             : shifted::noisy_cgd_strongly_convex(st));
    r.source = "BSA24 " + theorem +
               (constrained ? " via the optimisation problem (Thm C.3 with z_tau = D)"
                            : "; random problem (valid with a projection: the CNI proof, Thm C.5)");
    r.claim = "T(X_t, X'_t) >= G(mu) of the theorem";
    r.parameters["tau"] = bound.tau;
    audit_gdp_claim(d, dp, bound.mu, r);
  }
  r.notes.push_back("statistic: <X_t, -y_i a_i>/|a_i|, the direction D' pushes the iterates");
  r.figure.title = legend_words(r.title);
  return r;
}

scenario_result box_construction(const scenario_context& c, bool stochastic) {
  // Thm C.16's construction (constrained convex lower bound): d = 1, ∇f_i ≡ 0 on D, and on D′
  // one example has the constant gradient −L; X_0 = 0 and K = [−D/2, D/2]. Under D the walk is
  // symmetric, under D′ it drifts towards the upper wall. C.16 says the constrained bounds are
  // tight up to a constant factor, which the tightness ratio (or the self-check) measures.
  //   NoisyGD, n = 1: drift ηL per step; claim: the optimisation problem with z_τ = D
  //     (Thm 4.3 / C.3), σ = 4, t = 200 ≥ 4Dn/(ηL) = 40 (the diameter bound beats composition).
  //   NoisySGD, b = 1 of n = 2: the drift comes on the steps that sample the differing example
  //     (p = 1/2); claim: Thm 4.10's PLD-certified curve at the best τ, σ = 2.
  const std::size_t n = stochastic ? 2 : 1, b = 1;
  const double L = 1, D = 1, eta = 0.1, sigma = stochastic ? 2 : 4;
  const long long t = 200;
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n), 1), gp = g;
  gp(static_cast<Eigen::Index>(n) - 1, 0) = -L;
  const sim::linear fd(g), fdp(gp);
  sim::noisy_gradient_options o;
  if (stochastic) {
    o.batches = sim::batch_rule::shuffled;
    o.batch_size = b;
  }
  o.steps = static_cast<long>(t);
  o.learning_rate = eta;
  o.noise = sigma;
  o.constraint =
      sim::projection::box(sim::vector::Constant(1, -D / 2), sim::vector::Constant(1, D / 2));
  shifted::noisy_gradient_setting st;
  st.sensitivity = L * c.bound_factor;  // every μ here is linear in (L, D) jointly
  st.diameter = D * c.bound_factor;
  st.examples = static_cast<long long>(n);
  st.batch_size = static_cast<long long>(b);
  st.noise = sigma;
  st.learning_rate = eta;
  st.steps = t;
  st.contraction = 1;
  scenario_result r;
  r.id = stochastic ? "bsa24-thm4.10-box" : "bsa24-thmC.16-box";
  std::vector<double> d, dp;
  run_pair(c, replicates_for(c, 20000, 400000), fd, fdp, o, r.id, d, dp);
  r.parameters = {{"n", n}, {"L", L}, {"D", D}, {"eta", eta}, {"sigma", sigma}, {"steps", t}};
  if (stochastic) {
    const shifted::sgd_bound bound = shifted::noisy_sgd_constrained_convex(st, 1e-5);
    r.title = "Constrained convex NoisySGD on the box construction vs Thm 4.10";
    r.source = "BSA24 Thm 4.10 (tau optimised, PLD-certified curve); Thm C.16's losses";
    r.claim = "T(X_t, X'_t) >= the Thm 4.10 tradeoff curve (PLD lower bound)";
    r.parameters["b"] = b;
    r.parameters["tau"] = bound.tau;
    audit_tradeoff_claim(d, dp, certified_curve(bound.run),
                         "claimed bound: Thm 4.10 (tau = " + std::to_string(bound.tau) + ")", r);
    r.figure.title = "NoisySGD (b = 1 of n = 2) on the box construction vs Thm 4.10";
  } else {
    const shifted::gdp_bound bound = shifted::noisy_gd_shifted(st);
    r.title =
        "Constrained convex NoisyGD on Thm C.16's box construction: the bound holds, order-tight";
    r.source = "BSA24 Thm 4.3 / C.3 (bound), Thm C.16 (construction)";
    r.claim = "T(X_t, X'_t) >= G(mu) of the optimisation problem with z_tau = D";
    r.parameters["tau"] = bound.tau;
    r.parameters["mu"] = bound.mu;
    audit_gdp_claim(d, dp, bound.mu, r);
    r.notes.push_back(
        "the laws are not Gaussian (projected walks): mu estimate is indicative; the "
        "verdict rests on the tradeoff boxes");
    r.figure.title = "Thm C.16's box construction (D = 1, t = 200) vs the constrained bound";
  }
  return r;
}

scenario_result linear_composition(const scenario_context& c, batches kind) {
  // The composition bounds on linear losses (W5 without a constraint: ∇f_i ≡ 0, and on D′ one
  // example has ∇f′ ≡ −L; X_0 = 0, K = R). Full and cyclic batches: X_t is Gaussian with mean
  // shift (number of sensitive steps)·ηL/b and sd ησ√t. Full batch: μ = √t L/(nσ), Thm 4.1 is
  // exact. Cyclic: only E of the t = lE steps are sensitive, μ = (L/(bσ))√(E/l) — Thm 4.4's
  // (L/(bσ))√E is √l too large (linear losses are exact). Random batches: each step is the
  // one-sided G(L/(bσ))_p, and Thm 4.8's C_p(G(L/(bσ)))^{⊗t} is a valid bound (PLD-certified
  // curve).
  const std::size_t n = 10, b = kind == batches::full ? n : 2;
  const double L = 1, eta = 0.1;
  const double sigma = kind == batches::full ? 0.5 : kind == batches::cyclic ? 1 : 0.25;
  const long long t = kind == batches::full ? 25 : kind == batches::cyclic ? 20 : 10;
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n), 1), gp = g;
  gp(static_cast<Eigen::Index>(n) - 1, 0) = -L;
  const sim::linear fd(g), fdp(gp);
  sim::noisy_gradient_options o;
  o.batches = kind == batches::full     ? sim::batch_rule::full
              : kind == batches::cyclic ? sim::batch_rule::cyclic
                                        : sim::batch_rule::shuffled;
  o.batch_size = b;
  o.steps = static_cast<long>(t);
  o.learning_rate = eta;
  o.noise = sigma;
  shifted::noisy_gradient_setting st;
  st.sensitivity = L;
  st.examples = static_cast<long long>(n);
  st.batch_size = static_cast<long long>(b);
  st.noise = sigma;
  st.learning_rate = eta;
  st.steps = t;
  scenario_result r;
  r.id = kind == batches::full     ? "bsa24-thm4.1-linear"
         : kind == batches::cyclic ? "bsa24-thm4.4-linear"
                                   : "bsa24-thm4.8-linear";
  std::vector<double> d, dp;
  run_pair(c, replicates_for(c, 20000, 400000), fd, fdp, o, r.id, d, dp);
  r.parameters = {{"n", n}, {"b", b}, {"L", L}, {"eta", eta}, {"sigma", sigma}, {"steps", t}};
  if (kind == batches::stochastic) {
    st.sensitivity = L * c.bound_factor;  // every factor's μ is linear in L
    const shifted::sgd_bound bound = shifted::noisy_sgd_composition(st, 1e-5);
    r.title = "NoisySGD on linear losses: Thm 4.8's composition holds";
    r.source = "BSA24 Thm 4.8 (PLD-certified curve); linear losses";
    r.claim = "T(X_t, X'_t) >= C_p(G(L/(b sigma)))^t";
    audit_tradeoff_claim(d, dp, certified_curve(bound.run), "claimed bound: Thm 4.8", r);
  } else {
    const shifted::gdp_bound bound = kind == batches::full ? shifted::noisy_gd_composition(st)
                                                           : shifted::noisy_cgd_composition(st);
    r.title = kind == batches::full
                  ? "NoisyGD on linear losses: Thm 4.1 is exact"
                  : "NoisyCGD on linear losses: Thm 4.4 holds (the exact mu is sqrt(l) smaller)";
    r.source = std::string(kind == batches::full ? "BSA24 Thm 4.1" : "BSA24 Thm 4.4") +
               " (composition; DRS22); linear losses";
    r.claim = kind == batches::full ? "T(X_t, X'_t) >= G(mu), with equality on linear losses"
                                    : "T(X_t, X'_t) >= G(mu); here T = G(mu/sqrt(l))";
    r.parameters["mu"] = bound.mu;
    audit_gdp_claim(d, dp, c.bound_factor * bound.mu, r);
  }
  r.figure.title = legend_words(r.title);
  return r;
}

scenario_result lmc_box(const scenario_context& c) {
  // Cor 5.4: projected LMC on a convex body of diameter D with L-Lipschitz F − F′. Here d = 1,
  // K = [−D/2, D/2], F ≡ 0 and F′(x) = −Lx (so F − F′ is L-Lipschitz): π is uniform on K and
  // π′ ∝ e^{Lx}; t steps of LMC from 0 approach them. Claim: G(√(4LD + 2ηL²)).
  const double L = 4, D = 1, eta = 0.01;
  const long long t = 1000;
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(1, 1), gp = g;
  gp(0, 0) = -L;
  const sim::linear fd(g), fdp(gp);
  const sim::noisy_gradient_options o = sim::lmc_options(
      eta, static_cast<long>(t),
      sim::projection::box(sim::vector::Constant(1, -D / 2), sim::vector::Constant(1, D / 2)));
  const double mu = shifted::projected_lmc(L, D, eta).mu;
  scenario_result r;
  r.id = "bsa24-cor5.4-lmc-box";
  std::vector<double> d, dp;
  run_pair(c, replicates_for(c, 20000, 400000), fd, fdp, o, r.id, d, dp);
  r.title = "Projected LMC on an interval (log-concave): Cor 5.4 holds";
  r.source = "BSA24 Cor 5.4 (projected LMC)";
  r.claim = "T(X_t, X'_t) >= G(sqrt(4LD + 2 eta L^2))";
  r.parameters = {{"L", L}, {"D", D}, {"eta", eta}, {"steps", t}, {"mu", mu}};
  audit_gdp_claim(d, dp, c.bound_factor * mu, r);
  r.notes.push_back(
      "the laws are not Gaussian (uniform vs exponentially tilted on an interval): "
      "the mu estimate is indicative; the verdict rests on the tradeoff boxes");
  r.figure.title = legend_words(r.title);
  return r;
}

scenario_result interpolation_invariant(const scenario_context& c) {
  // Thm C.3's proof rests on ‖X_k − X̃_k‖ ≤ z_k on every path, where X̃ is the shifted
  // interpolated process (Def C.2): X̃_0 = X′_0 = X_0 = 0 and
  //   X̃_{k+1} = Π(λ_{k+1}φ(X_k) + (1 − λ_{k+1})φ′(X̃_k) + noise of X),
  // with φ, φ′ the gradient steps on D and D′. Here: projected NoisyGD on ridge logistic
  // regression (m = ridge, M = ridge + max|a_i|²/4), D′ flips the label of example 0, so the
  // gradient sensitivity is exactly L = |a_0| (σ(t) + σ(−t) = 1); λ and z from the
  // optimisation problem (Lemma C.6's schedule). Checked on every path and step.
  const std::size_t n = 20, dim = 3;
  const double ridge = 1, eta = 0.2, sigma = 2, radius = 1.5;
  const long long t = 40;
  const logistic_pair pair = make_logistic_pair(c, n, dim, ridge, 0);
  const sim::logistic_regression f(pair.data, ridge), fp(pair.dprime, ridge);
  const double M = pair.M;
  const double cc = shifted::contraction(eta, ridge, M);
  const double L = pair.a.norm();
  const std::vector<double> sens(static_cast<std::size_t>(t), eta * L / static_cast<double>(n));
  const shifted::interpolation_solution schedule = shifted::solve_interpolation({cc, sens, 0.0});
  const double factor = c.bound_factor;
  const sim::projection ball = sim::projection::ball(sim::vector::Zero(dim), radius);

  // Observables: per path the largest ‖X_k − X̃_k‖/z_k (k < t), the final ‖X_t − X̃_t‖, and the
  // distance at every step (for the figure).
  std::vector<sim::observable> obs = {{"max_ratio", false}, {"final_distance", false}};
  for (long long k = 1; k <= t; ++k) obs.push_back({"distance_" + std::to_string(k), false});
  auto full_gradient = [&](const sim::model& m, const sim::vector& x, sim::vector& g,
                           sim::vector& gi) {
    g.setZero();
    for (std::size_t i = 0; i < n; ++i) {
      m.gradient(i, x, gi);
      g += gi;
    }
    g /= static_cast<double>(n);
  };
  const sim::monte_carlo_options mc =
      mc_options(c, replicates_for(c, 4000, 100000), "bsa24-thmC.3-invariant");
  const auto res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t r, std::span<double> out) {
        random_stream noise(c.seed, r, 3);
        sim::vector x = sim::vector::Zero(dim), xt = x, g(dim), gp(dim), gi(dim), z(dim);
        double max_ratio = 0;
        for (long long k = 0; k < t; ++k) {
          noise.fill_normal({z.data(), dim});
          const double lam = schedule.lambda[static_cast<std::size_t>(k)];
          full_gradient(f, x, g, gi);
          full_gradient(fp, xt, gp, gi);
          const sim::vector phi = x - eta * g, phi_p = xt - eta * gp;
          x = phi - eta * sigma * z;
          xt = lam * phi + (1 - lam) * phi_p - eta * sigma * z;
          ball.apply(x);
          ball.apply(xt);
          const double dist = (x - xt).norm(), zk = schedule.z[static_cast<std::size_t>(k + 1)];
          out[2 + static_cast<std::size_t>(k)] = dist;
          if (k + 1 < t) max_ratio = std::max(max_ratio, dist / zk);
        }
        out[0] = max_ratio;
        out[1] = (x - xt).norm();
      },
      mc);
  const double worst = res.observables[0].stats.max();
  const double final_worst = res.observables[1].stats.max();
  scenario_result r;
  r.id = "bsa24-thmC.3-invariant";
  r.title = "The shifted interpolated process stays within z_k of the iterates (Thm C.3)";
  r.source = "BSA24 Def C.2, Thm C.3 (proof invariant), Lemma C.6 schedule";
  r.claim = "|X_k - X~_k| <= z_k on every path and step, X~_t = X_t";
  r.parameters = {{"n", n},         {"d", dim},         {"ridge", ridge}, {"M", M},  {"eta", eta},
                  {"sigma", sigma}, {"radius", radius}, {"steps", t},     {"c", cc}, {"L", L}};
  r.quantity = "max |X_k - X~_k| / z_k";
  r.bound = factor;
  r.estimate = worst;
  r.estimate_lo = r.estimate_hi = worst;  // a maximum over paths, not a statistical estimate
  r.confidence = 1;
  r.tightness = factor / worst;
  r.replicates = res.replicates;
  const bool violated = worst > factor * (1 + 1e-9) || final_worst > 1e-9;
  r.verdict = violated ? sim::verdict::violated : sim::verdict::holds;
  r.verdict_reason = violated ? "some path leaves the z_k tube (or X~_t != X_t)"
                              : "every path stays within z_k at every step, and X~_t = X_t";
  r.notes.push_back("largest |X_t - X~_t| over paths: " + format_value(final_worst) +
                    " (must be 0 up to rounding: lambda_t = 1)");
  r.notes.push_back(
      "a deterministic invariant checked on every simulated path; bound-factor F "
      "shrinks the tube to F z_k");
  r.figure.title = "Shifted interpolated process: distance to the iterates vs the shift z_k";
  r.figure.x_label = "step k";
  r.figure.y_label = "|X_k − X̃_k|";
  series tube, mean, maxi;
  tube.name = "z_k (optimisation problem)";
  mean.name = "mean over paths";
  maxi.name = "max over paths";
  mean.style = maxi.style = "points";
  for (long long k = 1; k <= t; ++k) {
    const auto& st = res.observables[1 + static_cast<std::size_t>(k)].stats;
    tube.x.push_back(static_cast<double>(k));
    tube.y.push_back(factor * schedule.z[static_cast<std::size_t>(k)]);
    mean.x.push_back(static_cast<double>(k));
    mean.y.push_back(st.mean());
    maxi.x.push_back(static_cast<double>(k));
    maxi.y.push_back(st.max());
  }
  r.figure.data = {tube, mean, maxi};
  return r;
}

}  // namespace

void register_shifted_scenarios(std::vector<scenario>& out) {
  out.push_back({"bsa24-thm4.2-tight", "NoisyGD on W1 against Thm 4.2 (exact)", thm42_tight});
  out.push_back({"bsa24-rem5.3-lmc", "LMC on Remark 5.3's pair against Prop 5.1", lmc_remark53});
  out.push_back({"bsa24-cor5.2-lmc-logistic", "LMC on a logistic potential against Cor 5.2",
                 lmc_cor52_logistic});
  out.push_back({"bsa24-thm4.5-cgd", "NoisyCGD on W2 against Thm 4.5 (and Thm C.17)", cgd_thm45});
  out.push_back({"bsa24-thm4.1-linear", "NoisyGD on linear losses against Thm 4.1 (exact)",
                 [](const scenario_context& c) { return linear_composition(c, batches::full); }});
  // Thm 4.4 is sqrt(l) = 2.2 times the exact mu here: violated at 0.3, not at 0.5.
  out.push_back({"bsa24-thm4.4-linear", "NoisyCGD on linear losses against Thm 4.4",
                 [](const scenario_context& c) { return linear_composition(c, batches::cyclic); },
                 0.3});
  out.push_back(
      {"bsa24-thm4.8-linear", "NoisySGD on linear losses against Thm 4.8",
       [](const scenario_context& c) { return linear_composition(c, batches::stochastic); }, 0.5});
  out.push_back(
      {"bsa24-cor5.4-lmc-box", "Projected LMC on an interval against Cor 5.4", lmc_box, 0.25});
  // Validity on random problems (logistic_validity). Self-check factors as measured: see
  // docs/validation.md.
  const auto validity = [&](const char* id, const char* title, batches kind, bool constrained,
                            double factor) {
    out.push_back({id, title,
                   [kind, constrained](const scenario_context& c) {
                     return logistic_validity(c, kind, constrained);
                   },
                   factor});
  };
  validity("bsa24-thm4.2-logistic", "Projected NoisyGD on ridge logistic regression vs Thm 4.2",
           batches::full, false, 0.5);
  validity("bsa24-thm4.5-logistic", "Projected NoisyCGD on ridge logistic regression vs Thm 4.5",
           batches::cyclic, false, 0.5);
  // Thm 4.9 pays twice the sensitivity: measured loose by about 3x here (violated at 0.25,
  // inconclusive at 0.35).
  validity("bsa24-thm4.9-logistic", "Projected NoisySGD on ridge logistic regression vs Thm 4.9",
           batches::stochastic, false, 0.2);
  // The constrained bounds are order-tight only (Thm C.16): loose by about 2.6x here (violated
  // at 0.3). Thm 4.10 on this problem is not registered: wherever it is not vacuous the true
  // curve is so close to Id that no claim, however small, can be refuted at this sample size.
  validity("bsa24-thm4.3-logistic", "Projected NoisyGD, convex on a ball, vs Thm 4.3 / C.3",
           batches::full, true, 0.25);
  validity("bsa24-thm4.6-logistic", "Projected NoisyCGD, convex on a ball, vs Thm 4.6 / C.3",
           batches::cyclic, true, 0.25);
  out.push_back(
      {"bsa24-thm4.8-sgd-one-step", "One NoisySGD step on W4 against Thm 4.8 (tight)", sgd_one_step});
  out.push_back({"bsa24-thm4.10-box",
                 "Constrained convex NoisySGD on the box construction vs Thm 4.10",
                 [](const scenario_context& c) { return box_construction(c, true); }, 0.2});
  out.push_back({"bsa24-thmC.16-box", "Thm C.16's box construction against the constrained bound",
                 [](const scenario_context& c) { return box_construction(c, false); }, 0.25});
  out.push_back({"bsa24-thmC.3-invariant", "The shifted interpolated process stays in its z_k tube",
                 interpolation_invariant});
}

}  // namespace dpkit::validation
