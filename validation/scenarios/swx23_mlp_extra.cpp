// SWX+23 §6, more validation of Algorithm 10 and its App C lemmas (Figs 1 and 5),
// on the reference simulator (dpkit::sim mlp) and the common task
// of scenarios/swx23_mlp.cpp (inputs uniform on S^{d−1}, d = 8, a random two-layer ReLU teacher
// with K = 4 units and 5% label noise, a fresh task per replicate, the L = 3 network with He
// initialisation and the logistic loss, S = 1):
//
//  * swx23-fig1-ntrf          [trend]   the NTRF approximation term of Thm 13 eq. (7), the minimum
//                                     of the mean logistic loss of the linearised network over
//                                     the per-layer balls B(W0_l, ω), ω = R/√m (Fig 1 grid
//                                     ω = 0.1, 0.3, …, 1.9), solved to a certified accuracy
//                                     (Frank–Wolfe duality gap); decreasing in ω (exact: nested
//                                     sets) and in m (paired across widths, Bonferroni).
//  * swx23-fig5-sample-size   [qual]    Alg 10 with Fig 5's schedule m = ⌈n^{1/4}/2⌉ (floor 4),
//                                     T = 50 n^{2/5}, ε = 1, δ = 1/n², against the non-private
//                                     run on the same batches: the test-loss gap and the relative
//                                     gap fall with n (paired differences, Bonferroni).
//  * swx23-lemma20-22-init    [scaling] at He initialisation: hidden-norm fluctuations O(√(L/m))
//                                     (slope −½ in m), per-example gradient norm Θ(√m) (slope ½),
//                                     and max_i |f(W0, x_i)| ≤ ‖h_{L−1}‖√(2 log(n/ξ)) (Lemma 26,
//                                     with its constant made explicit; Clopper–Pearson).
//
// Every claim here is up to hidden constants except the two certificates (the duality gap and
// Lemma 26's explicit form), so the verdicts are on directions, exponents and certified
// inequalities; no value of a bound with hidden constants is audited. The simulator knows no
// bound.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../harness/scenarios.hpp"
#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/risk/mlp_bounds.hpp"
#include "dpkit/sim/mlp.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "dpkit/sim/statistics.hpp"
#include "swx23_mlp_common.hpp"

namespace dpkit::validation {
namespace {

// The common task of scenarios/swx23_mlp.cpp (swx23_mlp_common.hpp).
using mlp_detail::calibrated_z;
using mlp_detail::kDepth;
using mlp_detail::kDim;
using mlp_detail::kEpsilon;
using mlp_detail::kRate;
using mlp_detail::teacher_data;

using rowmajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// ---- shared pieces
// -------------------------------------------------------------------------------

// Forward and backward passes of the network of sim/mlp.hpp at W for all n inputs at once
// (columns), in the notation of SWX+23 App C: hidden[l] = h_l (rows: units, columns: inputs;
// hidden[0] = xᵀ), delta[l] = δ_l with ∇_{W_l} f(W, x_i) = δ_{l,i} h_{l−1,i}ᵀ (eq. (16); the
// back-propagation of sim/mlp.hpp's header: δ_{L−1} = √m D_{L−1} W_Lᵀ, δ_{l−1} = D_{l−1} W_lᵀ δ_l,
// and δ_L = √m for the output layer), and f = f(W, x_i).
struct batch_pass {
  std::vector<Eigen::MatrixXd> hidden;  // l = 0, …, L−1
  std::vector<Eigen::MatrixXd> delta;   // l = 1, …, L−1 at index l (index 0 unused)
  Eigen::VectorXd f;
};

batch_pass forward_backward(const sim::mlp_architecture& a,
                            const sim::vector& w,
                            const Eigen::MatrixXd& x,  // n×d, row i = x_i
                            bool backward) {
  const std::size_t L = a.depth;
  const double sqrt_m = std::sqrt(static_cast<double>(a.width));
  auto layer = [&](std::size_t l) {
    return Eigen::Map<const rowmajor>(w.data() + static_cast<Eigen::Index>(a.layer_offset(l)),
                                      static_cast<Eigen::Index>(a.rows(l)),
                                      static_cast<Eigen::Index>(a.columns(l)));
  };
  batch_pass b;
  b.hidden.resize(L);
  b.hidden[0] = x.transpose();
  for (std::size_t l = 1; l < L; ++l) b.hidden[l] = (layer(l) * b.hidden[l - 1]).cwiseMax(0.0);
  b.f = sqrt_m * (layer(L) * b.hidden[L - 1]).transpose();
  if (!backward) return b;
  b.delta.resize(L);
  // D_l = diag(1{(W_l h_{l−1})_j > 0}) = diag(1{(h_l)_j > 0}).
  auto active = [&](std::size_t l) { return (b.hidden[l].array() > 0).cast<double>().matrix(); };
  const Eigen::VectorXd wl = sqrt_m * layer(L).transpose();
  b.delta[L - 1] = active(L - 1).array().colwise() * wl.array();
  for (std::size_t l = L - 1; l > 1; --l)
    b.delta[l - 1] = (layer(l).transpose() * b.delta[l]).cwiseProduct(active(l - 1));
  return b;
}

// ---- swx23-fig1-ntrf
// -------------------------------------------------------------------------------
//
// The NTRF problem (SWX+23 Def 8, Cao–Gu form f(W0, x) + ⟨∇f(W0, x), W − W0⟩,
// docs/findings.md; Thm 13 eq. (7); Fig 1):
//
//   min  F(Δ) = (1/n) Σ_i ℓ(y_i (f0_i + Σ_l ⟨G_{l,i}, Δ_l⟩))   s.t. ‖Δ_l‖_F ≤ ω (l = 1, …, L),
//
// G_{l,i} = ∇_{W_l} f(W0, x_i), f0_i = f(W0, x_i), ℓ(z) = log(1 + e^{−z}). F is convex and
// smooth. Every gradient ∇_{Δ_l} F = Σ_i r_i G_{l,i} (r_i = ℓ′(y_i u_i) y_i/n) lies in the span of
// the G_{l,i}, and the projection onto a ball centred at 0 rescales, so projected-gradient
// iterates from Δ = 0 stay of the form Δ_l = Σ_i α_{l,i} G_{l,i}: the algorithm runs EXACTLY in
// the coefficients α_l ∈ R^n with the per-layer Gram matrices K_l = G_lᵀ G_l, where
//   K_l(i, j) = (δ_{l,i}·δ_{l,j})(h_{l−1,i}·h_{l−1,j})  (gradients are outer products, eq. (16)),
// u = f0 + Σ_l K_l α_l and ‖Δ_l‖² = α_lᵀ K_l α_l. This costs O(n²) per iteration instead of
// O(np) (p = 4·10⁶ at Fig 1's m = 2000).
//
// Certificate: the Frank–Wolfe duality gap over the product of balls,
//   gap(Δ) = max_{‖S_l‖ ≤ ω} ⟨∇F(Δ), Δ − S⟩ = Σ_l (⟨∇_l F, Δ_l⟩ + ω‖∇_l F‖) ≥ F(Δ) − min F
// (convexity; the linear minimiser over a ball is −ω∇_l F/‖∇_l F‖), with ⟨∇_l F, Δ_l⟩ = rᵀK_lα_l
// and ‖∇_l F‖² = rᵀK_l r. So min F ∈ [F(Δ) − gap, F(Δ)] for the returned Δ.

// The per-layer Gram matrices K_l (index l − 1) and f(W0, x_i).
struct ntk_grams {
  std::vector<Eigen::MatrixXd> K;
  Eigen::VectorXd f0;
};

ntk_grams layer_grams(const sim::mlp_architecture& a,
                      const sim::vector& w0,
                      const Eigen::MatrixXd& x) {
  const batch_pass b = forward_backward(a, w0, x, true);
  const std::size_t L = a.depth;
  ntk_grams g;
  g.f0 = b.f;
  g.K.resize(L);
  // Output layer: ∇_{W_L} f = √m h_{L−1}ᵀ, so K_L = m H_{L−1}ᵀ H_{L−1}.
  g.K[L - 1] = static_cast<double>(a.width) * (b.hidden[L - 1].transpose() * b.hidden[L - 1]);
  for (std::size_t l = 1; l < L; ++l) {
    const Eigen::MatrixXd dd = b.delta[l].transpose() * b.delta[l];
    const Eigen::MatrixXd hh = b.hidden[l - 1].transpose() * b.hidden[l - 1];
    g.K[l - 1] = dd.cwiseProduct(hh);
  }
  return g;
}

// ℓ(z) = log(1 + e^{−z}) and ℓ′(z) = −1/(1 + e^{z}), stable for any finite z.
double logistic(double z) {
  return z > 0 ? std::log1p(std::exp(-z)) : -z + std::log1p(std::exp(z));
}
double logistic_slope(double z) {
  return -1 / (1 + std::exp(z));
}

struct ntrf_state {
  std::vector<Eigen::VectorXd> alpha, k_alpha;  // α_l and K_l α_l
};

struct ntrf_solution {
  double value = 0;  // F(Δ) at the returned Δ (an upper bound on the minimum)
  double gap = 0;    // its duality gap (F − gap is a lower bound on the minimum)
  long iterations = 0;
};

class ntrf_solver {
 public:
  // Holds references to g and y: temporaries would dangle, so binding one is an error.
  ntrf_solver(ntk_grams&&, const Eigen::VectorXd&) = delete;
  ntrf_solver(const ntk_grams&, Eigen::VectorXd&&) = delete;
  ntrf_solver(const ntk_grams& g, const Eigen::VectorXd& y) : g_(g), y_(y) {
    const auto n = y.size();
    Eigen::MatrixXd total = Eigen::MatrixXd::Zero(n, n);
    for (const auto& K : g.K) total += K;
    // ∇²F = (1/n) Σ_i ℓ″ g_i g_iᵀ ⪯ λ_max(Σ_l K_l)/(4n) (ℓ″ ≤ 1/4; g_i the full gradient):
    // step 1/Lip with the exact top eigenvalue of the NTK Gram matrix.
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(total, Eigen::EigenvaluesOnly);
    const double lmax = eig.eigenvalues().maxCoeff();
    step_ = 4 * static_cast<double>(n) / lmax;
  }

