// Python bindings: dpkit/hsgd (LKSP25) — the Gaussian law of linearised noisy HSGD and the
// Rényi-DP trajectories of its last iterate, of several iterates and of their average. The law
// is a class (HsgdLaw: building it solves the risk ODE once, and every privacy call reuses it);
// the rest are functions over numpy arrays. python/dpkit/hsgd.py wraps them with argument
// checking and labelled result objects. Every privacy number here is an approximation (see
// dpkit/hsgd/privacy.hpp, "WHAT THE NUMBERS ARE").
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "dpkit/hsgd/law.hpp"
#include "dpkit/hsgd/privacy.hpp"
#include "dpkit/volterra/schedule.hpp"
#include "dpkit/volterra/spectrum.hpp"

namespace py = pybind11;
namespace hs = dpkit::hsgd;
namespace vt = dpkit::volterra;

namespace dpkit::python {

namespace {

using ivec = py::array_t<long long, py::array::c_style | py::array::forcecast>;
/// (kind, parameters, table times, table rates), as volterra_schedule takes them.
using schedule_spec =
    std::tuple<std::string, std::vector<double>, std::vector<double>, std::vector<double>>;
using law_ptr = std::shared_ptr<hs::gaussian_law>;

vt::schedule make_schedule(const schedule_spec& s) {
  return volterra_schedule(std::get<0>(s), std::get<1>(s), std::get<2>(s), std::get<3>(s));
}

hs::law_options make_law_options(const py::dict& o) {
  hs::law_options l;
  if (o.contains("grid_intervals")) l.grid_intervals = o["grid_intervals"].cast<long long>();
  if (o.contains("relative_tolerance"))
    l.relative_tolerance = o["relative_tolerance"].cast<double>();
  if (o.contains("group_tolerance")) l.group_tolerance = o["group_tolerance"].cast<double>();
  return l;
}

// ---- constructing the law ---------------------------------------------------------------------

law_ptr law_eigen(const dvec& eigenvalues,
                  const py::object& eigenvectors,
                  const Eigen::VectorXd& x0,
                  const Eigen::VectorXd& xtilde,
                  const py::dict& params,
                  const schedule_spec& schedule,
                  double horizon,
                  const py::dict& options) {
  const std::vector<double> lam(eigenvalues.data(), eigenvalues.data() + eigenvalues.size());
  const vt::schedule gamma = make_schedule(schedule);
  const vt::problem_parameters par = volterra_parameters(params);
  const hs::law_options o = make_law_options(options);
  const bool dense = !eigenvectors.is_none();
  Eigen::MatrixXd u;
  if (dense) u = eigenvectors.cast<Eigen::MatrixXd>();
  const auto d = static_cast<long long>(lam.size());
  py::gil_scoped_release release;
  hs::eigenbasis basis = dense ? hs::eigenbasis::dense(std::move(u)) : hs::eigenbasis::identity(d);
  return std::make_shared<hs::gaussian_law>(std::move(basis), lam, x0, xtilde, par, gamma, horizon,
                                            o);
}

law_ptr law_covariance(const Eigen::MatrixXd& sigma_matrix,
                       const Eigen::VectorXd& x0,
                       const Eigen::VectorXd& xtilde,
                       const py::dict& params,
                       const schedule_spec& schedule,
                       double horizon,
                       const py::dict& options) {
  const vt::schedule gamma = make_schedule(schedule);
  const vt::problem_parameters par = volterra_parameters(params);
  const hs::law_options o = make_law_options(options);
  py::gil_scoped_release release;
  return std::make_shared<hs::gaussian_law>(
      hs::gaussian_law::from_covariance(sigma_matrix, x0, xtilde, par, gamma, horizon, o));
}

law_ptr law_two_level(double bulk,
                      double spike,
                      const Eigen::VectorXd& x0,
                      const Eigen::VectorXd& xtilde,
                      const py::dict& params,
                      const schedule_spec& schedule,
                      double horizon,
                      const py::dict& options) {
  const vt::schedule gamma = make_schedule(schedule);
  const vt::problem_parameters par = volterra_parameters(params);
  const hs::law_options o = make_law_options(options);
  const auto d = static_cast<long long>(x0.size());
  py::gil_scoped_release release;
  return std::make_shared<hs::gaussian_law>(
      hs::gaussian_law::two_level(d, bulk, spike, x0, xtilde, par, gamma, horizon, o));
}

// ---- records, datasets, pairs -----------------------------------------------------------------

hs::dataset make_dataset(const Eigen::MatrixXd& features, const Eigen::VectorXd& labels) {
  if (features.rows() != labels.size())
    throw std::invalid_argument("labels: must have one entry per row of features (" +
                                std::to_string(features.rows()) + "), got " +
                                std::to_string(labels.size()));
  return hs::dataset{features, labels};
}

std::vector<hs::record_pair> make_pairs(const ivec& pairs) {
  if (pairs.ndim() != 2 || pairs.shape(1) != 2)
    throw std::invalid_argument("pairs: must be an array of shape (k, 2) of record indices");
  std::vector<hs::record_pair> out(static_cast<std::size_t>(pairs.shape(0)));
  const long long* p = pairs.data();
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {p[2 * i], p[2 * i + 1]};
  return out;
}

py::array_t<long long> pairs_array(const std::vector<hs::record_pair>& pairs) {
  py::array_t<long long> out({static_cast<py::ssize_t>(pairs.size()), py::ssize_t{2}});
  auto w = out.mutable_unchecked<2>();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    w(static_cast<py::ssize_t>(i), 0) = pairs[i].first;
    w(static_cast<py::ssize_t>(i), 1) = pairs[i].second;
  }
  return out;
}

hs::renyi_order parse_order(const std::string& s) {
  if (s == "forward") return hs::renyi_order::forward;
  if (s == "paper") return hs::renyi_order::paper;
  if (s == "symmetric") return hs::renyi_order::symmetric;
  throw std::invalid_argument("order: must be 'forward', 'paper' or 'symmetric', got '" + s + "'");
}

hs::mixture_options make_mixture(const py::dict& o) {
  hs::mixture_options m;
  if (o.contains("order")) m.order = parse_order(o["order"].cast<std::string>());
  if (o.contains("mixture")) {
    const auto s = o["mixture"].cast<std::string>();
    if (s == "continuous")
      m.positions = hs::position_mixture::continuous;
    else if (s == "discrete")
      m.positions = hs::position_mixture::discrete;
    else
      throw std::invalid_argument("mixture: must be 'continuous' or 'discrete', got '" + s + "'");
  }
  if (o.contains("relative_tolerance"))
    m.relative_tolerance = o["relative_tolerance"].cast<double>();
  if (o.contains("absolute_tolerance"))
    m.absolute_tolerance = o["absolute_tolerance"].cast<double>();
  if (o.contains("max_intervals")) m.max_intervals = o["max_intervals"].cast<long long>();
  if (o.contains("per_pair")) m.per_pair = o["per_pair"].cast<bool>();
  return m;
}

// ---- divergences and RDP ------------------------------------------------------------------------

double renyi(const hs::gaussian_law& law,
             const Eigen::VectorXd& a1,
             double b1,
             const Eigen::VectorXd& a2,
             double b2,
             const std::vector<double>& times,
             double s,
             double alpha,
             const std::string& order,
             const std::string& release) {
  const hs::record r1{a1, b1}, r2{a2, b2};
  const hs::renyi_order o = parse_order(order);
  if (release == "last") {
    if (times.size() != 1) throw std::invalid_argument("t: the last release takes one time");
    return hs::renyi_divergence(law, r1, r2, times[0], s, alpha, o);
  }
  if (release == "iterates") return hs::renyi_divergence_iterates(law, r1, r2, times, s, alpha, o);
  if (release == "average") return hs::renyi_divergence_average(law, r1, r2, times, s, alpha, o);
  throw std::invalid_argument("release: must be 'last', 'iterates' or 'average', got '" + release +
                              "'");
}

py::dict value_dict(const hs::rdp_value& v) {
  py::dict d = status_dict(v);
  d["time"] = v.time;
  d["epsilon"] = v.epsilon;
  d["abs_error"] = v.abs_error;
  d["law_error"] = v.law_error;
  d["pair_epsilons"] = as_array(v.pair_epsilons);
  d["worst_pair"] = v.worst_pair;
  d["kind"] = std::string(to_string(v.kind));
  return d;
}

py::dict hsgd_rdp(const hs::gaussian_law& law,
             const Eigen::MatrixXd& features,
             const Eigen::VectorXd& labels,
             const ivec& pairs,
             const std::vector<double>& times,
             double alpha,
             const std::string& release,
             const py::dict& options) {
  const hs::dataset data = make_dataset(features, labels);
  const std::vector<hs::record_pair> p = make_pairs(pairs);
  const hs::mixture_options mo = make_mixture(options);
  if (release == "last") {
    hs::rdp_trajectory tr;
    {
      py::gil_scoped_release release_gil;
      tr = hs::last_iterate_rdp(law, data, p, times, alpha, mo);
    }
    py::dict d = status_dict(tr);
    d["alpha"] = tr.alpha;
    d["order"] = std::string(hs::to_string(tr.order));
    d["kind"] = std::string(to_string(tr.kind));
    py::list values;
    for (const hs::rdp_value& v : tr.values) values.append(value_dict(v));
    d["values"] = values;
    return d;
  }
  hs::rdp_value v;
  if (release == "iterates") {
    py::gil_scoped_release release_gil;
    v = hs::iterates_rdp(law, data, p, times, alpha, mo);
  } else if (release == "average") {
    py::gil_scoped_release release_gil;
    v = hs::average_rdp(law, data, p, times, alpha, mo);
  } else {
    throw std::invalid_argument("release: must be 'last', 'iterates' or 'average', got '" +
                                release + "'");
  }
  py::dict d = status_dict(v);
  d["alpha"] = alpha;
  d["order"] = std::string(hs::to_string(mo.order));
  d["kind"] = std::string(to_string(v.kind));
  py::list values;
  values.append(value_dict(v));
  d["values"] = values;
  return d;
}

py::dict epsilon_delta(const std::vector<double>& alphas,
                       const std::vector<double>& rdp_eps,
                       double delta) {
  const divergence::rdp_epsilon_result r = hs::epsilon_delta(alphas, rdp_eps, delta);
  py::dict d = status_dict(r);
  d["epsilon"] = r.value;
  d["alpha"] = r.alpha;
  d["conversion"] = std::string(divergence::to_string(r.conversion));
  d["kind"] = std::string(to_string(r.kind));  // hsgd::epsilon_delta's label (approximation)
  return d;
}

py::array_t<long long> all_pairs(long long n) {
  return pairs_array(hs::all_pairs(n));
}

py::array_t<long long> extreme_pairs(const Eigen::MatrixXd& features,
                                     const Eigen::VectorXd& labels,
                                     long long count) {
  return pairs_array(hs::extreme_label_pairs(make_dataset(features, labels), count));
}

py::array_t<double> mean_gap(const hs::gaussian_law& law,
                             const Eigen::MatrixXd& features,
                             const Eigen::VectorXd& labels,
                             const ivec& pairs,
                             double s) {
  return as_array(hs::mean_gap_proxy(law, make_dataset(features, labels), make_pairs(pairs), s));
}

py::array_t<long long> top_pairs(const hs::gaussian_law& law,
                                 const Eigen::MatrixXd& features,
                                 const Eigen::VectorXd& labels,
                                 const ivec& pairs,
                                 double s,
                                 long long count) {
  return pairs_array(
      hs::top_pairs_by_proxy(law, make_dataset(features, labels), make_pairs(pairs), s, count));
}

}  // namespace

