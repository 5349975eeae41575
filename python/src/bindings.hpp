// Python bindings of dpkit (the extension module dpkit._dpkit): shared declarations.
//
// The extension covers the modules that need neither MPI nor OpenMP (accounting, divergence,
// subsampling, shifted, volterra, hsgd); the Monte Carlo simulator stays out, so `import dpkit`
// loads no MPI. Each bind_*.cpp adds one module's functions.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/accounting/training_run.hpp"
#include "dpkit/core/result.hpp"
#include "dpkit/volterra/schedule.hpp"
#include "dpkit/volterra/spectrum.hpp"

namespace dpkit::python {

/// The run of `phases` plus a μ₀-GDP factor, validated (argument_error naming the field);
/// edge_values: σ ∈ [0, inf] and q ∈ [0, 1] accepted (epsilon and delta answer them exactly).
accounting::training_run make_run(const std::vector<accounting::training_phase>& phases,
                                  double gaussian_mu,
                                  bool edge_values = false);
/// pld_options from a dict with any of relative_accuracy, max_fft_size, grid_spacing,
/// initial_grid_spacing (validated).
accounting::pld_options make_pld_options(const pybind11::dict& options);
/// termination, message, evaluations.
pybind11::dict status_dict(const solver_status& s);

/// A float64 array argument (C order; other dtypes are converted).
using dvec = pybind11::array_t<double, pybind11::array::c_style | pybind11::array::forcecast>;

/// The values of a one-dimensional array argument (std::invalid_argument otherwise).
inline std::vector<double> to_vector(const dvec& a) {
  if (a.ndim() > 1) throw std::invalid_argument("expected a one-dimensional array");
  return std::vector<double>(a.data(), a.data() + a.size());
}

/// A numpy array holding a copy of v.
inline pybind11::array_t<double> as_array(const std::vector<double>& v) {
  return pybind11::array_t<double>(static_cast<pybind11::ssize_t>(v.size()), v.data());
}
inline pybind11::array_t<double> as_array(const Eigen::VectorXd& v) {
  return pybind11::array_t<double>(static_cast<pybind11::ssize_t>(v.size()), v.data());
}

// bind_volterra.cpp, shared with bind_hsgd.cpp: a Volterra problem (spectrum + parameters) to
// and from its dict form, a learning-rate schedule from (kind, parameters, table times, table
// rates), and the problem parameters from a dict.
volterra::problem volterra_problem(const pybind11::dict& d);
pybind11::dict volterra_problem_dict(const volterra::problem& p);
volterra::schedule volterra_schedule(const std::string& kind,
                                     const std::vector<double>& params,
                                     const std::vector<double>& times,
                                     const std::vector<double>& rates);
volterra::problem_parameters volterra_parameters(const pybind11::dict& d);

void bind_types(pybind11::module_& m);
void bind_accounting(pybind11::module_& m);
void bind_run_units(pybind11::module_& m);
void bind_shifted(pybind11::module_& m);
void bind_volterra(pybind11::module_& m);
void bind_hsgd(pybind11::module_& m);
void bind_correlated(pybind11::module_& m);
void bind_audit(pybind11::module_& m);
void bind_matrix(pybind11::module_& m);

}  // namespace dpkit::python