  ntrf_state zero() const {
    ntrf_state s;
    for (std::size_t l = 0; l < g_.K.size(); ++l) {
      s.alpha.push_back(Eigen::VectorXd::Zero(y_.size()));
      s.k_alpha.push_back(Eigen::VectorXd::Zero(y_.size()));
    }
    return s;
  }

  // FISTA (Beck–Teboulle) with function-value restarts (O'Donoghue–Candès) from the feasible
  // `s`, until gap ≤ rel_tol·F + abs_tol or max_iterations; s becomes the returned point.
  ntrf_solution solve(
      ntrf_state& s, double omega, double rel_tol, double abs_tol, long max_iterations) const {
    const std::size_t L = g_.K.size();
    ntrf_state y = s, next = s;
    std::vector<Eigen::VectorXd> kr(L);
    Eigen::VectorXd r;
    double fx = value(s, r), t = 1;
    bool restarted = true;
    ntrf_solution out;
    for (long k = 1; k <= max_iterations; ++k) {
      value(y, r);
      for (std::size_t l = 0; l < L; ++l) {
        kr[l].noalias() = g_.K[l] * r;
        next.alpha[l] = y.alpha[l] - step_ * r;
        next.k_alpha[l] = y.k_alpha[l] - step_ * kr[l];
        const double norm = std::sqrt(std::max(0.0, next.alpha[l].dot(next.k_alpha[l])));
        if (norm > omega) {
          next.alpha[l] *= omega / norm;
          next.k_alpha[l] *= omega / norm;
        }
      }
      const double fn = value(next, r);
      if (fn > fx && !restarted) {  // restart the momentum from the last accepted point
        y = s;
        t = 1;
        restarted = true;
        continue;
      }
      restarted = false;
      const double t_next = (1 + std::sqrt(1 + 4 * t * t)) / 2, beta = (t - 1) / t_next;
      for (std::size_t l = 0; l < L; ++l) {
        y.alpha[l] = next.alpha[l] + beta * (next.alpha[l] - s.alpha[l]);
        y.k_alpha[l] = next.k_alpha[l] + beta * (next.k_alpha[l] - s.k_alpha[l]);
      }
      std::swap(s, next);
      fx = fn;
      t = t_next;
      out.iterations = k;
      if (k % 10 == 0 || k == max_iterations) {
        out.gap = gap(s, omega);
        if (out.gap <= rel_tol * fx + abs_tol) break;
      }
    }
    out.value = fx;
    out.gap = gap(s, omega);
    return out;
  }

  // F at s; r ← ℓ′(y_i u_i) y_i/n (the gradient of F in u).
  double value(const ntrf_state& s, Eigen::VectorXd& r) const {
    Eigen::VectorXd u = g_.f0;
    for (const auto& ka : s.k_alpha) u += ka;
    const auto n = y_.size();
    r.resize(n);
    double f = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const double z = y_(i) * u(i);
      f += logistic(z);
      r(i) = logistic_slope(z) * y_(i) / static_cast<double>(n);
    }
    return f / static_cast<double>(n);
  }

  // The Frank–Wolfe gap Σ_l (rᵀK_lα_l + ω √(rᵀK_l r)) at s (≥ F(s) − min F).
  double gap(const ntrf_state& s, double omega) const {
    Eigen::VectorXd r;
    value(s, r);
    double total = 0;
    for (std::size_t l = 0; l < g_.K.size(); ++l) {
      const double grad_norm = std::sqrt(std::max(0.0, r.dot(g_.K[l] * r)));
      total += r.dot(s.k_alpha[l]) + omega * grad_norm;
    }
    return std::max(0.0, total);
  }