void bind_hsgd(py::module_& m) {
  py::class_<hs::gaussian_law, law_ptr>(
      m, "HsgdLaw",
      "Low-level: the Gaussian law N(m(t), V(t)) of linearised noisy HSGD (LKSP25 eq. (10)) "
      "on [0, horizon]; use dpkit.hsgd.law.")
      .def_property_readonly("dimension", &hs::gaussian_law::dimension)
      .def_property_readonly("horizon", &hs::gaussian_law::horizon)
      .def_property_readonly("group_count", &hs::gaussian_law::group_count)
      .def_property_readonly(
          "problem", [](const hs::gaussian_law& l) { return volterra_problem_dict(l.problem()); })
      .def_property_readonly(
          "termination",
          [](const hs::gaussian_law& l) { return std::string(to_string(l.status().termination)); })
      .def_property_readonly("message",
                             [](const hs::gaussian_law& l) { return l.status().message; })
      .def_property_readonly("interpolation_error", &hs::gaussian_law::interpolation_error)
      .def_property_readonly("grid", [](const hs::gaussian_law& l) { return as_array(l.grid()); })
      .def_property_readonly("x0", [](const hs::gaussian_law& l) { return as_array(l.x0()); })
      .def_property_readonly("xstar", [](const hs::gaussian_law& l) { return as_array(l.xstar()); })
      .def_property_readonly("basis_kind",
                             [](const hs::gaussian_law& l) {
                               switch (l.basis().type()) {
                                 case hs::eigenbasis::kind::identity:
                                   return std::string("identity");
                                 case hs::eigenbasis::kind::dense:
                                   return std::string("dense");
                                 case hs::eigenbasis::kind::householder:
                                   return std::string("householder");
                               }
                               return std::string("?");
                             })
      .def("to_eigen", [](const hs::gaussian_law& l,
                          const Eigen::VectorXd& x) { return as_array(l.basis().to_eigen(x)); })
      .def("Gamma", &hs::gaussian_law::Gamma, py::arg("t"))
      .def("P", &hs::gaussian_law::P, py::arg("t"))
      .def(
          "mean", [](const hs::gaussian_law& l, double t) { return as_array(l.mean(t)); },
          py::arg("t"))
      .def(
          "variances", [](const hs::gaussian_law& l, double t) { return as_array(l.variances(t)); },
          py::arg("t"));

  m.def("hsgd_law_eigen", &law_eigen, py::arg("eigenvalues"), py::arg("eigenvectors"),
        py::arg("x0"), py::arg("xtilde"), py::arg("params"), py::arg("schedule"),
        py::arg("horizon"), py::arg("options"),
        "Low-level: the law for Sigma = U diag(eigenvalues) U^T (U = eigenvectors, or the "
        "identity when None); x0, xtilde in original coordinates.");
  m.def("hsgd_law_covariance", &law_covariance, py::arg("sigma_matrix"), py::arg("x0"),
        py::arg("xtilde"), py::arg("params"), py::arg("schedule"), py::arg("horizon"),
        py::arg("options"), "Low-level: the law for a dense PSD Sigma (eigendecomposition).");
  m.def("hsgd_law_two_level", &law_two_level, py::arg("bulk"), py::arg("spike"), py::arg("x0"),
        py::arg("xtilde"), py::arg("params"), py::arg("schedule"), py::arg("horizon"),
        py::arg("options"),
        "Low-level: the law for Sigma = bulk I + (spike - bulk) u u^T, u = 1/sqrt(d) "
        "(Householder basis; LKSP25's design is bulk = 1/(12d), spike = 1/4 + 1/(12d)).");
  m.def("hsgd_renyi", &renyi, py::arg("law"), py::arg("a1"), py::arg("b1"), py::arg("a2"),
        py::arg("b2"), py::arg("times"), py::arg("s"), py::arg("alpha"), py::arg("order"),
        py::arg("release"),
        "Low-level: D_alpha of the two neighbouring processes (record 1 vs record 2 used at s) "
        "for the last iterate at times[0], the iterates at times, or their average.");
  m.def("hsgd_rdp", &hsgd_rdp, py::arg("law"), py::arg("features"), py::arg("labels"), py::arg("pairs"),
        py::arg("times"), py::arg("alpha"), py::arg("release"), py::arg("options"),
        "Low-level: eps_alpha of the last iterate at each time (release 'last'), or of the "
        "joint/average release of the iterates at times. options: order, mixture, "
        "relative_tolerance, absolute_tolerance, max_intervals, per_pair.");
  m.def("hsgd_epsilon_delta", &epsilon_delta, py::arg("alphas"), py::arg("rdp"), py::arg("delta"),
        "Low-level: epsilon at delta from eps_alpha at several orders (best conversion).");
  m.attr("hsgd_privacy_caveat") = std::string(dpkit::hsgd::kPrivacyCaveat);
  m.def("hsgd_all_pairs", &all_pairs, py::arg("n"), "All pairs i < j < n, shape (k, 2).");
  m.def("hsgd_extreme_pairs", &extreme_pairs, py::arg("features"), py::arg("labels"),
        py::arg("count"), "The count largest-label x count smallest-label records.");
  m.def("hsgd_mean_gap", &mean_gap, py::arg("law"), py::arg("features"), py::arg("labels"),
        py::arg("pairs"), py::arg("s"), "The mean-gap proxy h |r1 a1 - r2 a2| of each pair at s.");
  m.def("hsgd_top_pairs", &top_pairs, py::arg("law"), py::arg("features"), py::arg("labels"),
        py::arg("pairs"), py::arg("s"), py::arg("count"),
        "The count pairs with the largest mean-gap proxy at s.");
}

}  // namespace dpkit::python
