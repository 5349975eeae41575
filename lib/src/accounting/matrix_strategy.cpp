// Strategy matrices of matrix-factorization mechanisms: construction, the --strategy spec, files,
// and the error on prefix sums (accounting/matrix_mechanism.hpp).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpkit/accounting/matrix_mechanism.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/csv.hpp"
#include "dpkit/core/parse.hpp"

namespace dpkit::accounting {
namespace {

std::string number_text(double x) { return format_value(x); }

// The comma-separated numbers of a spec's argument; `what` names them in messages.
std::vector<double> numbers(std::string_view text, std::string_view spec, std::string_view what) {
  std::vector<double> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view cell = trim(text.substr(start, comma - start));
    const std::optional<double> v = parse_finite(cell);
    if (!v)
      throw std::invalid_argument("strategy '" + std::string(spec) + "': '" + std::string(cell) +
                                  "' is not a finite number (" + std::string(what) + ")");
    out.push_back(*v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

constexpr const char* kSpecForms =
    "identity, toeplitz:c0,c1,..., blt:decay:scale,..., sqrt, sqrt:BANDS, lambda:L or file:PATH";

}  // namespace

strategy strategy::identity() {
  strategy s;
  s.kind_ = kind::identity;
  s.parameters_ = {1.0};
  return s;
}

strategy strategy::toeplitz(std::vector<double> coefficients) {
  constexpr const char* kFn = "strategy::toeplitz";
  if (coefficients.empty()) throw_domain_error(kFn, "the number of coefficients", "0", ">= 1");
  for (double c : coefficients) check_finite(kFn, "a coefficient", c);
  if (coefficients[0] == 0) throw_domain_error(kFn, "c0", 0.0, "nonzero (C must be invertible)");
  strategy s;
  s.kind_ = kind::toeplitz;
  s.parameters_ = std::move(coefficients);
  return s;
}

strategy strategy::blt(std::vector<double> decays, std::vector<double> scales) {
  constexpr const char* kFn = "strategy::blt";
  if (decays.empty()) throw_domain_error(kFn, "the number of buffers", "0", ">= 1");
  if (decays.size() != scales.size())
    throw_domain_error(kFn, "the number of scales", format_value(static_cast<long long>(scales.size())),
                       "the number of decays, " + format_value(static_cast<long long>(decays.size())));
  for (double t : decays)
    if (!(t > -1 && t < 1)) throw_domain_error(kFn, "a decay", t, "in (-1, 1)");
  for (double w : scales) check_finite(kFn, "a scale", w);
  strategy s;
  s.kind_ = kind::blt;
  s.parameters_ = std::move(decays);
  s.parameters_.insert(s.parameters_.end(), scales.begin(), scales.end());
  return s;
}

strategy strategy::square_root(long long bands) {
  if (bands < 0) throw_domain_error("strategy::square_root", "bands", format_value(bands), ">= 0");
  strategy s;
  s.kind_ = kind::square_root;
  s.parameters_ = {static_cast<double>(bands)};
  return s;
}

strategy strategy::correlated(double correlation) {
  if (!(correlation >= 0 && correlation < 1))
    throw_domain_error("strategy::correlated", "correlation", correlation, "in [0, 1)");
  strategy s;
  s.kind_ = kind::correlated;
  s.parameters_ = {correlation};
  return s;
}

strategy strategy::dense(std::vector<std::vector<double>> rows) {
  constexpr const char* kFn = "strategy::dense";
  const auto t = static_cast<long long>(rows.size());
  if (t == 0) throw_domain_error(kFn, "the number of rows", "0", ">= 1");
  strategy s;
  s.kind_ = kind::dense;
  s.size_ = t;
  s.dense_.reserve(static_cast<std::size_t>(t * t));
  for (long long r = 0; r < t; ++r) {
    const std::vector<double>& row = rows[static_cast<std::size_t>(r)];
    if (static_cast<long long>(row.size()) != t)
      throw std::invalid_argument("row " + std::to_string(r + 1) + " of the strategy has " +
                                  std::to_string(row.size()) + " entries, but the matrix has " +
                                  std::to_string(t) + " rows (it must be square)");
    for (long long c = 0; c < t; ++c) {
      const double x = row[static_cast<std::size_t>(c)];
      if (!std::isfinite(x))
        throw std::invalid_argument("entry (" + std::to_string(r + 1) + ", " +
                                    std::to_string(c + 1) + ") of the strategy is " +
                                    number_text(x) + ", but must be finite");
      if (c > r && x != 0)
        throw std::invalid_argument("entry (" + std::to_string(r + 1) + ", " +
                                    std::to_string(c + 1) + ") of the strategy is " +
                                    number_text(x) +
                                    ", above the diagonal: C must be lower-triangular");
      if (c == r && x == 0)
        throw std::invalid_argument("diagonal entry " + std::to_string(r + 1) +
                                    " of the strategy is 0: C must be invertible");
      s.dense_.push_back(x);
    }
  }
  return s;
}

strategy strategy::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  std::vector<std::vector<double>> rows;
  std::vector<csv_record> records;
  try {
    records = parse_csv(text.str());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ":" + e.what());
  }
  for (const csv_record& rec : records) {
    std::vector<double> row;
    for (const std::string& cell : rec.cells) {
      const std::optional<double> v = parse_finite(trim(cell));
      if (!v)
        throw std::runtime_error(path + ":" + std::to_string(rec.line) + ": '" + cell +
                                 "' is not a finite number (a strategy file is T lines of T "
                                 "numbers, the lower-triangular C row by row)");
      row.push_back(*v);
    }
    rows.push_back(std::move(row));
  }
  try {
    strategy s = dense(std::move(rows));
    s.source_ = path;
    return s;
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

strategy strategy::parse(std::string_view spec) {
  const std::string whole(spec);
  const std::size_t colon = spec.find(':');
  const std::string_view name = trim(spec.substr(0, colon));
  const std::string_view arg =
      colon == std::string_view::npos ? std::string_view() : spec.substr(colon + 1);
  const bool has_arg = colon != std::string_view::npos;
  auto no_arg = [&](std::string_view form) {
    if (has_arg)
      throw std::invalid_argument("strategy '" + whole + "': " + std::string(form) +
                                  " takes no argument");
  };
  auto needs_arg = [&](std::string_view form) {
    if (!has_arg || trim(arg).empty())
      throw std::invalid_argument("strategy '" + whole + "': " + std::string(form) +
                                  " needs its numbers after a colon, e.g. " +
                                  std::string(form == "toeplitz" ? "toeplitz:1,0.5,0.25"
                                              : form == "blt"    ? "blt:0.9:0.3,0.5:0.1"
                                                                 : "lambda:0.5"));
  };
  try {
    if (same_name(name, "identity")) {
      no_arg("identity");
      return identity();
    }
    if (same_name(name, "toeplitz")) {
      needs_arg("toeplitz");
      return toeplitz(numbers(arg, whole, "a Toeplitz coefficient"));
    }
    if (same_name(name, "sqrt")) {
      if (!has_arg) return square_root(0);
      const std::optional<long long> b = parse_integer(trim(arg));
      if (!b || *b < 1)
        throw std::invalid_argument("strategy '" + whole + "': the band count '" +
                                    std::string(trim(arg)) + "' must be a whole number >= 1");
      return square_root(*b);
    }
    if (same_name(name, "lambda")) {
      needs_arg("lambda");
      const std::optional<double> l = parse_finite(trim(arg));
      if (!l || !(*l >= 0 && *l < 1))
        throw std::invalid_argument("strategy '" + whole + "': the correlation '" +
                                    std::string(trim(arg)) + "' must be a number in [0, 1)");
      return correlated(*l);
    }
    if (same_name(name, "blt")) {
      needs_arg("blt");
      std::vector<double> decays, scales;
      std::size_t start = 0;
      while (true) {
        const std::size_t comma = arg.find(',', start);
        const std::string_view pair = trim(arg.substr(start, comma - start));
        const std::size_t sep = pair.find(':');
        if (sep == std::string_view::npos)
          throw std::invalid_argument("strategy '" + whole + "': the buffer '" +
                                      std::string(pair) +
                                      "' must be DECAY:SCALE (e.g. blt:0.9:0.3,0.5:0.1)");
        const std::vector<double> d = numbers(pair.substr(0, sep), whole, "a buffer's decay");
        const std::vector<double> w = numbers(pair.substr(sep + 1), whole, "a buffer's scale");
        if (d.size() != 1 || w.size() != 1)
          throw std::invalid_argument("strategy '" + whole + "': the buffer '" +
                                      std::string(pair) + "' must be DECAY:SCALE");
        if (!(d[0] > -1 && d[0] < 1))
          throw std::invalid_argument("strategy '" + whole + "': the decay " +
                                      number_text(d[0]) + " must lie in (-1, 1)");
        decays.push_back(d[0]);
        scales.push_back(w[0]);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      return blt(std::move(decays), std::move(scales));
    }
    if (same_name(name, "file")) {
      if (!has_arg || trim(arg).empty())
        throw std::invalid_argument("strategy '" + whole + "': file needs a path, e.g. file:C.csv");
      return from_file(std::string(trim(arg)));
    }
  } catch (const argument_error& e) {
    // The library's constructors name their own argument; say it in the spec's words.
    throw std::invalid_argument("strategy '" + whole + "': " + e.name() + " is " + e.value() +
                                ", but must be " + e.constraint());
  }
  throw std::invalid_argument("strategy '" + whole + "' is none of " + std::string(kSpecForms));
}

std::string strategy::describe() const {
  switch (kind_) {
    case kind::identity:
      return "identity (DP-SGD)";
    case kind::toeplitz: {
      const long long b = bands(static_cast<long long>(parameters_.size()));
      return "banded Toeplitz, " + std::to_string(b) + (b == 1 ? " band" : " bands");
    }
    case kind::blt: {
      const std::size_t n = parameters_.size() / 2;
      return "BLT, " + std::to_string(n) + (n == 1 ? " buffer" : " buffers");
    }
    case kind::square_root: {
      const auto b = static_cast<long long>(parameters_[0]);
      return b == 0 ? std::string("square root of the prefix-sum matrix")
                    : "banded square root, " + std::to_string(b) + (b == 1 ? " band" : " bands");
    }
    case kind::correlated:
      return "DP-lambda-CGD, lambda = " + number_text(parameters_[0]);
    case kind::dense:
      return "dense " + std::to_string(size_) + "x" + std::to_string(size_) +
             (source_.empty() ? std::string() : " from " + source_);
  }
  return "strategy";
}

std::optional<long long> strategy::size() const {
  if (kind_ == kind::dense) return size_;
  return std::nullopt;
}

void strategy::check_steps(std::string_view function, long long steps) const {
  check_at_least(function, "steps", steps, 1);
  if (kind_ == kind::dense && steps != size_)
    throw_domain_error(function, "steps", format_value(steps),
                       "the strategy's size, " + format_value(size_) +
                           " (a matrix from a file fixes the number of steps)");
}

std::vector<double> strategy::coefficients(long long steps) const {
  const auto t = static_cast<std::size_t>(steps);
  std::vector<double> c;
  switch (kind_) {
    case kind::identity:
      c = {1.0};
      break;
    case kind::toeplitz:
      c.assign(parameters_.begin(),
               parameters_.begin() + static_cast<std::ptrdiff_t>(std::min(t, parameters_.size())));
      break;
    case kind::blt: {
      const std::size_t n = parameters_.size() / 2;
      c.assign(t, 0.0);
      c[0] = 1.0;
      std::vector<double> power(n, 1.0);  // θ_j^{k−1}
      for (std::size_t k = 1; k < t; ++k) {
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
          sum += parameters_[n + j] * power[j];
          power[j] *= parameters_[j];
        }
        c[k] = sum;
      }
      break;
    }
    case kind::square_root: {
      const auto b = static_cast<std::size_t>(parameters_[0]);
      const std::size_t m = b == 0 ? t : std::min(b, t);
      c.assign(m, 1.0);
      for (std::size_t k = 1; k < m; ++k)
        c[k] = c[k - 1] * static_cast<double>(2 * k - 1) / static_cast<double>(2 * k);
      break;
    }
    case kind::correlated: {
      const double l = parameters_[0];
      if (l == 0) {
        c = {1.0};
        break;
      }
      c.assign(t, 1.0);
      for (std::size_t k = 1; k < t; ++k) c[k] = c[k - 1] * l;
      break;
    }
    case kind::dense:
      throw std::logic_error("strategy::coefficients: a dense strategy is not Toeplitz");
  }
  while (c.size() > 1 && c.back() == 0) c.pop_back();
  return c;
}

long long strategy::bands(long long steps) const {
  if (kind_ != kind::dense) return static_cast<long long>(coefficients(steps).size());
  long long b = 1;
  for (long long r = 0; r < size_; ++r)
    for (long long c = 0; c < r; ++c)
      if (dense_[static_cast<std::size_t>(r * size_ + c)] != 0) b = std::max(b, r - c + 1);
  return b;
}

double strategy::entry(long long steps, long long row, long long column) const {
  if (column > row) return 0;
  if (kind_ == kind::dense) return dense_[static_cast<std::size_t>(row * size_ + column)];
  const std::vector<double> c = coefficients(steps);
  const auto k = static_cast<std::size_t>(row - column);
  return k < c.size() ? c[k] : 0.0;
}

prefix_sum_error strategy_error(const strategy& c, long long steps, double noise_multiplier) {
  constexpr const char* kFn = "strategy_error";
  c.check_steps(kFn, steps);
  check_nonnegative(kFn, "noise_multiplier", noise_multiplier);
  check_finite(kFn, "noise_multiplier", noise_multiplier);
  // Row t of B = A·C⁻¹ has squared norm Q_t; ‖B‖_F² = Σ_t Q_t.
  std::vector<double> row_norms2(static_cast<std::size_t>(steps));
  if (c.is_toeplitz()) {
    // C⁻¹ is Toeplitz with the inverse series d of c (d_0 = 1/c_0, d_k = −Σ_{j≥1} c_j d_{k−j}/c_0),
    // B = A·C⁻¹ is Toeplitz with β_k = Σ_{j≤k} d_j, and row t of B is (β_t, …, β_0).
    const std::vector<double> coef = c.coefficients(steps);
    const auto m = coef.size();
    const auto t = static_cast<std::size_t>(steps);
    if (static_cast<double>(t) * static_cast<double>(m) > 4e10)
      throw_domain_error(kFn, "steps x bands", static_cast<double>(t) * static_cast<double>(m),
                         "<= 4e10 (the error costs that many operations)");
    std::vector<double> d(t);
    double beta = 0, q = 0;
    for (std::size_t k = 0; k < t; ++k) {
      double s = k == 0 ? 1.0 : 0.0;
      for (std::size_t j = 1; j < m && j <= k; ++j) s -= coef[j] * d[k - j];
      d[k] = s / coef[0];
      beta += d[k];
      q += beta * beta;
      row_norms2[k] = q;
    }
  } else {
    // B = A·C⁻¹: row t solves Cᵀ·x = a_t; all rows at once, Bᵀ = C⁻ᵀ·Aᵀ (Eigen's triangular
    // solve, O(T³)).
    const auto n = static_cast<Eigen::Index>(steps);
    Eigen::MatrixXd cm(n, n);
    for (Eigen::Index r = 0; r < n; ++r)
      for (Eigen::Index k = 0; k < n; ++k) cm(r, k) = c.entry(steps, r, k);
    Eigen::MatrixXd at = Eigen::MatrixXd::Zero(n, n);
    for (Eigen::Index r = 0; r < n; ++r)
      for (Eigen::Index k = r; k < n; ++k) at(r, k) = 1.0;  // Aᵀ: column t = a_t
    const Eigen::MatrixXd bt = cm.transpose().triangularView<Eigen::Upper>().solve(at);
    for (Eigen::Index k = 0; k < n; ++k) row_norms2[static_cast<std::size_t>(k)] = bt.col(k).squaredNorm();
  }
  double total = 0, largest = 0;
  for (double q : row_norms2) total += q, largest = std::max(largest, q);
  prefix_sum_error e;
  e.rmse = noise_multiplier * std::sqrt(total / static_cast<double>(steps));
  e.max_error = noise_multiplier * std::sqrt(largest);
  return e;
}

}  // namespace dpkit::accounting