 private:
  const ntk_grams& g_;
  const Eigen::VectorXd& y_;
  double step_ = 0;
};

scenario_result fig1_ntrf(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  // Fig 1's widths m ∈ {200, 500, 2000} (full tier, with m = 50 added); n is far below MNIST's
  // 60 000 (the Gram matrices are n×n).
  const std::size_t n = full ? 500 : 300;
  const std::vector<std::size_t> widths =
      full ? std::vector<std::size_t>{50, 200, 500, 2000} : std::vector<std::size_t>{16, 64, 256};
  std::vector<double> omegas;  // Fig 1: R/√m ∈ {0.1, 0.3, …, 1.9}
  for (int k = 0; k < 10; ++k) omegas.push_back(0.1 + 0.2 * k);
  const std::uint64_t replicates = replicates_for(c, 30, 30);
  const double rel_tol = 1e-3, abs_tol = 1e-7;
  const long max_iterations = full ? 50000 : 20000;
  const double F = c.bound_factor;
  const std::size_t J = widths.size(), K = omegas.size();
  // Observables per (width j, radius k): value, gap, iterations; then one kernel check.
  auto index = [&](std::size_t j, std::size_t k) { return 3 * (j * K + k); };
  std::vector<sim::observable> obs;
  for (std::size_t j = 0; j < J; ++j)
    for (std::size_t k = 0; k < K; ++k) {
      const std::string tag = std::to_string(j) + "," + std::to_string(k);
      obs.push_back({"value " + tag, true});
      obs.push_back({"gap " + tag, true});
      obs.push_back({"iterations " + tag, false});
    }
  obs.push_back({"kernel check", false});
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-fig1-ntrf");
  mc.chunk = 1;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        const sim::dataset data = teacher_data(c.seed, rep, n);
        double check = 0;
        for (std::size_t j = 0; j < J; ++j) {
          const sim::mlp_architecture a{kDim, widths[j], kDepth};
          random_stream init(c.seed, rep, 20 + j);  // an independent W0 per width
          const sim::vector w0 = sim::mlp_initial_weights(a, init);
          const ntk_grams g = layer_grams(a, w0, data.features);
          if (j == 0) {
            // Cross-check of the Gram factorisation against the library's back-propagation
            // (sim::mlp_network::output_gradient) on the first three examples.
            const sim::mlp_network net(a);
            std::vector<sim::vector> grads(3, sim::vector(w0.size()));
            for (std::size_t i = 0; i < 3; ++i) {
              const double f = net.output_gradient(
                  w0, data.features.row(static_cast<Eigen::Index>(i)).transpose(), grads[i]);
              check = std::max(check, std::abs(f - g.f0(static_cast<Eigen::Index>(i))));
            }
            for (std::size_t l = 1; l <= kDepth; ++l) {
              const auto off = static_cast<Eigen::Index>(a.layer_offset(l));
              const auto size = static_cast<Eigen::Index>(a.layer_size(l));
              for (std::size_t i = 0; i < 3; ++i)
                for (std::size_t k = 0; k < 3; ++k) {
                  const double direct =
                      grads[i].segment(off, size).dot(grads[k].segment(off, size));
                  const double gram =
                      g.K[l - 1](static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k));
                  check = std::max(check, std::abs(direct - gram) / (1 + std::abs(direct)));
                }
            }
          }
          const ntrf_solver solver(g, data.labels);
          ntrf_state s = solver.zero();  // Δ = 0; each ω warm-starts from the previous optimum
          for (std::size_t k = 0; k < K; ++k) {
            const ntrf_solution sol = solver.solve(s, omegas[k], rel_tol, abs_tol, max_iterations);
            out[index(j, k)] = sol.value;
            out[index(j, k) + 1] = sol.gap;
            out[index(j, k) + 2] = static_cast<double>(sol.iterations);
          }
        }
        out[3 * J * K] = check;
      },
      mc);
  auto samples = [&](std::size_t j, std::size_t k, std::size_t what) -> const std::vector<double>& {
    return res.observables[index(j, k) + what].samples;
  };
  const double kernel_check = res.observables[3 * J * K].stats.max();
  if (!(kernel_check < 1e-8))
    throw std::logic_error(
        "swx23-fig1-ntrf: the NTK Gram factorisation disagrees with "
        "mlp_network::output_gradient by " +
        sig(kernel_check, 3));
  // (1) Certificates: every solve certified, and the nested-set monotonicity in ω, which holds
  // for the exact minima: F(ω_{k+1}) − gap_{k+1} ≤ min(ω_{k+1}) ≤ min(ω_k) ≤ F(ω_k).
  double worst_gap = 0, worst_relative_gap = 0;
  long most_iterations = 0;
  std::size_t uncertified = 0, nesting_contradictions = 0;
  for (std::size_t j = 0; j < J; ++j)
    for (std::size_t k = 0; k < K; ++k) {
      most_iterations = std::max(most_iterations,
                                 static_cast<long>(res.observables[index(j, k) + 2].stats.max()));
      for (std::size_t i = 0; i < replicates; ++i) {
        const double v = samples(j, k, 0)[i], gp = samples(j, k, 1)[i];
        worst_gap = std::max(worst_gap, gp);
        worst_relative_gap = std::max(worst_relative_gap, gp / v);
        if (gp > rel_tol * v + abs_tol) ++uncertified;
        if (k + 1 < K && samples(j, k + 1, 0)[i] - samples(j, k + 1, 1)[i] > v * (1 + 1e-12))
          ++nesting_contradictions;
      }
    }
  // (2) Decrease in m at every ω: E[F(m_{j+1})] ≤ F·E[F(m_j)] (F = 1: the claim), checked with
  // the certified lower bound at m_j: d_i = F·(value − gap)(m_j) − value(m_{j+1}), paired by
  // replicate (the same task), Bonferroni over the K(J − 1) comparisons.
  const std::size_t checks = K * (J - 1);
  const double confidence = 1 - 0.05 / static_cast<double>(checks);
  // Student t for the n pairs (replicates) of each paired difference.
  const double zq = t_multiplier(normal_quantile(confidence), samples(0, 0, 0).size());
  int right = 0, wrong = 0;
  double weakest = INFINITY;
  scenario_result r;
  std::string ratio_text;
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t j = 0; j + 1 < J; ++j) {
      std::vector<double> lower(replicates);
      for (std::size_t i = 0; i < replicates; ++i)
        lower[i] = samples(j, k, 0)[i] - samples(j, k, 1)[i];
      const auto [mu, se] = paired_mean_se(lower, samples(j + 1, k, 0), 1 / F);  // (A − B/F)
      // d = F·A − B = F·(A − B/F): the sign and the interval scale by F > 0.
      const double d = F * mu, half = F * zq * se;
      const bool ok = d - half > 0, bad = d + half < 0;
      right += ok ? 1 : 0;
      wrong += bad ? 1 : 0;
      const double score = (d - half) / std::max(1e-300, std::abs(d) + half);
      if (score < weakest) {
        weakest = score;
        r.estimate = d;
        r.estimate_lo = d - half;
        r.estimate_hi = d + half;
      }
    }
  r.id = "swx23-fig1-ntrf";
  r.title = "SWX+23 Fig 1: the NTRF approximation term of Thm 13 falls with R and with m";
  r.source = "SWX+23, Thm 13 eq. (7), Def 8, Sec 6.1 Fig 1";
  r.claim =
      "trend: min over the per-layer balls B(W0_l, omega), omega = R/sqrt(m), of the mean logistic "
      "loss of the NTK linearisation f(W0, x) + <grad f(W0, x), W - W0> on the training set falls "
      "as omega grows (exact for the minima: nested sets; checked as a certificate) and as the "
      "width m grows at every omega (paired by replicate, " +
      sig(confidence * 100, 4) + "% each, Bonferroni over " + std::to_string(checks) +
      "), every minimum certified by a Frank-Wolfe duality gap <= 0.1% of the value";
  r.parameters = {
      {"n_train", n},
      {"d", kDim},
      {"L", kDepth},
      {"widths_m", widths},
      {"omegas_R_over_sqrt_m", omegas},
      {"teacher", "random two-layer ReLU, K = 4, label noise 0.05; fresh per replicate"},
      {"solver", "FISTA with restarts in the span of the layer gradients, step 4n/lambda_max(K)"},
      {"relative_gap_tolerance", rel_tol},
      {"max_iterations", max_iterations},
      {"replicates", replicates},
      {"tier", to_string(c.tier)}};
  if (nesting_contradictions > 0) {
    r.verdict = verdict::violated;
    r.verdict_reason = std::to_string(nesting_contradictions) +
                       " certified values contradict the nesting of the balls (a solver or "
                       "kernel error: impossible for exact minima)";
  } else if (uncertified > 0) {
    r.verdict = verdict::inconclusive;
    r.verdict_reason = std::to_string(uncertified) +
                       " solves did not reach the duality-gap tolerance: the minima are not "
                       "certified";
  } else {
    r.verdict = wrong > 0                           ? verdict::violated
                : right == static_cast<int>(checks) ? verdict::holds
                                                    : verdict::inconclusive;
    r.verdict_reason =
        wrong > 0 ? std::to_string(wrong) + " of " + std::to_string(checks) +
                        " width comparisons are significantly against the claim"
        : right == static_cast<int>(checks)
            ? "at every omega each wider network has a significantly smaller certified minimum"
            : "some width comparison is not resolved at this sample size";
  }
  r.quantity =
      "paired F*(certified lower bound at m_j) - value at m_{j+1} at the weakest (omega, j)";
  r.bound = 0;
  r.confidence = confidence;
  r.tightness = std::nan("");
  r.replicates = replicates;
  for (std::size_t j = 0; j < J; ++j) {
    std::string levels;
    for (std::size_t k = 0; k < K; ++k)
      levels += " " + sig(res.observables[index(j, k)].stats.mean(), 3);
    r.notes.push_back("m = " + std::to_string(widths[j]) +
                      ": mean NTRF term by omega = 0.1 ... 1.9:" + levels);
  }
  for (std::size_t k : {std::size_t{0}, K / 2, K - 1}) {
    std::vector<std::vector<double>> cols;
    for (std::size_t j = 0; j < J; ++j) cols.push_back(samples(j, k, 0));
    std::vector<double> xd;
    for (auto m : widths) xd.push_back(static_cast<double>(m));
    const slope_fit fit = log_log_slope(xd, cols);
    const double ratio =
        res.observables[index(J - 1, k)].stats.mean() / res.observables[index(0, k)].stats.mean();
    r.notes.push_back("omega = " + sig(omegas[k], 2) +
                      ": value(m = " + std::to_string(widths.back()) +
                      ")/value(m = " + std::to_string(widths.front()) + ") = " + sig(ratio, 3) +
                      ", fitted log-log slope in m " + sig(fit.slope, 3) + " +- " +
                      sig(t_multiplier(1.96, cols.front().size()) * fit.se, 2));
    r.parameters["slope_in_m_omega_" + sig(omegas[k], 2)] = fit.slope;
  }
  r.notes.push_back("certificates: largest duality gap " + sig(worst_gap, 3) + " (relative " +
                    sig(worst_relative_gap, 3) + "), at most " + std::to_string(most_iterations) +
                    " iterations, " + std::to_string(uncertified) + " uncertified solves, " +
                    std::to_string(nesting_contradictions) +
                    " contradictions of the omega-nesting; the Gram factorisation agrees with "
                    "mlp_network::output_gradient to " +
                    sig(kernel_check, 2));
  r.notes.push_back(
      "decrease in omega is guaranteed for the exact minima (the balls are nested at fixed W0); "
      "what is checked is that the solver attains them (gap) and that no certified value "
      "contradicts the nesting");
  r.notes.push_back(
      "omega = R/sqrt(m) is held fixed across widths as in Fig 1, so R = omega sqrt(m) grows: "
      "the reachable outputs <grad f, Delta> scale like omega ||grad f|| ~ omega sqrt(mL), and "
      "the training loss can be driven to 0 (the NTK features separate the n points); at fixed "
      "R instead the class tends to an RKHS ball and the term to a positive limit");
  r.notes.push_back(
      "self-check: --bound-factor F claims E value(m_{j+1}) <= F E value(m_j); at F = 0.5 "
      "(halving per width step) the small-omega comparisons refute it");
  r.figure.title = "NTRF approximation term (n = " + std::to_string(n) + ", L = 3, d = 8)";
  r.figure.x_label = "ω = R/√m";
  r.figure.y_label = "min mean logistic loss over B(W_0, ω)";
  r.figure.log_y = true;
  const double z95 = normal_quantile(0.95);
  for (std::size_t j = 0; j < J; ++j) {
    series s;
    s.name = "m = " + std::to_string(widths[j]);
    s.style = "points";
    s.colour = static_cast<int>(j);
    for (std::size_t k = 0; k < K; ++k) {
      const auto& st = res.observables[index(j, k)].stats;
      s.x.push_back(omegas[k]);
      s.y.push_back(st.mean());
      const double t95 = t_multiplier(z95, st.count());  // Student t for the replicates
      s.y_lo.push_back(std::max(1e-300, st.mean() - t95 * st.standard_error()));
      s.y_hi.push_back(st.mean() + t95 * st.standard_error());
    }
    r.figure.data.push_back(std::move(s));
  }
  return r;
}

