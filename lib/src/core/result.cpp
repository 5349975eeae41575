#include "dpkit/core/result.hpp"

namespace dpkit {

std::string_view to_string(termination_type t) noexcept {
  switch (t) {
    case termination_type::converged:
      return "converged";
    case termination_type::max_iterations:
      return "max_iterations";
    case termination_type::failure:
      return "failure";
  }
  return "failure";
}

std::string_view to_string(bound_kind k) noexcept {
  switch (k) {
    case bound_kind::upper_bound:
      return "upper-bound";
    case bound_kind::lower_bound:
      return "lower-bound";
    case bound_kind::estimate:
      return "estimate";
    case bound_kind::approximation:
      return "approximation";
  }
  return "approximation";
}

}  // namespace dpkit
