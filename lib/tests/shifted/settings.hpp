// Builders of noisy_gradient_setting for the shifted-module tests (BSA24's parameter names).
#pragma once
#include <cmath>

#include "dpkit/shifted/bounds.hpp"

namespace dpkit::test {

/// Full batch (NoisyGD) or, with b > 0, random batches of size b (NoisySGD); t steps.
inline shifted::noisy_gradient_setting gd_setting(double L,
                                                  long long n,
                                                  double sigma,
                                                  double eta,
                                                  long long t,
                                                  double c,
                                                  double D = INFINITY,
                                                  long long b = 0) {
  shifted::noisy_gradient_setting s;
  s.sensitivity = L;
  s.examples = n;
  s.batch_size = b;
  s.noise = sigma;
  s.learning_rate = eta;
  s.steps = t;
  s.contraction = c;
  s.diameter = D;
  return s;
}

/// Cyclic batches (NoisyCGD): l = n/b batches per epoch, E epochs.
inline shifted::noisy_gradient_setting cgd_setting(double L,
                                                   long long n,
                                                   long long b,
                                                   double sigma,
                                                   double eta,
                                                   long long E,
                                                   double c,
                                                   double D = INFINITY) {
  return gd_setting(L, n, sigma, eta, (n / b) * E, c, D, b);
}

}  // namespace dpkit::test