// ---- swx23-fig5-sample-size
// -----------------------------------------------------------------------

// Fig 5's schedule: m = n^{1/4}/2 (dpkit's reading of the garbled
// "m=(n^14/2)"), rounded up and floored at kMinWidth (m = 2 or 3 hidden units per layer is a
// degenerate network; with the floor the schedule moves only for n > 4⁴·2⁴ = 4096), and
// T = 50 n^{2/5} rounded to the nearest integer.
constexpr std::size_t kMinWidth = 4;
std::size_t fig5_width(std::size_t n) {
  const auto m = static_cast<std::size_t>(std::ceil(std::pow(static_cast<double>(n), 0.25) / 2));
  return std::max(kMinWidth, m);
}
long fig5_steps(std::size_t n) {
  return std::lround(50 * std::pow(static_cast<double>(n), 0.4));
}

scenario_result fig5_sample_size(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::vector<std::size_t> sizes =
      full ? std::vector<std::size_t>{500, 1000, 2000, 4000, 8000, 16000}
           : std::vector<std::size_t>{250, 500, 1000, 2000};
  const std::size_t n_test = full ? 5000 : 2000;
  const std::uint64_t replicates = replicates_for(c, 24, 40);
  const double R = 4, C = 1, F = c.bound_factor;
  const std::size_t J = sizes.size();
  struct config {
    std::size_t n = 0, m = 0;
    long T = 0;
    double delta = 0, z = 0, sigma = 0, eta = 0, privacy_term = 0;
  };
  std::vector<config> configs;
  for (std::size_t n : sizes) {
    config g;
    g.n = n;
    g.m = fig5_width(n);
    g.T = fig5_steps(n);
    g.delta = 1 / std::pow(static_cast<double>(n), 2);  // δ = 1/n² (Fig 5)
    g.z = calibrated_z(kRate, g.T, kEpsilon, g.delta);
    g.sigma = sim::alg10_noise_std(g.z, C, kRate, n);
    risk::mlp_training tr;
    tr.examples = static_cast<long long>(n);
    tr.input_dimension = kDim;
    tr.width = static_cast<long long>(g.m);
    tr.depth = kDepth;
    tr.steps = g.T;
    tr.radius = R;
    tr.clip = C;
    tr.epsilon = kEpsilon;
    tr.delta = g.delta;
    tr.sampling_rate = kRate;
    g.eta = risk::mlp_step_size(tr);  // Thm 13: η = √L R/(C√(mT))
    g.privacy_term = risk::mlp_privacy_term(tr);
    configs.push_back(g);
  }
  // Observables per n: DP test loss, non-private test loss, DP test error, non-private error.
  std::vector<sim::observable> obs;
  for (std::size_t j = 0; j < J; ++j) {
    obs.push_back({"dp loss " + std::to_string(j), true});
    obs.push_back({"sgd loss " + std::to_string(j), true});
    obs.push_back({"dp error " + std::to_string(j), false});
    obs.push_back({"sgd error " + std::to_string(j), false});
  }
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-fig5-sample-size");
  mc.chunk = 1;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        // One teacher per replicate; the test set first, then a pool whose prefixes are the
        // training sets (nested across n: the comparisons across n are paired by replicate).
        const sim::dataset all = teacher_data(c.seed, rep, n_test + sizes.back());
        const auto [test, pool] = sim::train_test_split(all, n_test);
        for (std::size_t j = 0; j < J; ++j) {
          const config& g = configs[j];
          sim::dataset train;
          train.features = pool.features.topRows(static_cast<Eigen::Index>(g.n));
          train.labels = pool.labels.head(static_cast<Eigen::Index>(g.n));
          const auto data = std::make_shared<const sim::dataset>(std::move(train));
          const sim::mlp_architecture a{kDim, g.m, kDepth};
          const sim::mlp_model f(data, a);
          random_stream init(c.seed, rep, 20 + j);
          const sim::vector w0 = sim::mlp_initial_weights(a, init);
          sim::alg10_options o;
          o.sampling_rate = kRate;
          o.steps = g.T;
          o.learning_rate = g.eta;
          o.clip = C;
          o.noise = g.sigma;
          o.constraint = sim::mlp_constraint::around_init;
          o.radius = R;
          const sim::random_key key{c.seed, rep, 100 + 10 * j};
          const sim::alg10_result dp = sim::run_alg10(f, o, w0, key, &test);
          // The non-private run: the same W0, the same Poisson batches (stream base + 2), the
          // same η and projection; no clipping (C = 1e300 is never reached) and no noise.
          o.clip = 1e300;
          o.noise = 0;
          const sim::alg10_result sgd = sim::run_alg10(f, o, w0, key, &test);
          out[4 * j] = dp.test_average.loss;
          out[4 * j + 1] = sgd.test_average.loss;
          out[4 * j + 2] = dp.test_average.error;
          out[4 * j + 3] = sgd.test_average.error;
        }
      },
      mc);
  std::vector<std::vector<double>> gap(J), rel(J);
  for (std::size_t j = 0; j < J; ++j) {
    const auto& d = res.observables[4 * j].samples;
    const auto& s = res.observables[4 * j + 1].samples;
    for (std::size_t i = 0; i < replicates; ++i) {
      gap[j].push_back(d[i] - s[i]);
      rel[j].push_back((d[i] - s[i]) / s[i]);
    }
  }
  // Checks: end to end, gap(n_max) ≤ F·gap(n_min) for the gap and the relative gap (F = 1: the
  // claim "falls"); and for each consecutive pair, gap(n_{j+1}) ≤ gap(n_j) (never significantly
  // larger). Bonferroni over all 2 + 2(J − 1).
  const std::size_t checks = 2 + 2 * (J - 1);
  const double confidence = 1 - 0.05 / static_cast<double>(checks);
  // Student t for the n pairs (replicates) of each paired difference.
  const double zq = t_multiplier(normal_quantile(confidence), gap.front().size());
  scenario_result r;
  int ends_right = 0, wrong = 0;
  std::string end_text;
  const char* names[2] = {"gap", "relative gap"};
  for (int which = 0; which < 2; ++which) {
    const auto& v = which == 0 ? gap : rel;
    const auto [mu, se] =
        paired_mean_se(v.front(), v.back(), 1 / F);  // A − B/F; F·(A − B/F) = F·A − B
    const double d = F * mu, half = F * zq * se;
    if (d - half > 0) ++ends_right;
    if (d + half < 0) ++wrong;
    end_text += std::string(which == 0 ? "" : "; ") + names[which] + ": " + (F == 1 ? "" : "F*") +
                "value(n = " + std::to_string(sizes.front()) +
                ") - value(n = " + std::to_string(sizes.back()) + ") = " + interval_text(d, half);
    if (which == 0) {
      r.estimate = d;
      r.estimate_lo = d - half;
      r.estimate_hi = d + half;
    }
  }
  int consecutive_against = 0;
  std::string steps_text;
  for (int which = 0; which < 2; ++which) {
    const auto& v = which == 0 ? gap : rel;
    steps_text += std::string(which == 0 ? "" : "; ") + names[which] + " differences by step:";
    for (std::size_t j = 0; j + 1 < J; ++j) {
      const auto [mu, se] = paired_mean_se(v[j], v[j + 1], 1);
      if (mu + zq * se < 0) ++consecutive_against;
      steps_text += " " + interval_text(mu, zq * se);
    }
  }
  wrong += consecutive_against;
  r.id = "swx23-fig5-sample-size";
  r.title =
      "SWX+23 Fig 5: DP-SGD approaches non-private SGD as n grows (m = n^{1/4}/2, T = 50 "
      "n^{2/5})";
  r.source = "SWX+23, Alg 10, Thm 13 eq. (7), Sec 6.1 Fig 5";
  r.claim =
      "qualitative: with Fig 5's schedule every term of eq. (7) falls in n, so the test loss of "
      "Algorithm 10 (eps = 1, delta = 1/n^2) approaches that of the non-private run (same W0, "
      "batches, eta and projection): the gap DP - SGD and the relative gap are smaller at the "
      "largest n than at the smallest, and no step in n raises them significantly (paired by "
      "replicate, " +
      sig(confidence * 100, 4) + "% each, Bonferroni over " + std::to_string(checks) + ")";
  std::vector<std::size_t> ms;
  std::vector<long> Ts;
  std::vector<double> zs, sigmas, etas;
  for (const auto& g : configs) {
    ms.push_back(g.m);
    Ts.push_back(g.T);
    zs.push_back(g.z);
    sigmas.push_back(g.sigma);
    etas.push_back(g.eta);
  }
  r.parameters = {{"sample_sizes_n", sizes},
                  {"n_test", n_test},
                  {"widths_m", ms},
                  {"width_schedule", "max(4, ceil(n^{1/4}/2))"},
                  {"steps_T", Ts},
                  {"steps_schedule", "round(50 n^{2/5})"},
                  {"d", kDim},
                  {"L", kDepth},
                  {"sampling_rate_q", kRate},
                  {"epsilon", kEpsilon},
                  {"delta", "1/n^2"},
                  {"noise_multipliers_z", zs},
                  {"noise_std_sigma", sigmas},
                  {"clip_C", C},
                  {"radius_R", R},
                  {"eta", etas},
                  {"projection", "per-layer B(W0_l, R/sqrt(m))"},
                  {"replicates", replicates},
                  {"tier", to_string(c.tier)}};
  r.verdict = wrong > 0         ? verdict::violated
              : ends_right == 2 ? verdict::holds
                                : verdict::inconclusive;
  r.verdict_reason =
      wrong > 0 ? std::to_string(wrong) + " comparisons are significantly against the claim"
      : ends_right == 2
          ? "both the gap and the relative gap are significantly smaller at the largest n, and "
            "no step in n raises them significantly"
          : "the end-to-end decrease is not resolved at this sample size";
  r.quantity = "paired gap(n_min) - gap(n_max) of the test loss (DP - non-private)";
  r.bound = 0;
  r.confidence = confidence;
  r.tightness = std::nan("");
  r.replicates = replicates;
  std::string dp_text, sgd_text, gap_text, rel_text, err_text;
  for (std::size_t j = 0; j < J; ++j) {
    dp_text += " " + sig(res.observables[4 * j].stats.mean(), 4);
    sgd_text += " " + sig(res.observables[4 * j + 1].stats.mean(), 4);
    gap_text += " " + sig(mean_of(gap[j]), 3);
    rel_text += " " + sig(mean_of(rel[j]), 3);
    err_text += " " + sig(res.observables[4 * j + 2].stats.mean(), 3) + "/" +
                sig(res.observables[4 * j + 3].stats.mean(), 3);
  }
  r.notes.push_back("test loss by n, DP:" + dp_text + "; non-private:" + sgd_text);
  r.notes.push_back("gap by n:" + gap_text + "; relative gap:" + rel_text +
                    "; test error DP/non-private:" + err_text);
  r.notes.push_back(end_text);
  r.notes.push_back(steps_text);
  {
    std::vector<double> xs;
    for (auto n : sizes) xs.push_back(static_cast<double>(n));
    const slope_fit fit = log_log_slope(xs, gap);
    const double span = std::log(xs.back() / xs.front());
    const double theory =
        std::log(configs.back().privacy_term / configs.front().privacy_term) / span;
    r.notes.push_back(
        "fitted log-log slope of the mean gap in n: " +
        (fit.positive
             ? sig(fit.slope, 3) + " +- " + sig(t_multiplier(1.96, gap.front().size()) * fit.se, 2)
             : std::string("n/a (a mean gap is <= 0)")) +
        "; eq. (7)'s privacy term m^2 max(L, d/m) sqrt(T)/(n^2 eps^2) has average slope " +
        sig(theory, 3) +
        " over this schedule (hidden constants; with the width floor m is "
        "constant where n^{1/4}/2 < 4)");
  }
  std::string mt;
  for (std::size_t j = 0; j < J; ++j)
    mt += " n = " + std::to_string(sizes[j]) + ": m = " + std::to_string(configs[j].m) +
          ", T = " + std::to_string(configs[j].T) + ", z = " + sig(configs[j].z, 3) +
          ", sigma = " + sig(configs[j].sigma, 3) + ", eta = " + sig(configs[j].eta, 3) + ";";
  r.notes.push_back("schedule:" + mt);
  r.notes.push_back(
      "C = 1 rather than Fig 5's C = 20: the per-example gradient norm of this network at init is "
      "about 0.4 sqrt(mL) = 1.4 (m = 4; swx23-lemma20-22-init), so C = 20 would clip nothing and "
      "only multiply the noise "
      "(sigma = zC/(qn)); C = 1 <= min{S L sqrt(m), R} is inside Thm 13's range, where eta ~ 1/C "
      "makes the result nearly C-free (swx23-alg10-clip-flat). The non-private run uses the same "
      "eta");
  r.notes.push_back(
      "self-check: --bound-factor F claims gap(n_max) <= F gap(n_min) (and the same for the "
      "relative gap); the self-check factor 0.1 claims a ten-fold decrease over the grid, more "
      "than the measured one, and is refuted");
  r.figure.title = "Algorithm 10 with m = n^{1/4}/2, T = 50 n^{2/5}, ε = 1: test loss against n";
  r.figure.x_label = "training set size n";
  r.figure.y_label = "test loss of the averaged iterate";
  r.figure.log_x = true;
  const double z95 = normal_quantile(0.95);
  for (int which = 0; which < 2; ++which) {
    series s;
    s.name = which == 0 ? "DP-SGD (Alg 10, ε = 1)" : "non-private (same batches, no clip/noise)";
    s.style = "points";
    s.colour = which;
    for (std::size_t j = 0; j < J; ++j) {
      const auto& st = res.observables[4 * j + static_cast<std::size_t>(which)].stats;
      const double t95 = t_multiplier(z95, st.count());  // Student t for the replicates
      s.x.push_back(static_cast<double>(sizes[j]));
      s.y.push_back(st.mean());
      s.y_lo.push_back(st.mean() - t95 * st.standard_error());
      s.y_hi.push_back(st.mean() + t95 * st.standard_error());
    }
    r.figure.data.push_back(std::move(s));
  }
  return r;
}

