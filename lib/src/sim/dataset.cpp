#include "dpkit/sim/dataset.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/csv.hpp"

namespace dpkit::sim {
namespace {

std::string count(std::size_t n) {
  return format_value(static_cast<long long>(n));
}

}  // namespace

void check_dataset(std::string_view function, const dataset& data) {
  const auto n = data.features.rows();
  const auto d = data.features.cols();
  check_at_least(function, "the number of examples n", n, 1);
  check_at_least(function, "the number of features d", d, 1);
  if (data.labels.size() != n)
    throw_domain_error(function, "labels.size()",
                       count(static_cast<std::size_t>(data.labels.size())),
                       "features.rows() = " + count(static_cast<std::size_t>(n)));
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!std::isfinite(data.labels(i)))
      throw_domain_error(function, "label " + count(static_cast<std::size_t>(i)), data.labels(i),
                         "finite");
  }
  // Column-major storage: scan column by column, report (row, column).
  for (Eigen::Index j = 0; j < d; ++j)
    for (Eigen::Index i = 0; i < n; ++i)
      if (!std::isfinite(data.features(i, j)))
        throw_domain_error(function,
                           "feature (row " + count(static_cast<std::size_t>(i)) + ", column " +
                               count(static_cast<std::size_t>(j)) + ")",
                           data.features(i, j), "finite");
}

dataset read_dataset_csv(const std::filesystem::path& path, std::string_view label_column) {
  constexpr const char* fn = "read_dataset_csv";
  const csv_table table = read_csv(path);

  std::vector<std::size_t> feature_columns;
  std::size_t label = table.columns.size();
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (table.columns[c] != label_column) {
      feature_columns.push_back(c);
    } else if (label == table.columns.size()) {
      label = c;
    } else {
      throw_domain_error(fn, "label_column", std::string(label_column),
                         "a column that appears once in " + path.string());
    }
  }
  if (label == table.columns.size())
    throw_domain_error(fn, "label_column", std::string(label_column),
                       "a column of " + path.string());
  if (feature_columns.empty())
    throw_domain_error(fn, "the number of feature columns of " + path.string(), "0", ">= 1");
  if (table.rows.empty())
    throw_domain_error(fn, "the number of data rows of " + path.string(), "0", ">= 1");

  const auto n = static_cast<Eigen::Index>(table.rows.size());
  const auto d = static_cast<Eigen::Index>(feature_columns.size());
  dataset data{Eigen::MatrixXd(n, d), Eigen::VectorXd(n)};
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::vector<double>& row = table.rows[static_cast<std::size_t>(i)];
    auto cell = [&](std::size_t c) {
      const double v = row[c];
      if (!std::isfinite(v))
        throw_domain_error(fn,
                           "the cell in column '" + table.columns[c] + "' at " +
                               table.where(static_cast<std::size_t>(i)),
                           v, "finite");
      return v;
    };
    data.labels(i) = cell(label);
    for (Eigen::Index j = 0; j < d; ++j)
      data.features(i, j) = cell(feature_columns[static_cast<std::size_t>(j)]);
  }
  return data;
}

void write_dataset_csv(const dataset& data,
                       const std::filesystem::path& path,
                       std::span<const std::string> comments) {
  constexpr const char* fn = "write_dataset_csv";
  check_dataset(fn, data);
  for (const std::string& c : comments)
    if (c.find_first_of("\r\n") != std::string::npos)
      throw_domain_error(fn, "comment", c, "a single line");

  const Eigen::Index n = data.features.rows(), d = data.features.cols();
  std::vector<std::string> columns;
  for (Eigen::Index j = 0; j < d; ++j) columns.push_back("x" + std::to_string(j));
  columns.emplace_back("y");
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path.string() + ": cannot open for writing");
  // write_csv's layout, row by row from the matrix (no copy of a dataset that can be large).
  write_csv_header(out, columns, std::vector<std::string>(comments.begin(), comments.end()));
  std::string line;
  for (Eigen::Index i = 0; i < n; ++i) {
    line.clear();
    for (Eigen::Index j = 0; j < d; ++j) line.append(csv_number(data.features(i, j))) += ',';
    line.append(csv_number(data.labels(i))) += '\n';
    out << line;
  }
  out.flush();
  if (!out) throw std::runtime_error(path.string() + ": write failed");
}

dataset replace_one(const dataset& data,
                    std::size_t index,
                    const Eigen::Ref<const Eigen::VectorXd>& features,
                    double label) {
  constexpr const char* fn = "replace_one";
  check_dataset(fn, data);
  if (index >= data.size())
    throw_domain_error(fn, "index", count(index), "< n = " + count(data.size()));
  if (static_cast<std::size_t>(features.size()) != data.dimension())
    throw_domain_error(fn, "features.size()", count(static_cast<std::size_t>(features.size())),
                       "d = " + count(data.dimension()));
  for (Eigen::Index j = 0; j < features.size(); ++j)
    if (!std::isfinite(features(j)))
      throw_domain_error(fn, "features(" + count(static_cast<std::size_t>(j)) + ")", features(j),
                         "finite");
  check_finite(fn, "label", label);

  dataset neighbour = data;
  const auto i = static_cast<Eigen::Index>(index);
  neighbour.features.row(i) = features.transpose();
  neighbour.labels(i) = label;
  return neighbour;
}

}  // namespace dpkit::sim
