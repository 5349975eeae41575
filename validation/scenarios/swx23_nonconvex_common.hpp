// Helpers shared by the SWX+23 Part I scenarios (swx23_nonconvex.cpp: Lemmas 3-6 and Alg 2's
// sensitivity; swx23_nonconvex_thm1.cpp: Thm 1): the population of a well-specified GLM on the
// unit sphere and the teacher vector in the span of its design.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstddef>

#include "dpkit/learners/glm.hpp"

namespace dpkit::validation::nonconvex_detail {

inline double dbl(std::size_t n) {
  return static_cast<double>(n);
}

// A well-specified population: x = (z, 0) with z uniform on S^{θ−1} (‖x‖ = 1), binary labels
// with E[y|x] = σ(⟨w*, x⟩).
inline learners::glm_population population(learners::glm_link link,
                                      std::size_t d,
                                      std::size_t theta,
                                      const sim::vector& w_star) {
  learners::glm_population p;
  p.design = learners::glm_design::coordinate(d, theta, learners::glm_design_law::unit_sphere);
  p.teacher.link = link;
  p.teacher.w_star = w_star;
  p.teacher.noise = learners::glm_label_noise::binary;
  return p;
}

// w* = W·(1, 1, …, 1, 0, …)/√θ (in the span of the design).
inline sim::vector span_vector(std::size_t d, std::size_t theta, double W) {
  sim::vector v = sim::vector::Zero(static_cast<Eigen::Index>(d));
  for (std::size_t j = 0; j < theta; ++j)
    v(static_cast<Eigen::Index>(j)) = W / std::sqrt(dbl(theta));
  return v;
}

}  // namespace dpkit::validation::nonconvex_detail
