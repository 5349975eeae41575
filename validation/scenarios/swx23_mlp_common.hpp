// Pieces shared by the SWX+23 §6 scenarios (swx23_mlp.cpp, swx23_mlp_extra.cpp,
// swx23_mlp_scaling.cpp): the common synthetic task, the accountant's noise multiplier for
// Algorithm 10, and the network's forward and backward passes over a batch of inputs.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/learners/mlp.hpp"

namespace dpkit::validation::mlp_detail {

// The common task: inputs on S^{d−1} (d = 8), labels from a random two-layer ReLU teacher with
// K = 4 units and 5 % label noise; the L = 3 network; Poisson rate q = 0.05; ε = 1.
constexpr std::size_t kDim = 8, kDepth = 3, kTeacher = 4;
constexpr double kLabelNoise = 0.05, kRate = 0.05, kEpsilon = 1;

// The noise multiplier of Alg 10 with Poisson rate q, T steps, at (ε, δ) by dpkit's RDP
// accountant (a certified upper bound on ε).
inline double calibrated_z(double q, long steps, double epsilon, double delta) {
  accounting::training_run run;
  run.phases.push_back({1.0, q, accounting::sampling_scheme::poisson, steps});
  accounting::calibration_options o;
  o.accountant = accounting::accountant_type::rdp;
  const auto cal = accounting::calibrate_noise_multiplier(run, epsilon, delta, o);
  return cal.noise_multiplier;
}

// The replicate's teacher and n examples (stream 0: the teacher, then the examples).
inline sim::dataset teacher_data(std::uint64_t seed, std::uint64_t rep, std::size_t n) {
  random_stream s(seed, rep, 0);
  const learners::sphere_teacher teacher = learners::random_sphere_teacher(kDim, kTeacher, s);
  return learners::sphere_teacher_data(n, teacher, kLabelNoise, s);
}

using rowmajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Forward and backward passes of the network of learners/mlp.hpp at W for all n inputs at once
// (columns), in the notation of SWX+23 App C: hidden[l] = h_l (rows: units, columns: inputs;
// hidden[0] = xᵀ), delta[l] = δ_l with ∇_{W_l} f(W, x_i) = δ_{l,i} h_{l−1,i}ᵀ (eq. (16); the
// back-propagation of learners/mlp.hpp's header: δ_{L−1} = √m D_{L−1} W_Lᵀ, δ_{l−1} = D_{l−1} W_lᵀ δ_l,
// and δ_L = √m for the output layer), and f = f(W, x_i).
struct batch_pass {
  std::vector<Eigen::MatrixXd> hidden;  // l = 0, …, L−1
  std::vector<Eigen::MatrixXd> delta;   // l = 1, …, L−1 at index l (index 0 unused)
  Eigen::VectorXd f;
};

inline batch_pass forward_backward(const learners::mlp_architecture& a,
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

}  // namespace dpkit::validation::mlp_detail
