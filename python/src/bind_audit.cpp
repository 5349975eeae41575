// Python bindings: the canary-score audit (dpkit/audit/canary_scores.hpp). dpkit/_audit.py
// converts the arguments and wraps the rows; the library checks every value, and its
// argument_error reaches Python as dpkit's ArgumentError with the argument's name (the
// keywords are the library's names: delta, confidence, split_fraction, guesses, fpr, ...).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <span>
#include <string>

#include "bindings.hpp"
#include "dpkit/audit/canary_scores.hpp"
#include "dpkit/core/check.hpp"

namespace py = pybind11;
namespace audit = dpkit::audit;

namespace dpkit::python {
namespace {

using scores_array = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::span<const double> span_of(const scores_array& a, const char* name) {
  if (a.ndim() != 1)
    throw_domain_error("audit_scores", name, std::to_string(a.ndim()) + " dimensions",
                       "a one-dimensional array of scores");
  return {a.data(), static_cast<std::size_t>(a.size())};
}

py::dict row_dict(const audit::audit_statistic& s) {
  py::dict d;
  d["statistic"] = s.statistic;
  d["kind"] = std::string(to_string(s.kind));
  for (const audit::audit_field& f : audit::reported_fields(s)) {
    const py::str key(std::string(f.name));
    if (f.integer)
      d[key] = static_cast<long long>(f.value);
    else
      d[key] = f.value;
  }
  d["method"] = s.method;
  return d;
}

}  // namespace

void bind_audit(py::module_& m) {
  m.def(
      "audit_canary_scores",
      [](const scores_array& in_scores, const scores_array& out_scores, double delta,
         double confidence, const std::string& threshold_strategy, double split_fraction,
         std::uint64_t seed, bool two_sided, double fpr, bool one_run,
         std::optional<std::size_t> guesses, std::optional<double> claim_epsilon) {
        audit::canary_audit_options o;
        o.delta = delta;
        o.confidence = confidence;
        const std::optional<audit::threshold_strategy> s =
            audit::parse_threshold_strategy(threshold_strategy);
        if (!s)
          throw_domain_error("audit_scores", "threshold_strategy", "'" + threshold_strategy + "'",
                             "'bonferroni' or 'split'");
        o.strategy = *s;
        o.split_fraction = split_fraction;
        o.seed = seed;
        o.two_sided = two_sided;
        o.fpr = fpr;
        o.one_run = one_run;
        o.guesses = guesses;
        if (claim_epsilon) o.claim_epsilon = *claim_epsilon;
        const auto in = span_of(in_scores, "in_scores");
        const auto out = span_of(out_scores, "out_scores");
        audit::canary_audit a;
        {
          py::gil_scoped_release release;
          a = audit::audit_canary_scores(in, out, o);
        }
        py::list rows;
        for (const audit::audit_statistic& r : a.rows) rows.append(row_dict(r));
        py::dict d;
        d["rows"] = rows;
        d["n_in"] = a.n_in;
        d["n_out"] = a.n_out;
        d["primary"] = a.primary;
        d["verdict"] = a.verdict;
        return d;
      },
      py::arg("in_scores"), py::arg("out_scores"), py::arg("delta"), py::arg("confidence"),
      py::arg("threshold_strategy"), py::arg("split_fraction"), py::arg("seed"),
      py::arg("two_sided"), py::arg("fpr"), py::arg("one_run"), py::arg("guesses"),
      py::arg("claim_epsilon"),
      "The canary-score audit (dpkit/audit/canary_scores.hpp); use dpkit.audit_scores");
}

}  // namespace dpkit::python
