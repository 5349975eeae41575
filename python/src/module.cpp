// The extension module dpkit._dpkit. Users import `dpkit`, whose pure-Python layer wraps these
// low-level functions with argument checking, units and labelled result objects.
#include <pybind11/pybind11.h>

#include <exception>
#include <string>

#include "bindings.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/version.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_dpkit, m) {
  m.doc() = "dpkit's compiled core (low-level; use the functions of the dpkit package)";
  m.attr("__version__") = std::string(dpkit::version());
  m.attr("__git_hash__") = std::string(dpkit::git_hash());
  // The library's rejected argument as a ValueError subclass carrying its parts (function, name,
  // value, constraint): the Python layer words it with its own keyword (dpkit/_errors.py),
  // never by reading the message back. The type object lives as long as the module.
  static py::handle argument_error =
      py::exception<dpkit::argument_error>(m, "ArgumentError", PyExc_ValueError).release();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const dpkit::argument_error& e) {
      py::object error = py::reinterpret_borrow<py::object>(argument_error)(e.what());
      error.attr("function") = e.function();
      error.attr("name") = e.name();
      error.attr("value") = e.value();
      error.attr("constraint") = e.constraint();
      PyErr_SetObject(argument_error.ptr(), error.ptr());
    }
  });
  dpkit::python::bind_types(m);  // first: the others' signatures name these types
  dpkit::python::bind_accounting(m);
  dpkit::python::bind_run_units(m);
  dpkit::python::bind_shifted(m);
  dpkit::python::bind_volterra(m);
  dpkit::python::bind_hsgd(m);
  dpkit::python::bind_correlated(m);
  dpkit::python::bind_audit(m);
  dpkit::python::bind_matrix(m);
}
