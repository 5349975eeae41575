// SWX+23 scenarios beyond the first set (swx23_nonconvex.cpp, swx23_nonconvex_thm1.cpp), against
// the reference simulator (dpkit/learners/glm.hpp), with the bounds of dpkit/risk/nonconvex_bounds.hpp:
//
//  * swx23-thm2-jl-ushape [trend]  Alg 3's excess risk against the JL dimension m is U-shaped
//    (JL bias falls with m, privacy noise grows with m): an interior m beats both ends (paired
//    differences, common random numbers, Bonferroni); the location is reported against Thm 2's
//    m* ∝ (nε)^{2/3} (risk::jl_dimension_tradeoff, up to constants).
//  * swx23-thm7-alg8-contraction [trend/exact]  Alg 8 with the noise off on x ~ N(0, I_d): the
//    squared distance to w*_ℓ = 2E[yx] contracts per step by at most 1 − τη/2 (τ = μ/3, μ = 1/2);
//    E[w_T] = (1 − (1 − η/2)^T) w*_ℓ exactly (the population gradient is linear); with the noise on
//    (corrected sensitivity, tight z) the noise floor; Thm 7's L_P(w_T) ≤ 2(1 + 2μ) opt + α.
//  * swx23-lemma7-floor [exact]  Lemma 7 for the kernelised model (4) with an explicit bounded
//    misspecification φ: L_P(w) − min_h L_P(h) ≤ 4G(L^ℓ_P(w) − L^ℓ_P(w*)) + 2G²M² + 4GM on random
//    instances (Monte Carlo over x with common draws, Bonferroni intervals).
//  * swx23-thm6-steps-ushape [trend]  Alg 7's excess risk against T at a fixed step size with the
//    paper's σ ∝ √T: interior minimum (paired differences), next to relu_gd_steps' T*.
//
// Self-check (--bound-factor F): the U-shape checks claim that the ends exceed the interior
// optimum by a factor 1/F (R(end) ≥ R(interior)/F); the contraction check claims a per-step
// factor 1 − τη/(2F) and the Thm 7 guarantee F × its right-hand side; Lemma 7 compares against
// F × its right-hand side.
#include <Eigen/Dense>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../harness/scenarios.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/risk/nonconvex_bounds.hpp"
#include "dpkit/learners/glm.hpp"
#include "dpkit/sim/monte_carlo.hpp"

namespace dpkit::validation {
namespace {

using learners::glm_link;

sim::vector unit_direction(std::size_t d, random_stream& s) {
  sim::vector u(static_cast<Eigen::Index>(d));
  for (Eigen::Index j = 0; j < u.size(); ++j) u(j) = s.normal();
  return u / u.norm();
}

// ---- U-shape verdict shared by the JL-dimension and step-count scenarios ----------------------

// Columns: per grid point x_j, the replicates' excess risks (common random numbers across j).
// Claim: some interior j has R(end) > R(j) for both ends. For each interior j, the paired
// differences R(x_0) − R(x_j) and R(x_last) − R(x_j) get Student t intervals at simultaneous
// level 95 % (Bonferroni over 2 × #interior). holds: some interior j has both lower ends > 0;
// violated: every interior j has an end whose interval lies wholly below 0 (an end is
// significantly better, for every interior candidate: a monotone curve or an inverted U);
// inconclusive otherwise.
// The self-check (`self_check`) audits a monotone curve, the wrong claim a missing trade-off
// would give, with the same intervals: "the minimum lies at an end of the grid" (wrong_end = K:
// either end), or at one named end (wrong_end = 0 or K − 1, where the paper's own terms suggest
// that monotone direction). It is violated when an interior point is resolved below that end
// (below each end, for "either"), holds when that end is resolved below every interior point.
struct ushape_check {
  validation::verdict verdict = verdict::inconclusive;
  std::string reason;
  std::vector<std::string> notes;
  std::size_t best = 0;       // the interior j of the verdict (holds) or the argmin of the means
  double estimate = NAN;      // min over ends of the difference at `best`
  double lo = NAN, hi = NAN;  // its interval
  double confidence = 0.95;
};

ushape_check check_ushape(const std::vector<double>& x,
                          const std::vector<std::vector<double>>& cols,
                          bool self_check,
                          const std::string& x_name,
                          std::size_t wrong_end) {
  ushape_check u;
  const std::size_t K = cols.size();
  const std::size_t interior = K - 2;
  u.confidence = 1 - 0.05 / static_cast<double>(2 * interior);
  // Student t for the n pairs (replicates) of each paired difference.
  const double z = t_multiplier(normal_quantile(u.confidence), cols.front().size());
  std::size_t argmin = 0;
  for (std::size_t j = 1; j < K; ++j)
    if (mean_of(cols[j]) < mean_of(cols[argmin])) argmin = j;
  bool any_holds = false, all_violated = true;
  bool beaten[2] = {false, false};  // some interior point resolved below end 0 / end K − 1
  bool lowest[2] = {true, true};    // the end resolved below every interior point
  double best_score = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 1; j + 1 < K; ++j) {
    double lo_min = INFINITY, hi_min = INFINITY, m_min = INFINITY;
    bool end_below = false;
    std::string line = x_name + " = " + sig(x[j]) + ":";
    for (const std::size_t e : {std::size_t{0}, K - 1}) {
      std::vector<double> diff(cols[j].size());
      for (std::size_t i = 0; i < diff.size(); ++i) diff[i] = cols[e][i] - cols[j][i];
      const double m = mean_of(diff), h = z * se_of(diff);
      if (m - h < lo_min) {
        lo_min = m - h;
        hi_min = m + h;
        m_min = m;
      }
      if (m + h < 0) end_below = true;
      const std::size_t side = e == 0 ? 0 : 1;
      if (m - h > 0) beaten[side] = true;
      if (!(m + h < 0)) lowest[side] = false;
      line += " R(" + x_name + " = " + sig(x[e]) + ") - R = " + sig(m, 4) + " +- " + sig(h, 3) +
              ";";
    }
    if (lo_min > 0) any_holds = true;
    if (!end_below) all_violated = false;
    if (lo_min > best_score) {
      best_score = lo_min;
      u.best = j;
      u.estimate = m_min;
      u.lo = lo_min;
      u.hi = hi_min;
    }
    u.notes.push_back("interior " + line);
  }
  if (any_holds) {
    u.verdict = verdict::holds;
    u.reason = "at " + x_name + " = " + sig(x[u.best]) +
               " both ends are significantly worse (U-shape; smallest lower end " + sig(u.lo, 3) +
               ")";
  } else if (all_violated) {
    u.verdict = verdict::violated;
    u.reason = "for every interior " + x_name + ", an end is significantly better (argmin of the " +
               "means at " + x_name + " = " + sig(x[argmin]) + ")";
  } else {
    u.verdict = verdict::inconclusive;
    u.reason = "no interior " + x_name + " is resolved as better than both ends, nor refuted";
  }
  if (self_check) {  // the wrong claim: a monotone curve, minimum at an end (or at wrong_end)
    const bool either = wrong_end != 0 && wrong_end != K - 1;
    const std::size_t side = wrong_end == 0 ? 0 : 1;
    const bool rejected = either ? beaten[0] && beaten[1] : beaten[side];
    const bool supported = either ? lowest[0] || lowest[1] : lowest[side];
    u.verdict = rejected ? verdict::violated : supported ? verdict::holds : verdict::inconclusive;
    const std::string where =
        either ? "at an end" : "at " + x_name + " = " + sig(x[wrong_end]);
    u.reason = "self-check (wrong claim: the risk is monotone on the grid, minimum " + where +
               "): " +
               (rejected   ? "an interior point is resolved below " +
                               std::string(either ? "each end" : "that end")
                : supported ? std::string("that end is resolved below every interior point")
                            : std::string("not resolved"));
  }
  u.notes.push_back("argmin of the mean risk: " + x_name + " = " + sig(x[argmin]) + "; intervals " +
                    sig(u.confidence * 100, 4) + "% each (Bonferroni over " +
                    std::to_string(2 * interior) + " paired differences)");
  return u;
}

// The measured curve with 95 % intervals.
series mean_series(const std::string& name,
                   const std::vector<double>& x,
                   const std::vector<std::vector<double>>& cols,
                   int colour) {
  series s;
  s.name = name;
  s.style = "points";
  s.colour = colour;
  for (std::size_t j = 0; j < x.size(); ++j) {
    const double m = mean_of(cols[j]), h = t_multiplier(1.96, cols[j].size()) * se_of(cols[j]);
    s.x.push_back(x[j]);
    s.y.push_back(m);
    s.y_lo.push_back(m - h);
    s.y_hi.push_back(m + h);
  }
  return s;
}

// A vertical marker at x from the smallest to the largest mean.
series marker(const std::string& name,
              double x,
              const std::vector<std::vector<double>>& cols,
              int colour) {
  double lo = INFINITY, hi = 0;
  for (const auto& c : cols) {
    lo = std::min(lo, mean_of(c));
    hi = std::max(hi, mean_of(c));
  }
  series s;
  s.name = name;
  s.colour = colour;
  s.dash = 2;
  s.x = {x, x};
  s.y = {lo, hi};
  return s;
}

void fill_ushape_result(scenario_result& r, const ushape_check& u, std::uint64_t replicates) {
  r.verdict = u.verdict;
  r.verdict_reason = u.reason;
  for (const std::string& n : u.notes) r.notes.push_back(n);
  r.quantity = "min over the two ends of R(end) - R(interior)/F at the best interior point";
  r.bound = 0;
  r.estimate = u.estimate;
  r.estimate_lo = u.lo;
  r.estimate_hi = u.hi;
  r.confidence = u.confidence;
  r.tightness = std::nan("");
  r.replicates = replicates;
}

// ---- swx23-thm2-jl-ushape -----------------------------------------------------------------------

// The design of the JL scenario: x = (a s, sqrt(1 − a²) u) with s ~ U[−1, 1] and u uniform on
// S^{d−2}, so ‖x‖ ≤ 1 (Assumption 1) and the data have full rank θ = d, while the teacher
// w* = W e_1 sees only the first coordinate: b = ⟨w*, x⟩ = W a s. A JL projection to m < d
// dimensions keeps the signal direction but mixes the d − 1 others into it, an interference of
// variance ≈ (1 − a²) W²/m on the prediction: the 1/m JL bias of Thm 2's proof. Draw order per
// row: s, then d − 1 normals.
Eigen::MatrixXd jl_design_sample(std::size_t n, std::size_t d, double a, random_stream& s) {
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(d));
  const double rest = std::sqrt(1 - a * a);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    X(i, 0) = a * s.uniform(-1, 1);
    double nrm = 0;
    for (Eigen::Index j = 1; j < X.cols(); ++j) {
      X(i, j) = s.normal();
      nrm += X(i, j) * X(i, j);
    }
    X.row(i).tail(X.cols() - 1) *= rest / std::sqrt(nrm);
  }
  return X;
}

