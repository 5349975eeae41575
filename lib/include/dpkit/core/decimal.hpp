// dpkit/core/decimal.hpp — ceilings of the numbers users type, exactly.
//
// A count derived from a user's real number — T = ⌈E·N/B⌉ steps for E epochs — must not depend on
// the binary rounding of what they typed: 2.2 is stored as 2.2000000000000001776…, and
// ⌈2.2000000000000001776·1000/100⌉ = 23, a step nobody asked for. These ceilings read each double
// as the shortest decimal that prints as it (std::to_chars' round-trip form: 2.2 is 22/10; what
// the CLI parsed and what Python's repr shows) and take the ceiling in exact integer arithmetic
// (Boost.Multiprecision's cpp_int; the decimals of doubles reach 10^±324).
#pragma once

#include <optional>

namespace dpkit {

/// ⌈x·n/d⌉ for x finite and > 0 read as written, n ≥ 0, d ≥ 1; std::nullopt when it exceeds
/// 2^53 (the last integer every double holds). Throws argument_error on other input.
std::optional<long long> ceil_as_written(double x, long long n, long long d);

/// ⌈x/y⌉ for x, y finite and > 0, both read as written; std::nullopt when it exceeds 2^53.
std::optional<long long> ceil_quotient_as_written(double x, double y);

}  // namespace dpkit
