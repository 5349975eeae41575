// Uses the installed accounting module alone (CMake component or pkg-config dpkit-accounting):
// 400 full-batch steps with noise multiplier 20 are exactly 1-GDP, whose ε at δ = 1e-5 is
// 4.37717809568122462765... (mpmath, 50 digits: the root of Φ(−ε + 1/2) − e^ε Φ(−ε − 1/2) = δ).
// The certified bracket must contain it. Exit 0 and "bracket ok" when it does.
#include <cstdio>

#include "dpkit/accounting/accountant.hpp"

int main() {
  namespace acc = dpkit::accounting;
  acc::training_run run;
  run.phases.push_back({/*sigma=*/20.0, /*q=*/1.0, acc::sampling_scheme::poisson, /*steps=*/400});
  const auto e = acc::estimate_epsilon(run, 1e-5, acc::accountant_type::pld);
  const double exact = 4.3771780956812246;
  const bool ok = e.converged() && e.lower <= exact && exact <= e.upper;
  std::printf("epsilon in [%.15g, %.15g]: bracket %s\n", e.lower, e.upper, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
