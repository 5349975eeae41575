// Uses the installed dpkit: ε of 1-GDP at δ = 1e-5 (50-digit reference 4.37717809568...).
#include <cstdio>

#include "dpkit/core/version.hpp"
#include "dpkit/divergence/gdp.hpp"

int main() {
  const auto r = dpkit::divergence::gdp_epsilon(1.0, 1e-5);
  std::printf("dpkit %s: epsilon = %.12f\n", dpkit::version().data(), r.value);
  return r.converged() ? 0 : 1;
}
