#include "hsgd_specs.hpp"

#include <cmath>
#include <optional>
#include <sstream>

#include "dpkit/core/parse.hpp"

namespace dpkit::cli::hsgd_specs {

// "name:a,b,c" → name and the numbers.
std::pair<std::string, std::vector<double>> parse_spec(const std::string& flag,
                                                       const std::string& text) {
  const std::size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  std::vector<double> values;
  if (colon != std::string::npos) {
    std::stringstream rest(text.substr(colon + 1));
    std::string cell;
    while (std::getline(rest, cell, ',')) {
      const std::optional<double> v = parse_finite(trim(cell));
      if (!v && parse_number(trim(cell)).status == number_status::underflow)
        throw usage_error(flag + ": '" + cell + "' in '" + text + "' is not a normal number " +
                          underflow_note(trim(cell)));
      if (!v) throw usage_error(flag + ": '" + cell + "' in '" + text + "' is not a number");
      values.push_back(*v);
    }
  }
  return {name, values};
}

void need_count(const std::string& flag,
                const std::string& text,
                const std::vector<double>& v,
                std::size_t lo,
                std::size_t hi,
                const std::string& form) {
  if (v.size() < lo || v.size() > hi)
    throw usage_error(flag + " is '" + text + "', but must be " + form);
}

// An integer part of a spec (GROUPS, K, I, J), refused unless it is an integer in [lo, hi]
// before any conversion: a double beyond 2^63 converted to long long is undefined behaviour (it
// wrapped to -2^63), and 1.5 was truncated silently.
long long spec_integer(const std::string& where, double x, long long lo, long long hi) {
  if (!(x == std::floor(x) && x >= static_cast<double>(lo) && x <= static_cast<double>(hi)))
    throw usage_error(where + " is " + format_number(x) + ", but must be an integer in [" +
                      std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<long long>(x);
}

volterra::schedule build_schedule(const std::string& text, double gamma) {
  // Named references, not structured bindings: the lambdas below capture them (clang's analyzer
  // misreads a captured binding as an uninitialised pointer).
  const auto spec = parse_spec("--schedule", text);
  const std::string& name = spec.first;
  const std::vector<double>& v = spec.second;
  if (name == "constant") {
    need_count("--schedule", text, v, 0, 0, "constant");
    return volterra::schedule::constant(gamma);
  }
  if (name == "step") {
    need_count("--schedule", text, v, 2, 2, "step:FACTOR,INTERVAL");
    return in_spec_words("--schedule", "step:FACTOR,INTERVAL",
                         {{"factor", "FACTOR"}, {"interval", "INTERVAL"}},
                         [&] { return volterra::schedule::step_decay(gamma, v[0], v[1]); });
  }
  if (name == "polynomial") {
    need_count("--schedule", text, v, 2, 2, "polynomial:TIME_SCALE,POWER");
    return in_spec_words("--schedule", "polynomial:TIME_SCALE,POWER",
                         {{"time_scale", "TIME_SCALE"}, {"power", "POWER"}},
                         [&] { return volterra::schedule::polynomial_decay(gamma, v[0], v[1]); });
  }
  if (name == "cosine") {
    need_count("--schedule", text, v, 2, 2, "cosine:GAMMA_MIN,HORIZON");
    return in_spec_words("--schedule", "cosine:GAMMA_MIN,HORIZON",
                         {{"gamma_min", "GAMMA_MIN"}, {"horizon", "HORIZON"}},
                         [&] { return volterra::schedule::cosine(gamma, v[0], v[1]); });
  }
  if (name == "table") {
    // table:t1,g1,t2,g2,... (t = 0 first); the learning rate flag is not used.
    if (v.size() < 2 || v.size() % 2 != 0)
      throw usage_error("--schedule is '" + text + "', but must be table:0,G0,T1,G1,...");
    std::vector<double> t, g;
    for (std::size_t i = 0; i < v.size(); i += 2) {
      t.push_back(v[i]);
      g.push_back(v[i + 1]);
    }
    return in_spec_words("--schedule", "table:0,G0,T1,G1,...", {{"max(rates)", "the largest G"}},
                         [&] { return volterra::schedule::piecewise_linear(t, g); });
  }
  throw usage_error("--schedule is '" + text +
                    "', but must be constant, step:F,I, polynomial:T0,P, cosine:GMIN,T or "
                    "table:0,G0,T1,G1,...");
}

}  // namespace dpkit::cli::hsgd_specs
