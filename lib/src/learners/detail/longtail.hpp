// Internal: what the translation units of ZXD+26's long-tail model (learners/longtail.hpp) share
// (longtail.cpp: the data model, the network and the long-tail protocol; longtail_training.cpp:
// DP-SGD training, its per-step records and the structured batch gradient).
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "dpkit/core/check.hpp"

namespace dpkit::learners::detail::longtail {

inline std::string count(std::size_t n) {
  return format_value(static_cast<long long>(n));
}

inline double relu(double z) {
  return z > 0 ? z : 0.0;
}

using index = Eigen::Index;

inline index idx(std::size_t n) {
  return static_cast<index>(n);
}

// Log-sum-exp of the K values F(k), accumulated online (no allocation).
struct online_lse {
  double max = -std::numeric_limits<double>::infinity(), sum = 0;
  void add(double v) {
    if (v <= max) {
      sum += std::exp(v - max);
    } else {
      sum = sum * std::exp(max - v) + 1;
      max = v;
    }
  }
  double value() const { return max + std::log(sum); }
};

}  // namespace dpkit::learners::detail::longtail
