// Internal: what the translation units of the SWX+23 GLM learners (learners/glm.hpp) share
// (glm.cpp: the links, the surrogate loss, the data model and the Moreau envelope with its
// Algorithm 4 oracle; glm_algorithms.cpp: JL and polynomial features and the private learners,
// Algorithms 1–3 and 5–9).
#pragma once

#include <cstddef>
#include <string>

#include "dpkit/core/check.hpp"
#include "dpkit/learners/glm.hpp"

namespace dpkit::learners::detail::glm {

inline std::string count(long long n) {
  return format_value(n);
}
inline std::string count(std::size_t n) {
  return format_value(static_cast<long long>(n));
}

inline double relu(double a) {
  return a > 0 ? a : 0.0;
}

// ℓ_β′(m) = β(m − p) of the Moreau envelope without argument checks (hot path of Algs 5/6).
double moreau_derivative_unchecked(glm_link link, double y, double beta, double m);

// Algorithm 4 without checks; steps = T_o.
moreau_oracle_result oracle_unchecked(
    glm_link link, double y, double beta, double m, double B, long long steps);

// T_o = ⌈144B²/γ²⌉ (Lemma 6), at least 1; a domain error naming `fn` when it exceeds max_steps.
long long oracle_steps(const char* fn, double B, double gamma, long long max_steps);

}  // namespace dpkit::learners::detail::glm
