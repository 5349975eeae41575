#include "dpkit/core/check.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <system_error>

namespace dpkit {

std::string format_value(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  // Shortest text that reads back as the same double (C++17 <charconv>).
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : std::string("?");
}

std::string format_value(long long value) {
  return std::to_string(value);
}

bool is_subnormal(double x) noexcept {
  return x != 0 && std::abs(x) < std::numeric_limits<double>::min();
}

std::string underflow_note(std::string_view text) {
  return "(" + std::string(text) +
         " underflows double precision: the smallest normal double is " + kSmallestNormalText +
         ")";
}

namespace {
std::string argument_message(std::string_view function,
                             std::string_view name,
                             std::string_view value,
                             std::string_view constraint) {
  std::string message;
  message.reserve(function.size() + name.size() + value.size() + constraint.size() + 24);
  message.append(function).append(": ").append(name).append(" is ").append(value);
  message.append(", but must be ").append(constraint);
  return message;
}
}  // namespace

argument_error::argument_error(std::string_view function,
                               std::string_view name,
                               std::string_view value,
                               std::string_view constraint)
    : std::domain_error(argument_message(function, name, value, constraint)),
      function_(function),
      name_(name),
      value_(value),
      constraint_(constraint) {}

void throw_domain_error(std::string_view function,
                        std::string_view name,
                        std::string_view value,
                        std::string_view constraint) {
  throw argument_error(function, name, value, constraint);
}

void throw_domain_error(std::string_view function,
                        std::string_view name,
                        double value,
                        std::string_view constraint) {
  throw_domain_error(function, name, format_value(value), constraint);
}

}  // namespace dpkit
