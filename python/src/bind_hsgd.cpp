// Python bindings: hsgd (placeholder until its bindings land; registers nothing yet).
#include "bindings.hpp"

namespace dpkit::python {
void bind_hsgd(pybind11::module_& /*m*/) {}
}  // namespace dpkit::python