// ---- swx23-lemma20-22-init
// -------------------------------------------------------------------------

scenario_result lemma20_22_init(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::vector<std::size_t> widths =
      full ? std::vector<std::size_t>{16, 32, 64, 128, 256, 512, 1024}
           : std::vector<std::size_t>{16, 32, 64, 128, 256};
  const std::vector<std::size_t> depths = {2, 3, 4, 6};
  const std::size_t depth_width = 64, points = 16, deep = 6;
  const std::uint64_t replicates = replicates_for(c, 40, 200);
  const double F = c.bound_factor, slack = 0.1, xi = 0.1;
  const std::vector<std::size_t> counts = {100, 1000, 10000};
  const std::size_t max_width = full ? 64 : 32;
  const std::uint64_t max_replicates = replicates_for(c, 200, 1000);
  const std::size_t J = widths.size(), D = depths.size(), N = counts.size();

  // Parts (a), (b): per width, the mean over points and hidden layers l = 1, …, L − 1 of
  // (‖h_l‖/‖x‖ − 1)² (Lemma 20; ‖x‖ = 1), the mean ‖∇_W ℓ‖ and the mean ‖∇_W f‖ (Lemma 22);
  // per depth (m = 64), the mean ‖∇_W f‖; at L = 6, the mean squared deviation by layer.
  std::vector<sim::observable> obs;
  for (std::size_t j = 0; j < J; ++j) {
    obs.push_back({"hidden msd " + std::to_string(j), true});
    obs.push_back({"grad loss " + std::to_string(j), true});
    obs.push_back({"grad f " + std::to_string(j), true});
  }
  for (std::size_t k = 0; k < D; ++k) obs.push_back({"depth grad f " + std::to_string(k), true});
  for (std::size_t l = 1; l < deep; ++l) obs.push_back({"deep msd " + std::to_string(l), false});
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-lemma20-22-init");
  mc.chunk = 4;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        const auto data = std::make_shared<const sim::dataset>(teacher_data(c.seed, rep, points));
        const double P = static_cast<double>(points);
        auto measure = [&](std::size_t m, std::size_t L, std::uint64_t stream, double& msd,
                           double& grad_loss, double& grad_f, std::vector<double>* by_layer) {
          const sim::mlp_architecture a{kDim, m, L};
          const sim::mlp_model model(data, a);
          random_stream init(c.seed, rep, stream);
          const sim::vector w0 = sim::mlp_initial_weights(a, init);
          sim::vector norms(static_cast<Eigen::Index>(L)), g(w0.size());
          msd = grad_loss = grad_f = 0;
          for (std::size_t i = 0; i < points; ++i) {
            const sim::vector x = data->features.row(static_cast<Eigen::Index>(i)).transpose();
            model.network().hidden_norms(w0, x, norms);
            for (std::size_t l = 1; l < L; ++l) {
              const double dev = std::pow(norms(static_cast<Eigen::Index>(l)) / norms(0) - 1, 2);
              msd += dev / (P * static_cast<double>(L - 1));
              if (by_layer) (*by_layer)[l - 1] += dev / P;
            }
            model.gradient(i, w0, g);
            grad_loss += g.norm() / P;
            model.network().output_gradient(w0, x, g);
            grad_f += g.norm() / P;
          }
        };
        double msd = 0, gl = 0, gf = 0;
        for (std::size_t j = 0; j < J; ++j) {
          measure(widths[j], kDepth, 20 + j, msd, gl, gf, nullptr);
          out[3 * j] = msd;
          out[3 * j + 1] = gl;
          out[3 * j + 2] = gf;
        }
        std::vector<double> by_layer(deep - 1, 0.0);
        for (std::size_t k = 0; k < D; ++k) {
          measure(depth_width, depths[k], 30 + k, msd, gl, gf,
                  depths[k] == deep ? &by_layer : nullptr);
          out[3 * J + k] = gf;
        }
        for (std::size_t l = 1; l < deep; ++l) out[3 * J + D + l - 1] = by_layer[l - 1];
      },
      mc);

  // Part (c): max_i |f(W0, x_i)| over n ∈ {10², 10³, 10⁴} unit inputs (prefixes of one draw).
  // Given W_1, …, W_{L−1}, f(W0, x_i) = √m W_L h_{L−1,i} ~ N(0, ‖h_{L−1,i}‖²) exactly (W_L has
  // N(0, 1/m) entries), so by the union bound and P(|Z| > t) ≤ e^{−t²/2},
  //   P(max_i |f_i|/‖h_{L−1,i}‖ > √(2 log(n/ξ))) ≤ ξ:
  // Lemma 26's O(√log(n/ξ)) (Cao–Gu Lemma 4.4) with its constant made explicit.
  std::vector<sim::observable> obs_c;
  for (std::size_t k = 0; k < N; ++k) {
    obs_c.push_back({"event " + std::to_string(k), false});
    obs_c.push_back({"ratio " + std::to_string(k), true});
  }
  std::vector<double> thresholds(N);
  for (std::size_t k = 0; k < N; ++k)
    thresholds[k] = F * std::sqrt(2 * std::log(static_cast<double>(counts[k]) / xi));
  sim::monte_carlo_options mc_c = mc_options(c, max_replicates, "swx23-lemma20-22-init (max)");
  mc_c.chunk = 8;
  const sim::monte_carlo_result res_c = sim::run_monte_carlo(
      obs_c,
      [&](std::uint64_t rep, std::span<double> out) {
        random_stream xs(c.seed, rep, 40);
        Eigen::MatrixXd x(static_cast<Eigen::Index>(counts.back()),
                          static_cast<Eigen::Index>(kDim));
        for (Eigen::Index i = 0; i < x.rows(); ++i) {
          for (Eigen::Index k = 0; k < x.cols(); ++k) x(i, k) = xs.normal();
          x.row(i) /= x.row(i).norm();
        }
        const sim::mlp_architecture a{kDim, max_width, kDepth};
        random_stream init(c.seed, rep, 41);
        const sim::vector w0 = sim::mlp_initial_weights(a, init);
        const batch_pass b = forward_backward(a, w0, x, false);
        const Eigen::VectorXd h = b.hidden[kDepth - 1].colwise().norm().transpose();
        double max_f = 0, max_normalised = 0;
        std::size_t i = 0;
        for (std::size_t k = 0; k < N; ++k) {
          for (; i < counts[k]; ++i) {
            const auto ii = static_cast<Eigen::Index>(i);
            max_f = std::max(max_f, std::abs(b.f(ii)));
            if (h(ii) > 0) max_normalised = std::max(max_normalised, std::abs(b.f(ii)) / h(ii));
          }
          out[2 * k] = max_normalised <= thresholds[k] ? 1.0 : 0.0;
          out[2 * k + 1] = max_f / std::sqrt(2 * std::log(static_cast<double>(counts[k])));
        }
      },
      mc_c);

  const std::size_t checks = 3 + N;
  const double confidence = 1 - 0.05 / static_cast<double>(checks);
  // Student t at each check's replicate count: zq for the slopes of (a), (b) (the replicates of
  // the first run), zc for the paired ratio check (c′) (the initialisations of the second run).
  const double zq =
      t_multiplier(normal_quantile(confidence), res.observables.front().samples.size());
  const double zc = t_multiplier(normal_quantile(confidence), res_c.observables[1].samples.size());
  std::vector<double> xw;
  for (auto m : widths) xw.push_back(static_cast<double>(m));
  const double span = std::log(xw.back() / xw.front());
  scenario_result r;
  int right = 0, wrong = 0;
  // (a) the standard deviation sqrt(E(‖h_l‖ − 1)²) falls like m^{−1/2}: the slope of the mean
  // squared deviation halves. Claim: slope ≤ −1/2 + slack (+ log F/span: at F the claim is
  // sd(m_max)/sd(m_min) ≤ F (m_max/m_min)^{−1/2 + slack}).
  std::vector<std::vector<double>> cols_a, cols_b, cols_f;
  for (std::size_t j = 0; j < J; ++j) {
    cols_a.push_back(res.observables[3 * j].samples);
    cols_b.push_back(res.observables[3 * j + 1].samples);
    cols_f.push_back(res.observables[3 * j + 2].samples);
  }
  const slope_fit fa = log_log_slope(xw, cols_a);
  const double slope_a = fa.slope / 2, se_a = fa.se / 2;
  const double claimed_a = -0.5 + slack + std::log(F) / span;
  const bool a_ok = slope_a + zq * se_a <= claimed_a, a_bad = slope_a - zq * se_a > claimed_a;
  right += a_ok ? 1 : 0;
  wrong += a_bad ? 1 : 0;
  // (b) the mean per-example gradient norm grows like √m: slope within ½ ± slack (+ log F/span).
  const slope_fit fb = log_log_slope(xw, cols_b);
  const slope_fit ff = log_log_slope(xw, cols_f);
  const double centre_b = 0.5 + std::log(F) / span;
  const double lo_b = fb.slope - zq * fb.se, hi_b = fb.slope + zq * fb.se;
  const bool b_ok = lo_b >= centre_b - slack && hi_b <= centre_b + slack;
  const bool b_bad = lo_b > centre_b + slack || hi_b < centre_b - slack;
  right += b_ok ? 1 : 0;
  wrong += b_bad ? 1 : 0;
  // (c) Clopper–Pearson per n for P(max_i |f_i|/‖h_i‖ ≤ F·√(2 log(n/ξ))) ≥ 1 − ξ.
  double weakest_c = INFINITY;
  std::string c_text;
  for (std::size_t k = 0; k < N; ++k) {
    const auto successes = static_cast<std::size_t>(
        std::llround(res_c.observables[2 * k].stats.mean() * static_cast<double>(max_replicates)));
    const auto ci = sim::clopper_pearson(successes, max_replicates, confidence);
    right += ci.lower >= 1 - xi ? 1 : 0;
    wrong += ci.upper < 1 - xi ? 1 : 0;
    weakest_c = std::min(weakest_c, ci.lower);
    c_text += " n = " + std::to_string(counts[k]) + ": P in [" + sig(ci.lower, 4) + ", " +
              sig(ci.upper, 4) + "] (threshold " + sig(thresholds[k], 3) + ");";
  }
  // (c′) the ratio max_i |f_i|/√(2 log n) does not grow: ratio(n_max) ≤ F·ratio(n_min), paired
  // by initialisation (the points are prefixes of one draw).
  const auto [dr, sr] = paired_mean_se(
      res_c.observables[1].samples, res_c.observables[2 * (N - 1) + 1].samples, 1 / F);  // A − B/F
  const double d_growth = F * dr, half_growth = F * zc * sr;
  right += d_growth - half_growth > 0 ? 1 : 0;
  wrong += d_growth + half_growth < 0 ? 1 : 0;
  c_text += " ratio check: " + std::string(F == 1 ? "" : "F*") +
            "ratio(1e2) - ratio(1e4) = " + interval_text(d_growth, half_growth) +
            (d_growth - half_growth > 0   ? " -> does not grow"
             : d_growth + half_growth < 0 ? " -> AGAINST the claim"
                                          : " -> not resolved");
  r.id = "swx23-lemma20-22-init";
  r.title =
      "SWX+23 Lemmas 20, 22, 26 at He initialisation: hidden norms, gradient norms, outputs";
  r.source =
      "SWX+23, App C Lemmas 20 (Allen-Zhu et al. 7.1), 22, 26 (Cao-Gu 4.4), Alg 10 step 1";
  r.claim =
      "scaling: at He initialisation (a) the fluctuation of ||h_l||/||x|| - 1 is O(sqrt(L/m)): "
      "fitted slope of its sd in m <= -1/2 + " +
      sig(slack) +
      "; (b) the per-example gradient norm is Theta(sqrt(m)): fitted slope in m within 1/2 +- " +
      sig(slack) +
      "; (c) max_i |f(W0, x_i)|/||h_{L-1,i}|| <= sqrt(2 log(n/xi)) with probability >= 1 - xi "
      "(Lemma 26 with its constant made explicit, xi = " +
      sig(xi) +
      ", Clopper-Pearson per n) and max_i |f(W0, x_i)|/sqrt(2 log n) does not grow from n = 1e2 "
      "to 1e4 (paired); " +
      sig(confidence * 100, 4) + "% each, Bonferroni over " + std::to_string(checks);
  r.parameters = {{"d", kDim},
                  {"L", kDepth},
                  {"widths_m", widths},
                  {"depths_L_at_m_64", depths},
                  {"points_per_replicate", points},
                  {"replicates", replicates},
                  {"max_output_counts_n", counts},
                  {"max_output_width", max_width},
                  {"max_output_replicates", max_replicates},
                  {"xi", xi},
                  {"slack", slack},
                  {"tier", to_string(c.tier)}};
  r.verdict = wrong > 0                           ? verdict::violated
              : right == static_cast<int>(checks) ? verdict::holds
                                                  : verdict::inconclusive;
  r.verdict_reason = wrong > 0 ? std::to_string(wrong) + " of " + std::to_string(checks) +
                                     " checks are significantly against the claims"
                     : right == static_cast<int>(checks)
                         ? "every exponent is inside its claimed range and the "
                           "explicit Lemma 26 event has probability >= 1 - xi"
                         : "some check is not resolved at this sample size";
  r.quantity = "fitted slope of the hidden-norm sd in m (bound: the claimed exponent)";
  r.bound = claimed_a;
  r.estimate = slope_a;
  r.estimate_lo = slope_a - zq * se_a;
  r.estimate_hi = slope_a + zq * se_a;
  r.confidence = confidence;
  r.tightness = std::nan("");
  r.replicates = replicates;
  std::string sd_text, gl_text, gf_text, const_text;
  for (std::size_t j = 0; j < J; ++j) {
    const double m = xw[j];
    sd_text += " " + sig(std::sqrt(res.observables[3 * j].stats.mean()), 3);
    gl_text += " " + sig(res.observables[3 * j + 1].stats.mean(), 3);
    gf_text += " " + sig(res.observables[3 * j + 2].stats.mean() /
                             std::sqrt(m * static_cast<double>(kDepth)),
                         3);
    const_text += " " + sig(res.observables[3 * j + 1].stats.mean() /
                                (static_cast<double>(kDepth) * std::sqrt(m)),
                            3);
  }
  const double typical = res.observables[3 * (J - 1) + 1].stats.mean() /
                         std::sqrt(xw.back() * static_cast<double>(kDepth));
  r.notes.push_back("(a) sd of ||h_l||/||x|| - 1 (l = 1, 2) by m:" + sd_text + "; fitted slope " +
                    sig(slope_a, 3) + " [" + sig(slope_a - zq * se_a, 3) + ", " +
                    sig(slope_a + zq * se_a, 3) + "] vs claimed <= " + sig(claimed_a, 3) +
                    (a_ok    ? " -> holds"
                     : a_bad ? " -> VIOLATED"
                             : " -> not resolved"));
  r.notes.push_back("(b) mean ||grad_W loss|| by m:" + gl_text + "; fitted slope " +
                    sig(fb.slope, 3) + " [" + sig(lo_b, 3) + ", " + sig(hi_b, 3) +
                    "] vs claimed band [" + sig(centre_b - slack, 3) + ", " +
                    sig(centre_b + slack, 3) + "]" +
                    (b_ok    ? " -> holds"
                     : b_bad ? " -> VIOLATED"
                             : " -> not resolved") +
                    "; ||grad_W f|| has slope " + sig(ff.slope, 3) + " +- " + sig(zq * ff.se, 2));
  r.notes.push_back(
      "(b) measured constants: ||grad_W f||/sqrt(mL) by m:" + gf_text +
      "; ||grad_W loss||/(S L sqrt(m)) by m:" + const_text +
      " -> the typical per-example norm is " + sig(typical, 2) +
      " sqrt(mL) at the largest m, so clipping at C is active for most examples iff C is below "
      "about " +
      sig(typical / std::sqrt(static_cast<double>(kDepth)), 2) +
      " S L sqrt(m) (Thm 13's C <= S L sqrt(m) puts C above the typical norm by sqrt(L)/" +
      sig(typical, 2) + ")");
  {
    std::vector<double> xd;
    std::vector<std::vector<double>> cols_d;
    std::string depth_text;
    for (std::size_t k = 0; k < D; ++k) {
      xd.push_back(static_cast<double>(depths[k]));
      cols_d.push_back(res.observables[3 * J + k].samples);
      depth_text += " " + sig(std::pow(res.observables[3 * J + k].stats.mean(), 2) /
                                  static_cast<double>(depth_width),
                              3);
    }
    const slope_fit fd = log_log_slope(xd, cols_d);
    std::string layer_text;
    for (std::size_t l = 1; l < deep; ++l)
      layer_text += " " + sig(std::sqrt(res.observables[3 * J + D + l - 1].stats.mean()), 3);
    r.notes.push_back(
        "growth in L (m = 64, reported): (mean ||grad_W f||)^2/m at L = 2, 3, 4, 6:" + depth_text +
        " (close to (L + 1)/2: every layer adds about m/2); fitted "
        "log-log slope of ||grad_W f|| in L " +
        sig(fd.slope, 3) + " +- " + sig(t_multiplier(1.96, cols_d.front().size()) * fd.se, 2) +
        " (sqrt(L) gives 1/2; sqrt(L + 1) over L = 2..6 "
        "gives about 0.39)");
    r.notes.push_back(
        "growth of the fluctuation with depth (L = 6, m = 64, reported): sd of "
        "||h_l|| - 1 at l = 1 ... 5:" +
        layer_text + " (O(sqrt(l/m)) predicts growth like sqrt(l))");
  }
  std::string ratio_text, bound_ratio_text;
  for (std::size_t k = 0; k < N; ++k) {
    const double lg = std::log(static_cast<double>(counts[k]));
    bound_ratio_text += (k == 0 ? "" : ", ") +
                        sig(std::sqrt(std::log(static_cast<double>(counts[k]) / xi) / lg), 3);
    const auto& st = res_c.observables[2 * k + 1].stats;
    ratio_text += " " + sig(st.mean(), 3) + " +- " +
                  sig(t_multiplier(1.96, st.count()) * st.standard_error(), 2);
  }
  r.notes.push_back("(c) m = " + std::to_string(max_width) + ", " + std::to_string(max_replicates) +
                    " initialisations:" + c_text);
  r.notes.push_back(
      "(c) max_i |f(W0, x_i)|/sqrt(2 log n) at n = 1e2, 1e3, 1e4:" + ratio_text +
      "; the explicit bound's ratio sqrt(log(n/xi)/log n) is " + bound_ratio_text +
      " at these n. The ratio FALLS: given W0, f(W0, .) is a Lipschitz function on the sphere "
      "S^{d-1} (d = 8), so max_i |f(W0, x_i)| saturates at sup_x |f(W0, x)| while sqrt(2 log n) "
      "keeps growing (for n independent N(0, 1) values it would instead creep up toward 1 from "
      "below: 0.905, 0.924, 0.936 for E max |Z_i| at these n)");
  r.notes.push_back(
      "self-check: --bound-factor F shifts the claimed exponents by log F/log(m_max/m_min) "
      "((a) sd(m_max)/sd(m_min) <= F (m_max/m_min)^{-1/2 + slack}, (b) the band's centre), "
      "scales the threshold of (c) by F and claims ratio(1e4) <= F ratio(1e2); at F = 0.5 every "
      "part is refuted");
  r.figure.title = "At He initialisation (L = 3, d = 8): fluctuations and gradient norms against m";
  r.figure.x_label = "width m";
  r.figure.y_label = "value";
  r.figure.log_x = true;
  r.figure.log_y = true;
  const double z95 = normal_quantile(0.95);
  for (int which = 0; which < 3; ++which) {
    series s;
    s.name = which == 0   ? "sd of ‖h_l‖/‖x‖ − 1"
             : which == 1 ? "mean ‖∇_W loss‖"
                          : "mean ‖∇_W f‖";
    s.style = "points";
    s.colour = which;
    for (std::size_t j = 0; j < J; ++j) {
      const auto& st = res.observables[3 * j + static_cast<std::size_t>(which)].stats;
      s.x.push_back(xw[j]);
      const double t95 = t_multiplier(z95, st.count());  // Student t for the replicates
      if (which == 0) {
        s.y.push_back(std::sqrt(st.mean()));
        s.y_lo.push_back(std::sqrt(std::max(1e-300, st.mean() - t95 * st.standard_error())));
        s.y_hi.push_back(std::sqrt(st.mean() + t95 * st.standard_error()));
      } else {
        s.y.push_back(st.mean());
        s.y_lo.push_back(st.mean() - t95 * st.standard_error());
        s.y_hi.push_back(st.mean() + t95 * st.standard_error());
      }
    }
    r.figure.data.push_back(std::move(s));
  }
  for (int which = 0; which < 2; ++which) {
    series s;
    s.name = which == 0 ? "m^{-1/2} through the smallest m" : "m^{1/2} through the smallest m";
    s.dash = 2;
    s.colour = which == 0 ? 0 : 1;
    const double y0 =
        which == 0 ? std::sqrt(res.observables[0].stats.mean()) : res.observables[1].stats.mean();
    for (double m : xw) {
      s.x.push_back(m);
      s.y.push_back(y0 * std::pow(m / xw.front(), which == 0 ? -0.5 : 0.5));
    }
    r.figure.data.push_back(std::move(s));
  }
  return r;
}

}  // namespace

void register_mlp_extra_scenarios(std::vector<scenario>& out) {
  out.push_back({"swx23-fig1-ntrf",
                 "SWX+23 Fig 1: the NTRF approximation term of Thm 13 falls with R and with m",
                 fig1_ntrf, 0.5});
  out.push_back({"swx23-fig5-sample-size",
                 "SWX+23 Fig 5: DP-SGD approaches non-private SGD as n grows (m = n^{1/4}/2, "
                 "T = 50 n^{2/5})",
                 fig5_sample_size, 0.1});
  out.push_back({"swx23-lemma20-22-init",
                 "SWX+23 Lemmas 20, 22, 26 at He initialisation: hidden norms, gradient norms, "
                 "outputs",
                 lemma20_22_init, 0.5});
}

}  // namespace dpkit::validation
