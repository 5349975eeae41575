#pragma once
// Datasets of the reference simulator: n examples (a_i, y_i) with features a_i ∈ R^d and a real
// label y_i, stored as an n×d matrix and an n-vector; CSV input/output; and the replace-one
// neighbour D′ of a dataset D.
//
// Neighbouring relation (BSA24 §2.3, LKSP25 §2 "neighbouring datasets differ in
// exactly one record"): D and D′ are replace-one neighbours when they have the same size and
// differ in at most one example. A model on D′ is built from replace_one(D, …) (models.hpp);
// the zero-out neighbour is zeroed_example in model.hpp.
#include <Eigen/Dense>
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace dpkit::sim {

/// A dataset D = {(a_i, y_i)}, i = 0, …, n−1 (0-based). Row i of `features` is example i.
/// The labels are doubles whatever the task: a real response (least squares), ±1 (logistic
/// regression) or a class index 0, …, K−1 stored exactly (softmax regression).
struct dataset {
  Eigen::MatrixXd features;  ///< n×d, row i = a_iᵀ
  Eigen::VectorXd labels;    ///< n, entry i = y_i

  /// n, the number of examples.
  std::size_t size() const { return static_cast<std::size_t>(features.rows()); }
  /// d, the number of features.
  std::size_t dimension() const { return static_cast<std::size_t>(features.cols()); }
};

/// Checks that `data` is a usable dataset: n ≥ 1, d ≥ 1, labels.size() == features.rows(), and
/// every feature and label finite (NaN and ±inf are rejected). Throws std::domain_error with the
/// message "<function>: <name> is <value>, but must be <constraint>" naming the first defect
/// (the row and column of a non-finite entry).
void check_dataset(std::string_view function, const dataset& data);

/// Reads a dataset from a CSV table in the format of core's read_csv (csv.hpp: '#' provenance
/// lines, one header row, numeric cells). The column named `label_column` holds the labels;
/// every other column is a feature, in file order (so a file written by write_dataset_csv
/// reads back with its features in the order x0, …, x{d−1}).
///
/// Throws std::runtime_error on I/O and parse errors (from read_csv), and std::domain_error
/// when the label column is absent or appears twice, there is no feature column or no data row,
/// or a cell is NaN or ±inf (the message names the file and line).
dataset read_dataset_csv(const std::filesystem::path& path, std::string_view label_column = "y");

/// Writes `data` as CSV: first one "# <line>" per entry of `comments` (the provenance header of
/// docs/architecture.md, "Numerics"), then the header row x0,x1,…,x{d−1},y, then one row per
/// example. Cells are written with 17 significant digits ("%.17g"), so read_dataset_csv(path)
/// reproduces every double bit for bit (IEEE 754 binary64 round-trips through 17 significant
/// decimal digits).
///
/// Throws std::domain_error if check_dataset fails or a comment contains a line break, and
/// std::runtime_error if the file cannot be written.
void write_dataset_csv(const dataset& data,
                       const std::filesystem::path& path,
                       std::span<const std::string> comments = {});

/// The replace-one neighbour D′ of D: a copy of `data` whose example `index` is replaced by
/// (features, label); every other example is unchanged.
///
/// Throws std::domain_error if check_dataset(data) fails, index ≥ n, features.size() ≠ d, or a
/// new feature or the label is NaN or ±inf.
dataset replace_one(const dataset& data,
                    std::size_t index,
                    const Eigen::Ref<const Eigen::VectorXd>& features,
                    double label);

}  // namespace dpkit::sim