scenario_result thm2_jl_ushape(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  // quick: 24 replicates resolve the left arm (R(m = 2) above the interior m >= 8) at ~1-2.5x
  // its Bonferroni interval (64: ~2-3x); the right arm is flat within ~+-0.025 (64: ~+-0.012), so
  // a rise from the optimum to m = 128 below that is not resolved (inconclusive either way).
  const std::uint64_t replicates = replicates_for(c, 24, 400);
  const std::size_t samples = full ? 20000 : 4000;
  const std::size_t d = 128, theta = d;
  const std::size_t n = 4096;
  const double a = 0.7, W = 6;
  const double epsilon = 1, delta = 1e-5;
  // One step size for every m (only the JL dimension varies); η = 0.05 had the lowest risk of
  // η ∈ {4, 1, 0.2, 0.05, 0.02, 0.008} in a pilot at this n, ε (larger η: the phase noise
  // τ_i ∝ η_i dominates; smaller: the runs barely leave w_0 = 0).
  const double eta = 0.05;
  const std::vector<std::size_t> ms = {2, 4, 8, 16, 32, 64, 128};
  risk::glm_problem prob;
  prob.examples = static_cast<long long>(n);
  prob.theta = dbl(theta);
  prob.epsilon = epsilon;
  prob.delta = delta;
  prob.W = W;
  prob.G = 0.25;  // sigmoid
  prob.B = 1;
  const risk::jl_tradeoff tr = risk::jl_dimension_tradeoff(prob, 1);
  std::vector<sim::observable> obs;
  for (const std::size_t m : ms) obs.push_back({"excess, m = " + std::to_string(m), true});
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-thm2-jl-ushape");
  mc.chunk = 4;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        // Common random numbers: one dataset per replicate; the JL rows and the noise come from
        // the same key for every m (jl_matrix draws row by row, so Φ for m is the first m rows
        // of Φ for a larger m, up to the 1/√m scaling).
        random_stream fs(c.seed, rep, 1), ls(c.seed, rep, 2);
        sim::dataset data;
        data.features = jl_design_sample(n, d, a, fs);
        data.labels.resize(static_cast<Eigen::Index>(n));
        for (Eigen::Index i = 0; i < data.labels.size(); ++i)  // binary, E[y|x] = σ(W x_1)
          data.labels(i) =
              ls.uniform() < learners::link_value(glm_link::sigmoid, W * data.features(i, 0)) ? 1.0
                                                                                         : 0.0;
        random_stream xs(c.seed, rep, 3);  // common x draws for every m
        const Eigen::MatrixXd Xt = jl_design_sample(samples, d, a, xs);
        learners::phased_sgd_options o;
        o.link = glm_link::sigmoid;
        o.epsilon = epsilon;
        o.delta = delta;
        o.eta = eta;
        o.B_bound = 1;
        o.theta_rank = dbl(theta);
        for (std::size_t j = 0; j < ms.size(); ++j) {
          o.jl_dim = ms[j];
          const learners::glm_result g = learners::jl_phased_sgd(data, o, {c.seed, rep, 10});
          // Excess risk E_x(σ(⟨w, x⟩) − σ(⟨w*, x⟩))² (the excess-risk identity of SWX+23 §4.1.1),
          // Monte Carlo.
          const Eigen::VectorXd pred = Xt * g.w;
          double e = 0;
          for (Eigen::Index i = 0; i < pred.size(); ++i)
            e += std::pow(learners::link_value(glm_link::sigmoid, pred(i)) -
                              learners::link_value(glm_link::sigmoid, W * Xt(i, 0)),
                          2);
          out[j] = e / dbl(samples);
        }
      },
      mc);
  std::vector<double> x;
  std::vector<std::vector<double>> cols;
  for (std::size_t j = 0; j < ms.size(); ++j) {
    x.push_back(dbl(ms[j]));
    cols.push_back(res.observables[j].samples);
  }
  // Self-check: the plausible wrong claim, no trade-off at all — the risk falls with m to the
  // largest m (the JL bias is the only cost; the privacy term m tau^2 never bites): rejected only
  // when an interior m is resolved below R(m = 128). The right arm's rise is a few % at most
  // (above), so the quick size cannot reject it (a listed blind spot, self_checks.cpp).
  const ushape_check u = check_ushape(x, cols, c.self_check, "m", ms.size() - 1);

  scenario_result r;
  r.id = "swx23-thm2-jl-ushape";
  r.title = "SWX+23 Thm 2: Alg 3's excess risk is U-shaped in the JL dimension m";
  r.source = "SWX+23 Alg 3, proof of Thm 2";
  r.claim =
      "trend (up to constants): the excess risk of Alg 3 against the JL dimension m is U-shaped "
      "(JL bias ~ W/m falls, privacy noise ~ sqrt(m)/(n eps) grows), with the optimum near m* ~ "
      "(n eps)^{2/3}; checked as: some interior m has both ends significantly worse (paired "
      "differences R(m_end) - R(m), common random numbers)";
  r.parameters = {{"link", "sigmoid (G = 1/4, B = 1)"},
                  {"d", d},
                  {"theta", theta},
                  {"design",
                   "x = (a s, sqrt(1 - a^2) u), s ~ U[-1, 1], u uniform on S^{d-2} (|x| <= 1, "
                   "rank d)"},
                  {"a", a},
                  {"w_star", "W e_1"},
                  {"W", W},
                  {"labels", "binary, E[y|x] = sigma(<w*, x>)"},
                  {"n", n},
                  {"epsilon", epsilon},
                  {"delta", delta},
                  {"m", ms},
                  {"eta", eta},
                  {"eta_rule",
                   "fixed for every m (eta_i = eta/4^i <= 1/(2G) = 2, Thm 2's privacy "
                   "condition)"},
                  {"x_samples_per_replicate", samples},
                  {"replicates", replicates},
                  {"tier", to_string(c.tier)}};
  fill_ushape_result(r, u, replicates);
  std::string means;
  for (std::size_t j = 0; j < ms.size(); ++j) means += " " + sig(mean_of(cols[j]), 4);
  r.notes.push_back("mean excess risk at m = 2, 4, …:" + means);
  r.notes.push_back(
      "Thm 2's proof-level trade-off (risk::jl_dimension_tradeoff, logs dropped, hidden constants "
      "1): m* = (2G n eps/(B sqrt(log(1/delta))))^{2/3} = " +
      sig(tr.m_star, 4) +
      "; the measured optimum is compared with it only up to constants (the bias constant of the "
      "JL step and the noise constant of the phase sum are not known)");
  r.notes.push_back(
      "what limits the right arm: the phase noise zeta_i ~ N(0, tau_i^2 I_m) moves a prediction "
      "<w, Phi x> by N(0, tau_i^2 |Phi x|^2), and |Phi x| ~ |x| whatever m, so the noise cost per "
      "prediction hardly depends on m; the proof's m tau^2 is the squared distance in parameter "
      "space, which the next phase need not undo along directions of low data variance. The "
      "bias side (the 1/m interference of the d - 1 off-signal coordinates) is clear; a rise at "
      "large m is small here (pilot over eta: at most a few % from m = 64 to 128, not resolved)");
  figure& f = r.figure;
  f.title = "Alg 3 excess risk against the JL dimension m (n = " + std::to_string(n) +
            ", ε = " + sig(epsilon) + ", d = θ = " + std::to_string(theta) + ")";
  f.x_label = "JL dimension m";
  f.y_label = "E L_P(Φ^T w_k) − L_P(w^*)";
  f.log_x = f.log_y = true;
  f.data.push_back(mean_series("measured (95% intervals)", x, cols, 0));
  f.data.push_back(marker("m^* of Thm 2's trade-off (up to constants)", tr.m_star, cols, 1));
  return r;
}

