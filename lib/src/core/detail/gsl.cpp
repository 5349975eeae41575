#include "core/detail/gsl.hpp"

#include <gsl/gsl_errno.h>

namespace dpkit::detail {

void ensure_gsl_error_handler_off() noexcept {
  static const bool done = [] {
    gsl_set_error_handler_off();
    return true;
  }();
  (void)done;
}

}  // namespace dpkit::detail
