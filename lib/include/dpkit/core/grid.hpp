// dpkit/core/grid.hpp — evaluation grids.
#pragma once

#include <cstddef>
#include <vector>

namespace dpkit {

/// n points from a to b inclusive, equally spaced (n ≥ 2; the end points are exact).
std::vector<double> linspace(double a, double b, std::size_t n);

/// n points from a to b inclusive, equally spaced in log (0 < a, 0 < b, n ≥ 2; ends exact).
std::vector<double> logspace(double a, double b, std::size_t n);

}  // namespace dpkit