// ---- swx23-thm7-alg8-contraction ----------------------------------------------------------------

// The noise multiplier z = std/Δ of the tight (ε, δ) Gaussian mechanism: the GDP μ = 1/z solving
// δ = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle–Wang 2018 Thm 8; Dong–Roth–Su 2022 Cor 2.13),
// increasing in μ; bisection by TOMS 748.
double tight_noise_multiplier(double epsilon, double delta) {
  const boost::math::normal N;
  auto f = [&](double mu) {
    return boost::math::cdf(N, -epsilon / mu + mu / 2) -
           std::exp(epsilon) * boost::math::cdf(N, -epsilon / mu - mu / 2) - delta;
  };
  std::uintmax_t it = 200;
  const auto [a, b] = boost::math::tools::toms748_solve(
      f, 1e-3, 50.0, boost::math::tools::eps_tolerance<double>(50), it);
  return 2 / (a + b);
}

scenario_result thm7_contraction(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  // quick: 8 replicates put the K-step factor's interval within ~+-0.002 of 0.939, far below
  // the claimed 0.995 (40 gave +-0.0005); (b) resolves a bias in E[w_K] only above ~8 standard
  // errors of a coordinate's mean (t, 7 dof); (c) checks the guarantee on 8 runs (ratio ~0.27).
  const std::uint64_t replicates = replicates_for(c, 8, 400);
  const std::size_t samples = full ? 20000 : 5000;  // x draws per risk evaluation
  const double F = c.bound_factor;
  const std::size_t d = 10;
  const std::size_t chunk = full ? 8000 : 2000;  // m = n/T, records per step
  const long K = 96;                             // steps
  const long every = 4;                          // checkpoints T = 4, 8, …, K
  const double eta = 1.0 / 16;                   // Thm 7: η ≤ 1/16
  const double mu = 0.5;      // strong monotonicity of χ^{σw} = w/2 (SWX+23 §4.2, Gaussian x)
  const double mu_l12 = 2.0;  // Lemma 12's constant for x ~ N(0, I) (see the notes)
  const double epsilon = 1, delta = 1e-5, B = 3, h = 1, W_teacher = 1;
  const double Rx =
      2 * std::sqrt(dbl(d));  // feature bound for the sensitivity (P(|x| > R_x) ≈ 2e-5)
  // Teacher: y = clamp_B(ReLU(<w*, x>) + U[−h, h]): |y| ≤ B (Assumption 2), misspecified (the
  // clamp is active where <w*, x> > B − h, probability ≈ 0.6 %), so w*_ℓ ≠ w*; opt is then close
  // to the Bayes risk, which makes the Thm 7 check (c) decidable from the bracket below.
  learners::glm_population p;
  p.design = learners::glm_design::coordinate(d, d, learners::glm_design_law::gaussian);
  p.teacher.link = glm_link::relu;
  p.teacher.w_star =
      sim::vector::Constant(static_cast<Eigen::Index>(d), W_teacher / std::sqrt(dbl(d)));
  p.teacher.noise = learners::glm_label_noise::uniform;
  p.teacher.noise_scale = h;
  p.teacher.clamp = B;
  // For x ~ N(0, I_d) (derived), χ^{σw} = w/2, so w*_ℓ = 2 E[yx] (quadrature).
  const sim::vector w_l = 2 * p.label_correlation();
  const double d0 = w_l.squaredNorm();  // ‖w_0 − w*_ℓ‖², w_0 = 0
  const risk::agnostic_relu_contraction_bound cb = risk::agnostic_relu_contraction(mu, eta);
  const double z_tight = tight_noise_multiplier(epsilon, delta);
  const auto checkpoints = static_cast<std::size_t>(K / every);

  std::vector<sim::observable> obs;
  for (std::size_t k = 0; k < checkpoints; ++k)
    obs.push_back({"|w_T - w*_l|^2 noise off, T = " + std::to_string((k + 1) * every), true});
  obs.push_back({"|w_K - w*_l|^2 noise on", true});
  obs.push_back({"L_P(w_K) noise on", true});
  for (std::size_t j = 0; j < d; ++j)
    obs.push_back({"w_K[" + std::to_string(j) + "] noise off", true});
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-thm7-alg8-contraction");
  mc.chunk = 2;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        random_stream fs(c.seed, rep, 0), ls(c.seed, rep, 1);
        const sim::dataset data = p.sample(static_cast<std::size_t>(K) * chunk, fs, ls);
        learners::adaptive_gd_options o;
        o.epsilon = epsilon;
        o.delta = delta;
        o.B_bound = B;
        o.eta = eta;
        o.feature_norm_bound = Rx;
        o.add_noise = false;
        // Alg 8 on the first T·m rows with T steps has chunks of exactly m rows, the same for
        // every T, so w_T of that run is step T of the K-step run (noise draws too: d normals
        // per step in order).
        sim::vector wK;
        for (std::size_t k = 0; k < checkpoints; ++k) {
          const long T = static_cast<long>(k + 1) * every;
          const auto rows = static_cast<Eigen::Index>(static_cast<std::size_t>(T) * chunk);
          sim::dataset prefix{data.features.topRows(rows), data.labels.head(rows)};
          o.steps = T;
          const learners::glm_result g = learners::adaptive_batched_gd(prefix, o, {c.seed, rep, 10});
          out[k] = (g.w - w_l).squaredNorm();
          if (T == K) wK = g.w;
        }
        o.steps = K;
        o.add_noise = true;
        o.corrected_sensitivity = true;
        o.noise_multiplier = z_tight;
        const learners::glm_result g = learners::adaptive_batched_gd(data, o, {c.seed, rep, 10});
        out[checkpoints] = (g.w - w_l).squaredNorm();
        random_stream s(c.seed, rep, 2);
        out[checkpoints + 1] = p.risk(glm_link::relu, g.w, samples, s).value;
        for (std::size_t j = 0; j < d; ++j)
          out[checkpoints + 2 + j] = wK(static_cast<Eigen::Index>(j));
      },
      mc);

  // Population constants (one large common-draw evaluation): Bayes risk E Var(y|x) ≤ opt ≤
  // min{L_P(w*), L_P(w*_ℓ)}.
  const std::size_t big = full ? 2000000 : 400000;
  random_stream s1(c.seed, 0, 900), s2(c.seed, 0, 900), s3(c.seed, 0, 900);
  const learners::mc_estimate L_teacher = p.risk(glm_link::relu, p.teacher.w_star, big, s1);
  const learners::mc_estimate E_teacher = p.excess_risk(glm_link::relu, p.teacher.w_star, big, s2);
  const learners::mc_estimate L_wl = p.risk(glm_link::relu, w_l, big, s3);
  const double bayes = L_teacher.value - E_teacher.value;  // E Var(y|x), same draws
  const double opt_upper = std::min(L_teacher.value + 3 * L_teacher.standard_error,
                                    L_wl.value + 3 * L_wl.standard_error);

  // (1) Contraction over K steps, noise off: q̂ = (E|w_K − w*_ℓ|²/|w*_ℓ|²)^{1/K}.
  const double conf1 = 1 - 0.05 / 2;
  const auto& last = res.observables[checkpoints - 1].stats;
  const double z1 = t_multiplier(normal_quantile(conf1), last.count());  // Student t
  const double mK = last.mean(), hK = z1 * last.standard_error();
  const double Kd = static_cast<double>(K);
  const double q_hat = std::pow(mK / d0, 1 / Kd);
  const double q_lo = std::pow(std::max(mK - hK, 1e-300) / d0, 1 / Kd);
  const double q_hi = std::pow((mK + hK) / d0, 1 / Kd);
  const double q_claim = 1 - cb.tau * eta / (2 * F);  // Thm 7 proof (12)-(13): 1 − τη/2
  // The worst window: max over consecutive checkpoints of (E e_{T+4}/E e_T)^{1/4} (point
  // estimates; the first window starts at e_0 = |w*_ℓ|²).
  double worst_window = 0;
  for (std::size_t k = 0; k < checkpoints; ++k) {
    const double prev = k == 0 ? d0 : res.observables[k - 1].stats.mean();
    worst_window = std::max(worst_window, std::pow(res.observables[k].stats.mean() / prev,
                                                   1 / static_cast<double>(every)));
  }
  const double q_exact = (1 - eta / 2) * (1 - eta / 2);  // population GD on the linear gradient
  // (2) E[w_K] = (1 − (1 − η/2)^K) w*_ℓ: per-coordinate z-scores, family-wise level 1e-3.
  const sim::vector pred = (1 - std::pow(1 - eta / 2, Kd)) * w_l;
  double max_z = 0;
  for (std::size_t j = 0; j < d; ++j) {
    const auto& o = res.observables[checkpoints + 2 + j].stats;
    max_z = std::max(max_z,
                     std::abs(o.mean() - pred(static_cast<Eigen::Index>(j))) / o.standard_error());
  }
  const double mean_level = 1e-3;
  // Student t for the replicates behind each coordinate's mean (the same count for all).
  const double z_mean = t_multiplier(normal_quantile(1 - mean_level / dbl(d)),
                                     res.observables[checkpoints + 2].stats.count());
  const bool mean_rejected = max_z > z_mean;
  // (3) Thm 7's guarantee with the noise on, per replicate: α_run = 4μ|∇L^ℓ_P(w_K)|² =
  // μ|w_K − w*_ℓ|² (∇L^ℓ_P(w) = (w − w*_ℓ)/2 for Gaussian x; key chain of the proof of
  // Thm 7).
  const auto& dist_on = res.observables[checkpoints].samples;
  const auto& L_on = res.observables[checkpoints + 1].samples;
  int certified = 0, refuted = 0;
  double worst_ratio = 0;
  std::vector<double> alphas;
  for (std::size_t i = 0; i < L_on.size(); ++i) {
    const double alpha = 4 * mu * dist_on[i] / 4;
    alphas.push_back(alpha);
    const double rhs_lo = risk::agnostic_relu_guarantee(bayes, mu, alpha).value;
    const double rhs_hi = risk::agnostic_relu_guarantee(opt_upper, mu, alpha).value;
    if (L_on[i] <= rhs_lo) ++certified;
    if (L_on[i] > rhs_hi) ++refuted;
    worst_ratio = std::max(worst_ratio, L_on[i] / rhs_lo);
  }
  const auto reps = static_cast<int>(L_on.size());

  scenario_result r;
  r.id = "swx23-thm7-alg8-contraction";
  r.title =
      "SWX+23 Thm 7: Alg 8 contracts geometrically to w*_l; L_P(w_T) <= 2(1+2mu) opt + alpha";
  r.source =
      "SWX+23 Alg 8, Thm 7 and its proof (eqs. (12)-(13), Lemma 14 with tau = mu/3), §4.2";
  r.claim =
      "(a) noise off, x ~ N(0, I_d): |w_i - w*_l|^2 contracts per step by a factor <= 1 - tau "
      "eta/2 (tau = mu/3, mu = 1/2), measured as the K-step geometric factor (its interval must "
      "lie below the claim; violated if it lies above); (b) E[w_K] = (1 - (1 - eta/2)^K) w*_l "
      "(exact: the population gradient w/2 - E[yx] is linear; family-wise level 1e-3); (c) noise "
      "on (corrected sensitivity, tight z): L_P(w_K) <= 2(1 + 2mu) opt + alpha per replicate with "
      "alpha = 4mu |grad L^l_P(w_K)|^2 from the proof's key chain; certified against opt >= the "
      "Bayes risk, refuted against opt <= min(L_P(w*), L_P(w*_l))";
  r.parameters = {{"d", d},
                  {"design", "x ~ N(0, I_d)"},
                  {"teacher", "y = clamp_B(ReLU(<w*, x>) + U[-h, h]), w* = (1/sqrt(d)) 1"},
                  {"h", h},
                  {"B", B},
                  {"eta", eta},
                  {"steps_K", K},
                  {"chunk_m", chunk},
                  {"n", static_cast<std::size_t>(K) * chunk},
                  {"mu", mu},
                  {"tau", cb.tau},
                  {"epsilon", epsilon},
                  {"delta", delta},
                  {"noise_multiplier_tight", z_tight},
                  {"feature_norm_bound_Rx", Rx},
                  {"x_samples_per_risk", samples},
                  {"replicates", replicates},
                  {"tier", to_string(c.tier)}};
  const bool a_viol = q_lo > q_claim, a_hold = q_hi <= q_claim && worst_window <= q_claim;
  const bool c_viol = refuted * 2 > reps, c_hold = certified == reps;
  r.notes.push_back(
      "(a) K-step factor per step, noise off: " + sig(q_hat, 6) + " [" + sig(q_lo, 6) + ", " +
      sig(q_hi, 6) + "] (" + sig(conf1 * 100, 4) + "%) vs the claimed 1 - tau eta/(2F) = " +
      sig(q_claim, 6) + "; population GD gives exactly (1 - eta/2)^2 = " + sig(q_exact, 6) +
      " (strong monotonicity 1/2 and Lipschitz 1/2 coincide: the gradient is linear), "
      "so the claim's factor is an upper bound, loose by (1 - q)/(tau eta/2) ~ " +
      sig((1 - q_hat) / (cb.tau * eta / 2), 3));
  r.notes.push_back("(a) worst 4-step window, per step (point estimate): " + sig(worst_window, 6) +
                    " (the geometric factor over K steps may hide a slow "
                    "window; required <= the claim for 'holds')");
  r.notes.push_back("(b) E[w_K] vs (1 - (1 - eta/2)^K) w*_l: largest |z| over " +
                    std::to_string(d) + " coordinates " + sig(max_z, 3) + " (threshold " +
                    sig(z_mean, 3) + "); |w*_l| = " + sig(std::sqrt(d0), 5) +
                    ", |w*| = " + sig(W_teacher));
  const sim::moments& noise_on = res.observables[checkpoints].stats;
  r.notes.push_back("noise floor: E|w_K - w*_l|^2 = " + sig(mK, 4) +
                    " (noise off, sampling only) and " + sig(noise_on.mean(), 4) + " +- " +
                    sig(t_multiplier(1.96, noise_on.count()) * noise_on.standard_error(), 3) +
                    " (noise on, z = " + sig(z_tight, 4) + " for (eps, delta) = (" + sig(epsilon) +
                    ", " + sig(delta) +
                    ") per step, corrected sensitivity 2R_x(R_x|w| + B)/m); "
                    "the pure-contraction part (1 - eta/2)^{2K}|w*_l|^2 = " +
                    sig(std::pow(q_exact, Kd) * d0, 4));
  r.notes.push_back("(c) opt: Bayes risk E Var(y|x) = " + sig(bayes, 5) +
                    " <= opt <= " + sig(opt_upper, 5) + " (L_P(w*) = " + sig(L_teacher.value, 5) +
                    ", L_P(w*_l) = " + sig(L_wl.value, 5) + "); mean L_P(w_K) = " +
                    sig(mean_of(L_on), 5) + ", mean alpha reached = " + sig(mean_of(alphas), 4) +
                    "; certified " + std::to_string(certified) + "/" + std::to_string(reps) +
                    ", refuted " + std::to_string(refuted) + "/" + std::to_string(reps) +
                    "; largest L_P(w_K)/(RHS at the Bayes risk) " + sig(worst_ratio, 4));
  r.notes.push_back(
      "mu has two roles in the paper (Lemma 12 and the text of Sec 4.2): the strong-monotonicity constant (1/2 "
      "here, used for tau) and Lemma 12's upper constant, which for Gaussian x is 2 (ReLU(t) = (t "
      "+ |t|)/2 and the odd symmetry give E(ReLU(a) - ReLU(b))^2 <= E(a - b)^2/2 = 2 |chi^{sigma "
      "w} - chi^{sigma w*}|^2); (c) uses mu = 1/2, the smaller right-hand side, so it also holds "
      "with mu = " +
      sig(mu_l12));
  r.verdict = (a_viol || mean_rejected || c_viol) ? verdict::violated
              : (a_hold && c_hold)                ? verdict::holds
                                                  : verdict::inconclusive;
  r.verdict_reason =
      a_viol          ? "the measured contraction factor is significantly above 1 - tau eta/(2F)"
      : mean_rejected ? "E[w_K] differs from (1 - (1 - eta/2)^K) w*_l"
      : c_viol        ? "L_P(w_K) exceeds 2(1+2mu) opt + alpha in most replicates"
      : (a_hold && c_hold)
          ? "contraction factor " + sig(q_hat, 5) + " <= " + sig(q_claim, 5) +
                ", E[w_K] as predicted, and the Thm 7 guarantee certified in every replicate"
          : "not resolved (contraction interval straddles the claim or the guarantee is neither "
            "certified nor refuted everywhere)";
  r.quantity = "per-step contraction factor of |w_i - w*_l|^2 (noise off, geometric over K steps)";
  r.bound = q_claim;
  r.estimate = q_hat;
  r.estimate_lo = q_lo;
  r.estimate_hi = q_hi;
  r.confidence = conf1;
  r.tightness = (1 - q_hat) / (1 - q_claim);
  r.replicates = replicates;
  figure& f = r.figure;
  f.title = "Alg 8 (noise off): E|w_T − w^*_l|^2 against T";
  f.x_label = "step T";
  f.y_label = "E |w_T − w^*_l|^2";
  f.log_y = true;
  series s = {};
  s.name = "measured (95% intervals)";
  s.style = "points";
  s.colour = 0;
  series ex, cl;
  ex.name = "population GD (1 − η/2)^{2T} |w^*_l|^2";
  ex.colour = 1;
  cl.name = "claimed (1 − τη/2)^T |w^*_l|^2" +
            (F == 1 ? std::string() : " (factor F = " + sig(F) + ")");
  cl.colour = 2;
  cl.dash = 2;
  for (std::size_t k = 0; k < checkpoints; ++k) {
    const double T = static_cast<double>((k + 1) * static_cast<std::size_t>(every));
    const auto& o = res.observables[k].stats;
    s.x.push_back(T);
    s.y.push_back(o.mean());
    const double t95 = t_multiplier(1.96, o.count());  // Student t for the replicates
    s.y_lo.push_back(o.mean() - t95 * o.standard_error());
    s.y_hi.push_back(o.mean() + t95 * o.standard_error());
    ex.x.push_back(T);
    ex.y.push_back(std::pow(q_exact, T) * d0);
    cl.x.push_back(T);
    cl.y.push_back(std::pow(q_claim, T) * d0);
  }
  f.data.push_back(std::move(s));
  f.data.push_back(std::move(ex));
  f.data.push_back(std::move(cl));
  return r;
}

