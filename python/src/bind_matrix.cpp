// Python bindings: matrix-factorization mechanisms (dpkit/accounting/matrix_mechanism.hpp) — the
// certified (ε, δ) bracket, the noise for a budget, the sensitivity and the prefix-sum error of a
// strategy given by its spec ("toeplitz:1,0.5", ...) or as a dense matrix. python/dpkit/
// matrix_mechanism.py converts the arguments and wraps the answers.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "dpkit/accounting/matrix_mechanism.hpp"
#include "dpkit/core/check.hpp"

namespace py = pybind11;
namespace acc = dpkit::accounting;

namespace dpkit::python {
namespace {

using matrix_array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A spec (str) or a square 2-D array: the strategy; ValueError in the spec's words otherwise.
acc::strategy make_strategy(const py::object& s) {
  if (py::isinstance<py::str>(s)) {
    try {
      return acc::strategy::parse(s.cast<std::string>());
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    } catch (const std::runtime_error& e) {
      throw py::value_error(e.what());
    }
  }
  const auto a = s.cast<matrix_array>();
  if (a.ndim() != 2 || a.shape(0) != a.shape(1))
    throw_domain_error("matrix_mechanism", "strategy",
                       std::to_string(a.ndim()) + "-dimensional array",
                       "a spec string or a square lower-triangular matrix");
  const auto n = static_cast<std::size_t>(a.shape(0));
  std::vector<std::vector<double>> rows(n, std::vector<double>(n));
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c = 0; c < n; ++c) rows[r][c] = a.data()[r * n + c];
  try {
    return acc::strategy::dense(std::move(rows));
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string("strategy: ") + e.what());
  }
}

py::dict reduction_dict(const acc::matrix_mechanism_reduction& r) {
  py::dict d;
  d["route"] = r.route;
  d["rounds"] = r.rounds;
  d["sensitivity"] = r.route == "amplified" ? r.round_sensitivity : r.sensitivity.upper;
  d["sensitivity_lower"] = r.route == "amplified" ? r.round_sensitivity : r.sensitivity.lower;
  d["sensitivity_exact"] = r.sensitivity.exact;
  d["description"] = r.description;
  return d;
}

py::dict sensitivity_dict(const acc::sensitivity_bracket& s) {
  py::dict d;
  d["lower"] = s.lower;
  d["upper"] = s.upper;
  d["exact"] = s.exact;
  d["participations"] = s.participations;
  d["method"] = s.method;
  return d;
}

py::dict privacy_dict(const acc::matrix_mechanism_privacy& p) {
  py::dict d = reduction_dict(p.reduction);
  d["lower"] = p.lower;
  d["upper"] = p.upper;
  d["method"] = p.upper_estimate.method;
  if (p.conditional) {
    const acc::conditional_composition& c = *p.conditional;
    py::dict cd;
    cd["evaluated"] = c.evaluated;
    cd["reason"] = c.reason;
    cd["value"] = c.value;
    cd["bad_event_probability"] = c.bad_event_probability;
    cd["pairs"] = c.pairs;
    cd["tail_quantile"] = c.tail_quantile;
    cd["largest_inclusion"] = c.largest_inclusion;
    cd["largest_mixture"] = c.largest_mixture;
    cd["row_types"] = c.row_types;
    cd["method"] = c.method;
    d["conditional"] = cd;
  } else {
    d["conditional"] = py::none();
  }
  return d;
}

}  // namespace

void bind_matrix(py::module_& m) {
  m.def(
      "matrix_mechanism_privacy",
      [](const py::object& strategy, long long steps, double noise_multiplier,
         const std::string& quantity, double at, long long min_separation, double sample_rate,
         long long max_participations, const py::dict& options) {
        const acc::participation part{min_separation, sample_rate, max_participations};
        const acc::strategy c = make_strategy(strategy);
        const acc::pld_options o = make_pld_options(options);
        acc::matrix_mechanism_privacy p;
        {
          py::gil_scoped_release release;
          p = quantity == "epsilon"
                  ? acc::matrix_mechanism_epsilon(c, steps, part, noise_multiplier, at, o)
                  : acc::matrix_mechanism_delta(c, steps, part, noise_multiplier, at, o);
        }
        return privacy_dict(p);
      });
  m.def(
      "matrix_mechanism_calibrate",
      [](const py::object& strategy, long long steps, double target_epsilon, double delta,
         long long min_separation, double sample_rate, long long max_participations,
         double budget_tolerance, const py::dict& options) {
        const acc::strategy c = make_strategy(strategy);
        acc::calibration_options o;
        o.pld = make_pld_options(options);
        o.budget_tolerance = budget_tolerance;
        acc::matrix_mechanism_noise n;
        {
          py::gil_scoped_release release;
          n = acc::matrix_mechanism_calibrate(
              c, steps, {min_separation, sample_rate, max_participations}, target_epsilon, delta, o);
        }
        py::dict d = status_dict(n);
        d["noise_multiplier"] = n.noise_multiplier;
        if (std::isfinite(n.noise_multiplier)) d["privacy"] = privacy_dict(n.privacy);
        return d;
      });
  m.def("strategy_sensitivity",
        [](const py::object& strategy, long long steps, long long min_separation) {
          const acc::sensitivity_bracket s =
              acc::strategy_sensitivity(make_strategy(strategy), steps, min_separation);
          py::dict d = sensitivity_dict(s);
          d["worst_group"] = s.worst_group;
          return d;
        });
  m.def("min_separation_sensitivity", [](const py::object& strategy, long long steps,
                                          long long min_separation, long long max_participations) {
    return sensitivity_dict(acc::min_separation_sensitivity(make_strategy(strategy), steps,
                                                           min_separation, max_participations));
  });
  m.def("strategy_error", [](const py::object& strategy, long long steps, double noise_multiplier) {
    const acc::prefix_sum_error e =
        acc::strategy_error(make_strategy(strategy), steps, noise_multiplier);
    py::dict d;
    d["rmse"] = e.rmse;
    d["max_error"] = e.max_error;
    return d;
  });
  m.def("strategy_describe", [](const py::object& strategy) {
    return make_strategy(strategy).describe();
  });
  m.def("amplified_rounds", &acc::amplified_rounds);
}

}  // namespace dpkit::python
