// Training runs for the accounting tests: one phase, built the same way in every test file.
#pragma once

#include "dpkit/accounting/training_run.hpp"

namespace dpkit::test {

/// The run of one phase.
inline accounting::training_run run_of(const accounting::training_phase& p) {
  accounting::training_run r;
  r.phases.push_back(p);
  return r;
}

/// DP-SGD: `steps` steps at noise multiplier `sigma` and sampling rate `q` under scheme `s`.
inline accounting::training_run dpsgd(double sigma,
                                      double q,
                                      long long steps,
                                      accounting::sampling_scheme s =
                                          accounting::sampling_scheme::poisson) {
  accounting::training_phase p;
  p.noise_multiplier = sigma;
  p.sampling_rate = q;
  p.sampling = s;
  p.steps = steps;
  return run_of(p);
}

}  // namespace dpkit::test
