// Shared helpers for dpkit's Catch2 tests (the Ceres test_util.h role).
//
// Error measures follow STYLE.md rule 11: relative error against the reference (absolute
// when the reference is 0; NaN matches NaN; ±inf matches the same infinity), or Boost's
// mollified error |e − c|/max(|e|, 1) for quantities that cross zero.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace dpkit::test {

// Constants the test files share (one definition: the unit tests are compiled in batches,
// DPKIT_UNITY_BUILD, where two files' definitions of one name would collide).
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
/// A finite-difference step for central differences: the cube root of the machine epsilon.
inline const double kFdStep = std::cbrt(std::numeric_limits<double>::epsilon());
/// The confidence of an audit assertion that must hold at every seed (fails once in 1e6 runs).
inline constexpr double kStrict = 1 - 1e-6;

/// data/reference/<name> in the source tree.
std::filesystem::path reference_path(const std::string& name);

/// |computed − expected|/|expected|; |computed| when expected == 0; 0 when both are NaN or
/// the same infinity; +inf when exactly one is non-finite.
double relative_error(double computed, double expected);

/// |computed − expected|/max(|expected|, 1).
double mollified_error(double computed, double expected);

/// One line for failure logs: expected, computed, relative error, ulp distance and hexfloat
/// (STYLE.md rule 12).
std::string describe_mismatch(double computed, double expected);

/// A Monte Carlo privacy profile: the mean of (1 − e^{ε − L})₊ over sampled privacy losses L
/// (drawn under P), which estimates δ(ε) = E_P[(1 − e^{ε−L})₊], and its standard error.
struct mc_estimate {
  double mean = 0;
  double se = 0;
};
mc_estimate monte_carlo_delta(std::span<const double> losses, double epsilon);

/// Samples of a scalar statistic under D and under D′.
struct pair_samples {
  std::vector<double> d, dprime;
};
/// n draws of N(0, 1) (under D) and of N(μ, 1) (under D′) from independent streams
/// random_stream(seed, 0, 0) and (seed, 0, 1): the Gaussian mechanism, exactly μ-GDP.
pair_samples gaussian_mechanism(double mu, std::size_t n, std::uint64_t seed);

}  // namespace dpkit::test
