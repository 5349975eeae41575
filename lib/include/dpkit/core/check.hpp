// dpkit/core/check.hpp — argument checks at the public API boundary.
//
// Every public dpkit function rejects bad input through this vocabulary. A failed check
// throws dpkit::argument_error (a std::domain_error) with the message
//
//     "<function>: <name> is <value>, but must be <constraint>"
//
// and the four parts as fields, so that a front end names the argument in its own words (the
// CLI's flag, Python's keyword) without reading the message back.
//
// (docs/architecture.md, "Bad input and non-convergence"; Stan's check_positive / Boost.Math's
// check_probability). NaN and ±inf are bad input unless a function documents otherwise. Checks are
// inline so that the passing path costs one comparison; only the throwing path is out of line.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dpkit {

/// A rejected argument: what() is "<function>: <name> is <value>, but must be <constraint>".
class argument_error : public std::domain_error {
 public:
  argument_error(std::string_view function,
                 std::string_view name,
                 std::string_view value,
                 std::string_view constraint);
  const std::string& function() const noexcept { return function_; }
  /// The argument's name as the library spells it ("sampling_rate", "steps").
  const std::string& name() const noexcept { return name_; }
  /// The value as text (format_value: shortest round-trip).
  const std::string& value() const noexcept { return value_; }
  /// What it must be ("finite and > 0", "in [0, 1]").
  const std::string& constraint() const noexcept { return constraint_; }

 private:
  std::string function_, name_, value_, constraint_;
};

/// Shortest round-trip text for a double: "0.1", "1e-300", "nan", "inf", "-inf".
std::string format_value(double value);
std::string format_value(long long value);

/// The smallest normal double (DBL_MIN) as every message writes it. A rounded "2.2e-308" lies
/// below the limit it states: `-p 2.2e-308` was refused with "must be in [2.2e-308, 1]".
inline constexpr const char* kSmallestNormalText = "2.2250738585072014e-308";

/// Whether x is subnormal: nonzero and below DBL_MIN in magnitude. Such a number keeps a few
/// digits at most and its square is 0, so every front end refuses it as an argument.
bool is_subnormal(double x) noexcept;

/// The note that goes with such a refusal, for a number written `text`:
/// "(TEXT underflows double precision: the smallest normal double is 2.2250738585072014e-308)".
/// The CLI adds it to text that reads only as a subnormal (or as 0 by underflow), Python to a
/// subnormal value: one wording.
std::string underflow_note(std::string_view text);

/// Throws argument_error("<function>: <name> is <value>, but must be <constraint>").
[[noreturn]] void throw_domain_error(std::string_view function,
                                     std::string_view name,
                                     std::string_view value,
                                     std::string_view constraint);
[[noreturn]] void throw_domain_error(std::string_view function,
                                     std::string_view name,
                                     double value,
                                     std::string_view constraint);

/// x is not NaN (±inf allowed).
inline void check_not_nan(std::string_view function, std::string_view name, double x) {
  if (std::isnan(x)) throw_domain_error(function, name, x, "a number (not NaN)");
}

/// x is finite.
inline void check_finite(std::string_view function, std::string_view name, double x) {
  if (!std::isfinite(x)) throw_domain_error(function, name, x, "finite");
}

/// x is finite and x > 0.
inline void check_positive(std::string_view function, std::string_view name, double x) {
  if (!(std::isfinite(x) && x > 0)) throw_domain_error(function, name, x, "finite and > 0");
}

/// x is finite and x >= 0.
inline void check_nonnegative(std::string_view function, std::string_view name, double x) {
  if (!(std::isfinite(x) && x >= 0)) throw_domain_error(function, name, x, "finite and >= 0");
}

/// p ∈ [0, 1].
inline void check_probability(std::string_view function, std::string_view name, double p) {
  if (!(p >= 0 && p <= 1)) throw_domain_error(function, name, p, "in [0, 1]");
}

/// p ∈ (0, 1).
inline void check_open_probability(std::string_view function, std::string_view name, double p) {
  if (!(p > 0 && p < 1)) throw_domain_error(function, name, p, "in (0, 1)");
}

/// x is finite and x > bound.
inline void check_greater(std::string_view function,
                          std::string_view name,
                          double x,
                          double bound) {
  if (!(std::isfinite(x) && x > bound))
    throw_domain_error(function, name, x, "finite and > " + format_value(bound));
}

/// lo <= x <= hi (both finite bounds inclusive).
inline void check_bounded(
    std::string_view function, std::string_view name, double x, double lo, double hi) {
  if (!(x >= lo && x <= hi))
    throw_domain_error(function, name, x,
                       "in [" + format_value(lo) + ", " + format_value(hi) + "]");
}

/// Integer n >= lo.
inline void check_at_least(std::string_view function,
                           std::string_view name,
                           long long n,
                           long long lo) {
  if (n < lo) throw_domain_error(function, name, format_value(n), ">= " + format_value(lo));
}

}  // namespace dpkit
