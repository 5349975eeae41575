// dpkit/core/tolerance.hpp — the one place where numerical tolerances live.
//
// Tolerances are multiples of machine epsilon, on the ladder GSL uses in its own tests
// (TEST_TOL0..TEST_TOL6 = 2, 16, 256, 2048, 16384, 131072, 1048576 × DBL_EPSILON), so that
// any loosening shows up in review as a change of rung, not as a scattered literal.
#pragma once

#include <limits>

namespace dpkit::tol {

inline constexpr double kMachineEps = std::numeric_limits<double>::epsilon();  // 2.22e-16

inline constexpr double kTol0 = 2 * kMachineEps;        // 4.4e-16
inline constexpr double kTol1 = 16 * kMachineEps;       // 3.6e-15
inline constexpr double kTol2 = 256 * kMachineEps;      // 5.7e-14
inline constexpr double kTol3 = 2048 * kMachineEps;     // 4.5e-13
inline constexpr double kTol4 = 16384 * kMachineEps;    // 3.6e-12
inline constexpr double kTol5 = 131072 * kMachineEps;   // 2.9e-11
inline constexpr double kTol6 = 1048576 * kMachineEps;  // 2.3e-10

/// Default relative width at which bracketing root finders stop.
inline constexpr double kRootRelative = 4 * kMachineEps;

/// sqrt(machine epsilon): the best relative accuracy of a minimiser's location.
inline constexpr double kSqrtMachineEps = 1.4901161193847656e-08;

}  // namespace dpkit::tol
