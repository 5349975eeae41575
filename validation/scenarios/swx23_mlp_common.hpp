// Pieces shared by the SWX+23 §6 scenarios (swx23_mlp.cpp, swx23_mlp_extra.cpp): the common
// synthetic task and the accountant's noise multiplier for Algorithm 10.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/sim/mlp.hpp"

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
  const sim::sphere_teacher teacher = sim::random_sphere_teacher(kDim, kTeacher, s);
  return sim::sphere_teacher_data(n, teacher, kLabelNoise, s);
}

}  // namespace dpkit::validation::mlp_detail