// ---- swx23-lemma7-floor -------------------------------------------------------------------------

scenario_result lemma7_floor(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::uint64_t instances = replicates_for(c, 200, 2000);
  const std::size_t samples = full ? 40000 : 4000;  // x draws per instance (common to all terms)
  const double F = c.bound_factor;
  const std::size_t d = 3;
  const int degree = 2;
  const glm_link link = glm_link::sigmoid;  // Assumption 3: σ: R → [0, 1], G = 1/4
  const double G = learners::link_lipschitz(link);
  const std::vector<double> Ms = {0.05, 0.3, 1.0, 3.0};
  const learners::glm_design design = learners::glm_design::coordinate(d, d, learners::glm_design_law::unit_ball);
  const std::size_t k = learners::polynomial_feature_dimension(d, degree);
  // Observables: the slack F × RHS − LHS (mean over x), its standard error, LHS, surrogate
  // excess, M.
  const std::vector<sim::observable> obs = {{"slack", true},  {"slack se", true},
                                            {"excess", true}, {"surrogate excess", true},
                                            {"M", true},      {"rhs", true}};
  sim::monte_carlo_options mc = mc_options(c, instances, "swx23-lemma7-floor");
  mc.chunk = 8;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        random_stream inst(c.seed, rep, 0), xs(c.seed, rep, 1);
        const double M = Ms[rep % Ms.size()];
        // w* ∈ R^k with |w*| = W ~ U(0, 4) (‖ψ(x)‖ ≤ 1 for ‖x‖ ≤ 1); the misspecification
        // φ(x) = M sin(a·x + b) with a random frequency vector a (|a| ≤ 6) and phase b:
        // |φ| ≤ M exactly (model (4), Assumption 3).
        const sim::vector w_star = inst.uniform(0, 4) * unit_direction(k, inst);
        sim::vector a(static_cast<Eigen::Index>(d));
        for (Eigen::Index j = 0; j < a.size(); ++j) a(j) = inst.uniform(-6, 6) / std::sqrt(3.0);
        const double phase = inst.uniform(0, 2 * std::numbers::pi);
        const Eigen::MatrixXd X = design.sample(samples, xs);
        const Eigen::MatrixXd Psi = learners::polynomial_features(X, degree);
        const Eigen::VectorXd b0 = Psi * w_star;
        Eigen::VectorXd mean_y(b0.size());  // E[y|x] = σ(⟨w*, ψ(x)⟩ + φ(x)) (binary labels)
        for (Eigen::Index i = 0; i < b0.size(); ++i)
          mean_y(i) = learners::link_value(link, b0(i) + M * std::sin(X.row(i).dot(a) + phase));
        // w: even instances w* + r v (random direction, r ~ U(0, 4) or U(0, 0.3)); odd instances
        // w* − t g with g = ∇L^ℓ_P(w*) = E[(σ(b0) − E[y|x]) ψ(x)] on the same draws, t ~ U(0, 40):
        // towards the surrogate minimiser, where L^ℓ_P(w) − L^ℓ_P(w*) < 0 (w* minimises L^ℓ_P
        // only when M = 0) and the floor has to carry the inequality.
        sim::vector w;
        if (rep % 2 == 0) {
          const double r = inst.uniform(0, (rep / 2) % 2 == 0 ? 4.0 : 0.3);
          w = w_star + r * unit_direction(k, inst);
        } else {
          Eigen::VectorXd resid(b0.size());
          for (Eigen::Index i = 0; i < b0.size(); ++i)
            resid(i) = learners::link_value(link, b0(i)) - mean_y(i);
          const sim::vector g = Psi.transpose() * resid / dbl(samples);
          w = w_star - inst.uniform(0, 40) * g;
        }
        const Eigen::VectorXd aw = Psi * w;
        const risk::kernel_surrogate_constants kc = risk::kernel_surrogate_lemma(G, M);
        // Per x: excess (σ(a) − E[y|x])² (SWX+23 §5: L_P(h) − min_h L_P(h) = E(h − E[y|x])²)
        // and surrogate difference Λ(a) − Λ(b0) − E[y|x](a − b0) (E over y in closed form).
        double se_sum = 0, ex_sum = 0;
        std::vector<double> slack(static_cast<std::size_t>(aw.size()));
        for (Eigen::Index i = 0; i < aw.size(); ++i) {
          const double e = std::pow(learners::link_value(link, aw(i)) - mean_y(i), 2);
          const double s = learners::link_integral(link, aw(i)) - learners::link_integral(link, b0(i)) -
                           mean_y(i) * (aw(i) - b0(i));
          ex_sum += e;
          se_sum += s;
          slack[static_cast<std::size_t>(i)] = F * (kc.factor * s + kc.floor) - e;
        }
        out[0] = mean_of(slack);
        out[1] = se_of(slack);
        out[2] = ex_sum / dbl(samples);
        out[3] = se_sum / dbl(samples);
        out[4] = M;
        // Lemma 7's right-hand side (the surrogate excess may be negative here, see above).
        out[5] = risk::kernel_surrogate_excess_to_risk(G, M, out[3]);
      },
      mc);
  const double confidence = 1 - 0.05 / static_cast<double>(instances);
  const double z = normal_quantile(confidence);
  int below = 0, above = 0;
  double min_ratio = INFINITY;
  std::size_t worst = 0;
  const auto& slack = res.observables[0].samples;
  const auto& se = res.observables[1].samples;
  const auto& ex = res.observables[2].samples;
  const auto& rhs = res.observables[5].samples;
  int negative_surrogate = 0;
  for (std::size_t i = 0; i < slack.size(); ++i) {
    if (slack[i] + z * se[i] < 0) ++below;
    if (slack[i] - z * se[i] > 0) ++above;
    if (res.observables[3].samples[i] < 0) ++negative_surrogate;
    const double ratio = rhs[i] / ex[i];
    if (ratio < min_ratio) {
      min_ratio = ratio;
      worst = i;
    }
  }
  const auto n_inst = static_cast<int>(instances);
  scenario_result r;
  r.id = "swx23-lemma7-floor";
  r.title = "SWX+23 Lemma 7: excess risk <= 4G x surrogate excess + 2G^2M^2 + 4GM (model (4))";
  r.source = "SWX+23 Lemma 7 (Sec 5, App B)";
  r.claim =
      "exact inequality: for the kernelised model (4) y ~ Bernoulli(sigma(<w*, psi(x)> + "
      "phi(x))) with |phi| <= M, every w satisfies L_P(w) - min_h L_P(h) <= 4G (L^l_P(w) - "
      "L^l_P(w*)) + 2G^2M^2 + 4GM (sigmoid, G = 1/4); per instance the mean over common x draws "
      "of F x RHS - LHS gets a " +
      sig(confidence * 100, 6) +
      "% interval (Bonferroni over the instances): violated if one "
      "lies wholly below 0, holds if all lie wholly above";
  r.parameters = {{"link", "sigmoid (G = 1/4)"},
                  {"d", d},
                  {"design", "x uniform in the unit ball"},
                  {"kernel", "psi = polynomial_feature_map, degree 2 (k = 10, |psi| <= 1)"},
                  {"phi", "M sin(<a, x> + b), a_j ~ U(-6, 6)/sqrt 3, b ~ U(0, 2 pi)"},
                  {"M", Ms},
                  {"w_star", "|w*| ~ U(0, 4), uniform direction in R^k"},
                  {"w",
                   "even instances w* + r v (r ~ U(0, 4) or U(0, 0.3)); odd instances w* - t "
                   "grad L^l_P(w*), t ~ U(0, 40)"},
                  {"labels",
                   "binary, E[y|x] = sigma(<w*, psi(x)> + phi(x)) (expectation over y "
                   "in closed form)"},
                  {"x_samples_per_instance", samples},
                  {"instances", instances},
                  {"tier", to_string(c.tier)}};
  r.notes.push_back(std::to_string(above) + " of " + std::to_string(n_inst) +
                    " instances resolved above (slack > 0), " + std::to_string(below) + " below; " +
                    std::to_string(negative_surrogate) +
                    " instances have L^l_P(w) < L^l_P(w*) (w* does not minimise the surrogate "
                    "when M > 0)");
  r.notes.push_back("smallest RHS/LHS " + sig(min_ratio, 4) + " at M = " +
                    sig(res.observables[4].samples[worst]) + " (LHS " + sig(ex[worst], 4) +
                    ", surrogate excess " + sig(res.observables[3].samples[worst], 4) + ")");
  for (const double M : Ms) {
    double mr = INFINITY;
    for (std::size_t i = 0; i < rhs.size(); ++i)
      if (res.observables[4].samples[i] == M) mr = std::min(mr, rhs[i] / ex[i]);
    const risk::kernel_surrogate_constants kc = risk::kernel_surrogate_lemma(G, M);
    r.notes.push_back("M = " + sig(M) + ": floor 2G^2M^2 + 4GM = " + sig(kc.floor, 4) +
                      ", smallest RHS/LHS " + sig(mr, 4));
  }
  r.notes.push_back(
      "the inequality is not pointwise in x (the cross term (sigma(<w*,psi>) - E[y|x])(a - b0) "
      "can have either sign), so each instance is decided by a Monte Carlo interval; the excess "
      "uses min_h L_P(h) = L_P(E[y|.]) (binary labels)");
  r.verdict = below > 0         ? verdict::violated
              : above == n_inst ? verdict::holds
                                : verdict::inconclusive;
  r.verdict_reason =
      below > 0 ? std::to_string(below) + " instances with LHS significantly above " +
                      (F == 1 ? std::string() : sig(F) + " x ") + "the Lemma 7 right-hand side"
      : above == n_inst ? "every instance lies significantly below the bound (smallest RHS/LHS " +
                              sig(min_ratio, 4) + ")"
                        : std::to_string(n_inst - above) + " instances not resolved";
  r.quantity = "min over instances of RHS/LHS";
  r.bound = F;
  r.estimate = r.estimate_lo = r.estimate_hi = min_ratio;
  r.confidence = confidence;
  r.tightness = min_ratio;
  r.replicates = instances;
  figure& f = r.figure;
  f.title = "Lemma 7: excess risk against its bound 4G × surrogate excess + floor";
  f.x_label = "4G (L^l_P(w) − L^l_P(w^*)) + 2G^2M^2 + 4GM";
  f.y_label = "L_P(w) − min_h L_P(h)";
  f.log_x = f.log_y = true;
  double lo = INFINITY, hi = 0;
  for (std::size_t mi = 0; mi < Ms.size(); ++mi) {
    series s;
    s.name = "instances, M = " + sig(Ms[mi]);
    s.style = "points";
    s.colour = static_cast<int>(mi);
    for (std::size_t i = 0; i < rhs.size(); ++i) {
      if (res.observables[4].samples[i] != Ms[mi] || !(rhs[i] > 0 && ex[i] > 0)) continue;
      s.x.push_back(rhs[i]);
      s.y.push_back(ex[i]);
      lo = std::min(lo, rhs[i]);
      hi = std::max(hi, rhs[i]);
    }
    f.data.push_back(std::move(s));
  }
  series line;
  line.name = "Lemma 7 bound y = x" + (F == 1 ? std::string() : " × " + sig(F));
  line.colour = 5;
  line.x = {lo, hi};
  line.y = {F * lo, F * hi};
  f.data.push_back(std::move(line));
  return r;
}

