// Helpers shared by the WSK+26 KAN scenarios (wsk26_kan.cpp, wsk26_kan_trends.cpp,
// wsk26_kan_scaling.cpp): the model's Assumption 3.2 constants, Thm 4.1's localisation radius,
// Lemma B.5's block radius, Algorithm 1's options and the paired statistics of the trend checks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "dpkit/risk/kan_bounds.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/learners/kan.hpp"

namespace dpkit::validation::kan_detail {

inline risk::kan_activation to_risk(learners::kan_activation a) {
  return a == learners::kan_activation::tanh ? risk::kan_activation::tanh
                                        : risk::kan_activation::sigmoid;
}

// Assumption 3.2's constants of the model's basis and activation (cubic B-splines only: the
// closed forms of risk::cubic_bspline_constants).
inline risk::kan_constants constants_of(const learners::kan_options& o) {
  return risk::cubic_bspline_constants(
      to_risk(o.activation), (o.grid_upper - o.grid_lower) / static_cast<double>(o.grid_size));
}

// The localisation radius of Thm 4.1, R* = (log T + √log(n/δ))/γ with its ≍ constant set to 1
// (WSK+26 Thm 4.1 / C.13; the theorems leave the constant open).
inline double theorem_radius(double gamma, double steps, double examples, double delta) {
  return (std::log(steps) + std::sqrt(std::log(examples / delta))) / gamma;
}

// max_j ‖c_j‖ (the block radius of Lemma B.5's event).
inline double block_norm(const sim::vector& c, std::size_t width, std::size_t p) {
  double block = 0;
  for (std::size_t j = 0; j < width; ++j)
    block = std::max(
        block, c.segment(static_cast<Eigen::Index>(j * p), static_cast<Eigen::Index>(p)).norm());
  return block;
}

// Algorithm 1 (DP-λCGD, WSK+26 §3.2): mini-batches of B drawn uniformly without replacement,
// clipping at C_clip, noise c_priv(Z_t − λZ_{t−1}) with c_priv = C_clip κ/B (WSK+26 Alg 1), and
// projection onto B(W_0, R).
inline sim::noisy_gradient_options dplcgd_options(std::size_t batch,
                                                  long steps,
                                                  double eta,
                                                  double clip,
                                                  double kappa,
                                                  double lambda,
                                                  const sim::vector& w0,
                                                  double radius) {
  sim::noisy_gradient_options a;
  a.batches = sim::batch_rule::shuffled;  // B_t uniform without replacement, |B_t| = B
  a.batch_size = batch;
  a.steps = steps;
  a.learning_rate = eta;
  a.noise = clip * kappa / static_cast<double>(batch);
  a.correlation = lambda;
  a.clip = clip;
  a.constraint = sim::projection::ball(w0, radius);
  return a;
}

// Mean and standard error of the paired differences a − b/F (F = the bound factor).
inline std::pair<double, double> paired(const std::vector<double>& a,
                                        const std::vector<double>& b,
                                        double F) {
  const double N = static_cast<double>(a.size());
  double mean = 0, var = 0;
  for (std::size_t i = 0; i < a.size(); ++i) mean += (a[i] - b[i] / F) / N;
  for (std::size_t i = 0; i < a.size(); ++i) var += std::pow(a[i] - b[i] / F - mean, 2) / (N - 1);
  return {mean, std::sqrt(var / N)};
}

}  // namespace dpkit::validation::kan_detail
