// The extension module dpkit._dpkit. Users import `dpkit`, whose pure-Python layer wraps these
// low-level functions with argument checking, units and labelled result objects.
#include <pybind11/pybind11.h>

#include <string>

#include "bindings.hpp"
#include "dpkit/core/version.hpp"

PYBIND11_MODULE(_dpkit, m) {
  m.doc() = "dpkit's compiled core (low-level; use the functions of the dpkit package)";
  m.attr("__version__") = std::string(dpkit::version());
  m.attr("__git_hash__") = std::string(dpkit::git_hash());
  dpkit::python::bind_accounting(m);
  dpkit::python::bind_run_units(m);
  dpkit::python::bind_shifted(m);
  dpkit::python::bind_volterra(m);
  dpkit::python::bind_hsgd(m);
  dpkit::python::bind_correlated(m);
}