// ---- swx23-thm6-steps-ushape --------------------------------------------------------------------

scenario_result thm6_steps_ushape(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::uint64_t replicates = replicates_for(c, 100, 1000);
  const std::size_t samples = full ? 20000 : 4000;
  const std::size_t d = 5;
  const std::size_t n = 2500;
  const double epsilon = 1, delta = 1e-5, W = 1, h = 0.5, B = W + h, eta = 0.5;
  const std::vector<long> Ts =
      full ? std::vector<long>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048}
           : std::vector<long>{1, 4, 16, 64, 256, 1024};
  risk::glm_problem prob;
  prob.examples = static_cast<long long>(n);
  prob.theta = dbl(d);
  prob.epsilon = epsilon;
  prob.delta = delta;
  prob.W = W;
  prob.G = 1;  // ReLU
  prob.B = B;
  const risk::relu_gd_horizon hz = risk::relu_gd_steps(prob, dbl(d), eta);
  // The argmin over the grid of Thm 6's proof-level bound at this η (terms up to constants).
  double bound_argmin = 0, bound_min = INFINITY;
  std::vector<double> bound_curve;
  for (const long T : Ts) {
    const double v = risk::relu_gd_proof_bound(prob, T, dbl(d), eta).value;
    bound_curve.push_back(v);
    if (v < bound_min) {
      bound_min = v;
      bound_argmin = static_cast<double>(T);
    }
  }
  std::vector<sim::observable> obs;
  for (const long T : Ts) obs.push_back({"excess, T = " + std::to_string(T), true});
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-thm6-steps-ushape");
  mc.chunk = 4;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        // Well-specified ReLU teacher (model (1) with σ = ReLU): y = ReLU(<w*, x>) + U[−h, h],
        // |y| ≤ W + h = B; x uniform on S^{d−1} (‖x‖ = 1). Common data and noise key for every T.
        random_stream ws(c.seed, rep, 0), fs(c.seed, rep, 1), ls(c.seed, rep, 2);
        learners::glm_population p;
        p.design = learners::glm_design::coordinate(d, d, learners::glm_design_law::unit_sphere);
        p.teacher.link = glm_link::relu;
        p.teacher.w_star = W * unit_direction(d, ws);
        p.teacher.noise = learners::glm_label_noise::uniform;
        p.teacher.noise_scale = h;
        const sim::dataset data = p.sample(n, fs, ls);
        learners::relu_pgd_options o;
        o.epsilon = epsilon;
        o.delta = delta;
        o.W_norm = W;
        o.B_bound = B;
        o.use_jl = false;  // Φ = I_d: the T trade-off does not involve the JL step
        o.eta = eta;
        for (std::size_t j = 0; j < Ts.size(); ++j) {
          o.steps = Ts[j];
          const learners::glm_result g = learners::relu_dp_pgd(data, o, {c.seed, rep, 10});
          random_stream s(c.seed, rep, 3);
          out[j] = p.excess_risk(glm_link::relu, g.w, samples, s).value;
        }
      },
      mc);
  std::vector<double> x;
  std::vector<std::vector<double>> cols;
  for (std::size_t j = 0; j < Ts.size(); ++j) {
    x.push_back(static_cast<double>(Ts[j]));
    cols.push_back(res.observables[j].samples);
  }
  // Self-check: a monotone curve (either end).
  const ushape_check u = check_ushape(x, cols, c.self_check, "T", x.size());
  scenario_result r;
  r.id = "swx23-thm6-steps-ushape";
  r.title = "SWX+23 Thm 6: Alg 7's excess risk is U-shaped in the number of steps T";
  r.source = "SWX+23 Alg 7, proof of Thm 6";
  r.claim =
      "trend (up to constants): at fixed (eps, delta) and step size, with the paper's noise "
      "sigma^2 = 32(4W + B)^2 T log(2/delta)/(n^2 eps^2), the excess risk of Alg 7 against T is "
      "U-shaped (optimisation ~ 1/(eta T) falls, privacy ~ eta T m/(n eps)^2 grows); checked as: "
      "some interior T has both ends significantly worse (paired differences R(T_end) - R(T), "
      "common random numbers); the location is compared with T* of the proof-level bound";
  r.parameters = {{"link", "relu (G = 1)"},
                  {"d", d},
                  {"design", "x uniform on S^{d-1}"},
                  {"teacher", "y = ReLU(<w*, x>) + U[-h, h], |w*| = W, uniform direction"},
                  {"W", W},
                  {"h", h},
                  {"B", B},
                  {"n", n},
                  {"epsilon", epsilon},
                  {"delta", delta},
                  {"eta", eta},
                  {"T", Ts},
                  {"jl", "off (Phi = I_d, m = d)"},
                  {"x_samples_per_replicate", samples},
                  {"replicates", replicates},
                  {"tier", to_string(c.tier)}};
  fill_ushape_result(r, u, replicates);
  std::string means, bounds;
  for (std::size_t j = 0; j < Ts.size(); ++j) {
    means += " " + sig(mean_of(cols[j]), 4);
    bounds += " " + sig(bound_curve[j], 3);
  }
  r.notes.push_back("mean excess risk at T =" + [&] {
    std::string t;
    for (const long T : Ts) t += " " + std::to_string(T);
    return t;
  }() + ":" + means);
  r.notes.push_back("Thm 6 at eta = " + sig(eta) +
                    " (risk::relu_gd_steps, up to constants): T* = W/(eta (W+B) "
                    "sqrt(m log(1/delta)/(n eps)^2 + 1/n)) = " +
                    sig(hz.optimal_steps, 4) +
                    "; the proof-level bound (logs dropped, constants 1) on the grid:" + bounds +
                    " (argmin T = " + sig(bound_argmin) +
                    "); the theorem's own T = min{n, (n eps)^2/(m "
                    "log(1/delta))} = " +
                    sig(hz.theorem_steps, 4));
  r.notes.push_back(
      "the proof's privacy term grows linearly in T (worst case, merely convex); here the "
      "population surrogate is strongly convex on the sphere, and the averaged iterate's noise "
      "variance grows like T^2 only until the iterates mix, then tends to sigma^2/(lambda^2 T), "
      "which is constant in T since sigma^2 ~ T: the right arm flattens at large T rather than "
      "growing without bound");
  figure& f = r.figure;
  f.title = "Alg 7 excess risk against T (n = " + std::to_string(n) + ", ε = " + sig(epsilon) +
            ", η = " + sig(eta) + ")";
  f.x_label = "steps T";
  f.y_label = "E L_P(w̄) − L_P(w^*)";
  f.log_x = f.log_y = true;
  f.data.push_back(mean_series("measured (95% intervals)", x, cols, 0));
  f.data.push_back(marker("T^* of Thm 6 at this η (up to constants)", hz.optimal_steps, cols, 1));
  return r;
}

}  // namespace

void register_nonconvex_extra_scenarios(std::vector<scenario>& out) {
  out.push_back({"swx23-thm2-jl-ushape",
                 "SWX+23 Thm 2: Alg 3's risk is U-shaped in the JL dimension", thm2_jl_ushape,
                 0.5});
  out.push_back({"swx23-thm7-alg8-contraction",
                 "SWX+23 Thm 7: Alg 8 contraction factor and final guarantee", thm7_contraction,
                 0.05});
  out.push_back(
      {"swx23-lemma7-floor", "SWX+23 Lemma 7: kernel surrogate-to-risk floor", lemma7_floor, 0.2});
  out.push_back({"swx23-thm6-steps-ushape", "SWX+23 Thm 6: Alg 7's risk is U-shaped in T",
                 thm6_steps_ushape, 0.5});
}

}  // namespace dpkit::validation
