// Python bindings: volterra (placeholder until its bindings land; registers nothing yet).
#include "bindings.hpp"

namespace dpkit::python {
void bind_volterra(pybind11::module_& /*m*/) {}
}  // namespace dpkit::python
