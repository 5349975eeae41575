// Python bindings: dpkit/volterra (LKSP25) — the risk trajectories P_t, R_t of noisy HSGD on
// ridge least squares from the Volterra equations (6)–(7). A problem crosses the boundary as a
// dict of numpy arrays (one entry per eigen-group) plus d, ridge, label_noise and sigma; a
// schedule as (kind, parameters, table times, table rates). python/dpkit/volterra.py wraps
// these in Spectrum / Schedule / RiskCurve objects with argument checking.
#include "dpkit/volterra/risk.hpp"

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "dpkit/volterra/schedule.hpp"
#include "dpkit/volterra/spectrum.hpp"

namespace py = pybind11;
namespace vt = dpkit::volterra;

namespace dpkit::python {

namespace {

vt::energies make_energies(const py::dict& d) {
  vt::energies e;
  if (d.contains("e0_sq")) e.e0_sq = d["e0_sq"].cast<double>();
  if (d.contains("xstar_sq")) e.xstar_sq = d["xstar_sq"].cast<double>();
  if (d.contains("e0_xstar")) e.e0_xstar = d["e0_xstar"].cast<double>();
  return e;
}

py::dict curve_dict(const vt::risk_curve& c) {
  py::dict d = status_dict(c);
  d["method"] = c.method;
  d["times"] = as_array(c.times);
  d["P"] = as_array(c.P);
  d["R"] = as_array(c.R);
  d["P_error"] = as_array(c.P_error);
  d["R_error"] = as_array(c.R_error);
  if (c.variances.size() > 0) {
    py::array_t<double> w({static_cast<py::ssize_t>(c.variances.rows()),
                           static_cast<py::ssize_t>(c.variances.cols())});
    auto out = w.mutable_unchecked<2>();
    for (Eigen::Index i = 0; i < c.variances.rows(); ++i)
      for (Eigen::Index j = 0; j < c.variances.cols(); ++j) out(i, j) = c.variances(i, j);
    d["variances"] = w;
  } else {
    d["variances"] = py::none();
  }
  d["steps"] = c.steps;
  d["max_kernel_norm"] = c.max_kernel_norm;
  return d;
}

// ---- builders ---------------------------------------------------------------------------------

py::dict from_groups(const py::dict& problem) {
  return volterra_problem_dict(volterra_problem(problem));
}

py::dict from_eigenvalues(const dvec& eigenvalues,
                          const dvec& x0,
                          const dvec& xtilde,
                          const py::dict& params,
                          double group_tolerance) {
  return volterra_problem_dict(vt::from_eigenvalues(to_vector(eigenvalues), to_vector(x0),
                                                    to_vector(xtilde), volterra_parameters(params),
                                                    group_tolerance));
}

py::dict from_covariance(const Eigen::MatrixXd& sigma_matrix,
                         const Eigen::VectorXd& x0,
                         const Eigen::VectorXd& xtilde,
                         const py::dict& params,
                         double group_tolerance) {
  vt::problem p;
  {
    py::gil_scoped_release release;  // O(d³) eigendecomposition
    p = vt::from_covariance(sigma_matrix, x0, xtilde, volterra_parameters(params), group_tolerance);
  }
  return volterra_problem_dict(p);
}

py::dict family(const std::string& name,
                long long d,
                const std::vector<double>& values,
                long long groups,
                const py::dict& energies,
                const py::dict& params) {
  const vt::energies e = make_energies(energies);
  const vt::problem_parameters par = volterra_parameters(params);
  if (name == "isotropic") return volterra_problem_dict(vt::isotropic(d, values.at(0), e, par));
  if (name == "spiked")
    return volterra_problem_dict(
        vt::spiked(d, values.at(0), std::vector<double>(values.begin() + 1, values.end()), e, par));
  if (name == "power_law")
    return volterra_problem_dict(vt::power_law(d, values.at(0), values.at(1), e, par));
  if (name == "marchenko_pastur")
    return volterra_problem_dict(
        vt::marchenko_pastur(d, values.at(0), values.at(1), groups, e, par));
  throw std::invalid_argument("family: unknown spectrum family '" + name + "'");
}

py::dict two_level(long long d,
                   double bulk,
                   double spike,
                   const dvec& x0,
                   const dvec& xtilde,
                   const py::dict& params) {
  return volterra_problem_dict(
      vt::two_level(d, bulk, spike, to_vector(x0), to_vector(xtilde), volterra_parameters(params)));
}

py::dict lksp25_design(const dvec& x0, const dvec& xtilde, const py::dict& params) {
  return volterra_problem_dict(vt::lksp25_design(static_cast<long long>(x0.size()), to_vector(x0),
                                                  to_vector(xtilde), volterra_parameters(params)));
}

py::tuple lksp25_start(long long d, double x0_scale, std::uint64_t seed) {
  const vt::lksp25_vectors v = vt::lksp25_start(d, x0_scale, seed);
  return py::make_tuple(as_array(v.x0), as_array(v.xtilde));
}

py::dict read_csv(const std::string& path, const py::dict& defaults) {
  vt::problem_file_defaults f;
  if (defaults.contains("ridge")) f.ridge = defaults["ridge"].cast<double>();
  if (defaults.contains("label_noise")) f.label_noise = defaults["label_noise"].cast<double>();
  if (defaults.contains("sigma")) f.sigma = defaults["sigma"].cast<double>();
  return volterra_problem_dict(vt::read_problem_csv(std::filesystem::path(path), f));
}

void write_csv(const py::dict& problem, const std::string& path) {
  vt::write_problem_csv(volterra_problem(problem), std::filesystem::path(path));
}

// ---- schedules --------------------------------------------------------------------------------

py::dict schedule_eval(const std::string& kind,
                       const std::vector<double>& params,
                       const std::vector<double>& table_times,
                       const std::vector<double>& table_rates,
                       const dvec& times) {
  const vt::schedule s = volterra_schedule(kind, params, table_times, table_rates);
  const double* t = times.data();
  std::vector<double> rate(static_cast<std::size_t>(times.size())),
      integral(static_cast<std::size_t>(times.size()));
  for (py::ssize_t i = 0; i < times.size(); ++i) {
    rate[static_cast<std::size_t>(i)] = s.rate(t[i]);
    integral[static_cast<std::size_t>(i)] = s.integral(t[i]);
  }
  py::dict d;
  d["rate"] = as_array(rate);
  d["integral"] = as_array(integral);
  d["description"] = s.describe();
  d["constant"] = s.is_constant();
  return d;
}

// ---- solvers ----------------------------------------------------------------------------------

py::dict risk(const py::dict& problem,
              const std::string& kind,
              const std::vector<double>& params,
              const std::vector<double>& table_times,
              const std::vector<double>& table_rates,
              const dvec& times,
              const std::string& solver,
              double relative_tolerance,
              const py::dict& options) {
  const vt::problem p = volterra_problem(problem);
  const vt::schedule s = volterra_schedule(kind, params, table_times, table_rates);
  const std::vector<double> t = to_vector(times);
  const bool store = options.contains("store_variances") && options["store_variances"].cast<bool>();
  const double abs_tol =
      options.contains("absolute_tolerance") ? options["absolute_tolerance"].cast<double>() : 0.0;
  const bool has_max = options.contains("max_steps");
  const long long max_steps = has_max ? options["max_steps"].cast<long long>() : 0;
  vt::risk_curve c;
  if (solver == "auto") {
    py::gil_scoped_release release;
    c = vt::solve_risk(p, s, t, relative_tolerance, store);
  } else if (solver == "ode") {
    vt::ode_options o;
    o.relative_tolerance = relative_tolerance;
    o.absolute_tolerance = abs_tol;
    o.store_variances = store;
    if (has_max) o.max_steps = max_steps;
    py::gil_scoped_release release;
    c = vt::solve_ode_lift(p, s, t, o);
  } else if (solver == "exponential") {
    vt::exponential_options o;
    o.relative_tolerance = relative_tolerance;
    o.absolute_tolerance = abs_tol;
    o.store_variances = store;
    if (has_max) o.max_steps = max_steps;
    py::gil_scoped_release release;
    c = vt::solve_exponential(p, s, t, o);
  } else if (solver == "trapezoid") {
    vt::trapezoid_options o;
    o.relative_tolerance = relative_tolerance;
    o.absolute_tolerance = abs_tol;
    if (has_max) o.max_steps = max_steps;
    py::gil_scoped_release release;
    c = vt::solve_product_trapezoid(p, s, t, o);
  } else if (solver == "closed-form") {
    if (!s.is_constant())
      throw std::invalid_argument(
          "solver: 'closed-form' needs a constant learning rate (isotropic_constant_rate)");
    c = vt::isotropic_constant_rate(p, s.rate(0), t);
  } else {
    throw std::invalid_argument(
        "solver: must be 'auto', 'ode', 'exponential', 'trapezoid' or "
        "'closed-form', got '" +
        solver + "'");
  }
  return curve_dict(c);
}

py::dict plateau(const py::dict& problem, double gamma) {
  const vt::plateau_result r = vt::plateau(volterra_problem(problem), gamma);
  py::dict d = status_dict(r);
  d["P_inf"] = r.P_inf;
  d["R_inf"] = r.R_inf;
  d["kernel_norm"] = r.kernel_norm;
  d["noise_forcing"] = r.noise_forcing;
  d["P_xstar"] = r.P_xstar;
  d["R_xstar"] = r.R_xstar;
  d["variances"] = as_array(r.variances);
  d["stable"] = r.stable;
  return d;
}

double kernel_norm(const py::dict& problem, double gamma) {
  return vt::kernel_norm(volterra_problem(problem), gamma);
}

py::dict gradient_flow_risk(const py::dict& problem, const dvec& Gamma) {
  const vt::problem p = volterra_problem(problem);
  std::vector<double> P(static_cast<std::size_t>(Gamma.size())), R(P.size());
  for (py::ssize_t i = 0; i < Gamma.size(); ++i) {
    const vt::risk_pair r = vt::gradient_flow_risk(p, Gamma.data()[i]);
    P[static_cast<std::size_t>(i)] = r.P;
    R[static_cast<std::size_t>(i)] = r.R;
  }
  py::dict d;
  d["P"] = as_array(P);
  d["R"] = as_array(R);
  return d;
}

double problem_trace(const py::dict& problem) {
  return vt::trace(volterra_problem(problem));
}

}  // namespace

// ---- shared helpers
// ------------------------------------------------------------------------------

vt::problem_parameters volterra_parameters(const py::dict& d) {
  vt::problem_parameters p;
  if (d.contains("ridge")) p.ridge = d["ridge"].cast<double>();
  if (d.contains("label_noise")) p.label_noise = d["label_noise"].cast<double>();
  if (d.contains("sigma")) p.sigma = d["sigma"].cast<double>();
  return p;
}

vt::problem volterra_problem(const py::dict& d) {
  const auto col = [&](const char* name) { return d[name].cast<dvec>(); };
  const dvec lam = col("eigenvalues"), k = col("multiplicities"), e0 = col("e0_sq"),
             xs = col("xstar_sq"), ex = col("e0_xstar");
  const py::ssize_t n = lam.size();
  if (k.size() != n || e0.size() != n || xs.size() != n || ex.size() != n)
    throw std::invalid_argument(
        "spectrum: eigenvalues, multiplicities, e0_sq, xstar_sq and e0_xstar must have the same "
        "length");
  std::vector<vt::eigen_group> groups(static_cast<std::size_t>(n));
  for (py::ssize_t i = 0; i < n; ++i) {
    vt::eigen_group& g = groups[static_cast<std::size_t>(i)];
    g.eigenvalue = lam.data()[i];
    g.multiplicity = k.data()[i];
    g.e0_sq = e0.data()[i];
    g.xstar_sq = xs.data()[i];
    g.e0_xstar = ex.data()[i];
  }
  return vt::from_groups(std::move(groups), d["d"].cast<long long>(), volterra_parameters(d));
}

py::dict volterra_problem_dict(const vt::problem& p) {
  std::vector<double> lam, k, e0, xs, ex;
  for (const vt::eigen_group& g : p.groups) {
    lam.push_back(g.eigenvalue);
    k.push_back(g.multiplicity);
    e0.push_back(g.e0_sq);
    xs.push_back(g.xstar_sq);
    ex.push_back(g.e0_xstar);
  }
  py::dict d;
  d["eigenvalues"] = as_array(lam);
  d["multiplicities"] = as_array(k);
  d["e0_sq"] = as_array(e0);
  d["xstar_sq"] = as_array(xs);
  d["e0_xstar"] = as_array(ex);
  d["d"] = p.d;
  d["ridge"] = p.ridge;
  d["label_noise"] = p.label_noise;
  d["sigma"] = p.sigma;
  return d;
}

vt::schedule volterra_schedule(const std::string& kind,
                               const std::vector<double>& params,
                               const std::vector<double>& times,
                               const std::vector<double>& rates) {
  const auto need = [&](std::size_t n) {
    if (params.size() != n)
      throw std::invalid_argument("schedule: '" + kind + "' takes " + std::to_string(n) +
                                  " parameters, got " + std::to_string(params.size()));
  };
  if (kind == "constant") {
    need(1);
    return vt::schedule::constant(params[0]);
  }
  if (kind == "step_decay") {
    need(3);
    return vt::schedule::step_decay(params[0], params[1], params[2]);
  }
  if (kind == "polynomial_decay") {
    need(3);
    return vt::schedule::polynomial_decay(params[0], params[1], params[2]);
  }
  if (kind == "cosine") {
    need(3);
    return vt::schedule::cosine(params[0], params[1], params[2]);
  }
  if (kind == "piecewise_linear") return vt::schedule::piecewise_linear(times, rates);
  throw std::invalid_argument("schedule: unknown kind '" + kind + "'");
}

void bind_volterra(py::module_& m) {
  const char* problem_doc =
      " problem: dict of eigenvalues, multiplicities, e0_sq, xstar_sq, e0_xstar (arrays, one "
      "entry per eigen-group), d, ridge, label_noise, sigma.";
  m.def("volterra_from_groups", &from_groups, py::arg("problem"),
        (std::string("Low-level: validate a problem and return it.") + problem_doc).c_str());
  m.def("volterra_from_eigenvalues", &from_eigenvalues, py::arg("eigenvalues"), py::arg("x0"),
        py::arg("xtilde"), py::arg("params"), py::arg("group_tolerance"),
        "Low-level: a problem from per-coordinate eigenvalues and x0, xtilde in the eigenbasis.");
  m.def("volterra_from_covariance", &from_covariance, py::arg("sigma_matrix"), py::arg("x0"),
        py::arg("xtilde"), py::arg("params"), py::arg("group_tolerance"),
        "Low-level: a problem from Sigma = E[a a^T] (d x d) and x0, xtilde in the original basis.");
  m.def("volterra_family", &family, py::arg("name"), py::arg("d"), py::arg("values"),
        py::arg("groups"), py::arg("energies"), py::arg("params"),
        "Low-level: isotropic [lambda], spiked [bulk, spikes...], power_law [exponent, trace], "
        "marchenko_pastur [ratio, scale] (groups).");
  m.def("volterra_two_level", &two_level, py::arg("d"), py::arg("bulk"), py::arg("spike"),
        py::arg("x0"), py::arg("xtilde"), py::arg("params"),
        "Low-level: Sigma = bulk I + (spike - bulk) u u^T, u = 1/sqrt(d).");
  m.def("volterra_lksp25_design", &lksp25_design, py::arg("x0"), py::arg("xtilde"),
        py::arg("params"), "Low-level: LKSP25's design Sigma = I/(12d) + 11^T/(4d).");
  m.def("volterra_lksp25_start", &lksp25_start, py::arg("d"), py::arg("x0_scale"),
        py::arg("seed"),
        "Low-level: (x0, xtilde) of LKSP25 §5 as dpkit draws them (xtilde iid U(0, 1/sqrt d), "
        "x0 ~ N(0, x0_scale^2 I), stream (seed, 0, 0)).");
  m.def("volterra_read_csv", &read_csv, py::arg("path"), py::arg("defaults"),
        "Low-level: read a spectrum file (docs/volterra.md).");
  m.def("volterra_write_csv", &write_csv, py::arg("problem"), py::arg("path"),
        "Low-level: write a spectrum file (docs/volterra.md).");
  m.def("volterra_schedule", &schedule_eval, py::arg("kind"), py::arg("params"),
        py::arg("table_times"), py::arg("table_rates"), py::arg("times"),
        "Low-level: gamma(t) and Gamma(t) of a schedule at times.");
  m.def("volterra_risk", &risk, py::arg("problem"), py::arg("kind"), py::arg("params"),
        py::arg("table_times"), py::arg("table_rates"), py::arg("times"), py::arg("solver"),
        py::arg("relative_tolerance"), py::arg("options"),
        "Low-level: P_t and R_t (LKSP25 eqs. (6)-(7)) with error estimates and status.");
  m.def("volterra_plateau", &plateau, py::arg("problem"), py::arg("gamma"),
        "Low-level: P_inf, R_inf and K_inf for a constant rate gamma.");
  m.def("volterra_kernel_norm", &kernel_norm, py::arg("problem"), py::arg("gamma"),
        "Low-level: K(gamma) = (gamma/(2d)) sum_g k_g lambda_g^2/(lambda_g + ridge).");
  m.def("volterra_gradient_flow_risk", &gradient_flow_risk, py::arg("problem"), py::arg("Gamma"),
        "Low-level: P and R of the gradient-flow mean at intrinsic times Gamma.");
  m.def("volterra_trace", &problem_trace, py::arg("problem"), "Low-level: tr Sigma.");
  m.def("volterra_marchenko_pastur_cdf", &vt::marchenko_pastur_cdf, py::arg("x"), py::arg("ratio"),
        py::arg("scale"), "The Marchenko-Pastur CDF (with the atom at 0).");
}

}  // namespace dpkit::python
