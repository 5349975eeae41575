// One rule for reading a number's text (dpkit/core/parse.hpp).
#include "dpkit/core/parse.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "dpkit/core/check.hpp"

namespace dpkit {

parsed_number parse_number(std::string_view text) {
  parsed_number out;
  if (text.empty()) return out;
  const std::string s(text);  // strtod reads up to a NUL
  char* end = nullptr;
  errno = 0;
  out.value = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) {
    out.status = number_status::not_a_number;
  } else if (errno == ERANGE || is_subnormal(out.value)) {
    // A subnormal read exactly (hexadecimal "0x1p-1074": no ERANGE) is below the smallest
    // normal double all the same, and refused as the decimal "4.9e-324" is.
    out.status = std::isinf(out.value) ? number_status::overflow : number_status::underflow;
  } else {
    out.status = number_status::ok;
  }
  return out;
}

std::optional<double> parse_double(std::string_view text) {
  const parsed_number p = parse_number(text);
  if (!p.read()) return std::nullopt;
  return p.value;
}

std::optional<double> parse_finite(std::string_view text) {
  const parsed_number p = parse_number(text);
  if (p.status != number_status::ok || !std::isfinite(p.value)) return std::nullopt;
  return p.value;
}

std::optional<long long> parse_integer(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() || errno == ERANGE) return std::nullopt;
  return v;
}

bool same_name(std::string_view name, std::string_view spelling) noexcept {
  if (name.size() != spelling.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if ((name[i] == '_' ? '-' : name[i]) != spelling[i]) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace dpkit
