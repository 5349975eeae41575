#pragma once
// Real data for the reference simulator: IDX files (the format of MNIST and Fashion-MNIST,
// LeCun, Cortes & Burges, "The MNIST database of handwritten digits", and Xiao, Rasul &
// Vollgraf 2017, "Fashion-MNIST", arXiv:1708.07747), plain or gzip-compressed, read into a
// `dataset` with a stated pixel normalisation and a selection of classes and examples.
//
// The IDX format: two zero bytes, a type code (0x08 unsigned byte, 0x09 signed byte, 0x0B
// 16-bit, 0x0C 32-bit integer, 0x0D float, 0x0E double), the number of dimensions r (1 byte),
// then r big-endian 32-bit sizes and the data, big-endian, in C order (last index fastest).
// Images are n×rows×cols (or any n×…); labels are n integers.
//
// Compression is recognised by the file's first bytes (the gzip magic 1f 8b), never by its
// name; zlib's gzread reads plain files unchanged.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "dpkit/sim/dataset.hpp"

namespace dpkit::sim {

/// The element type of an IDX file: its type code.
enum class idx_type : std::uint8_t {
  u8 = 0x08,
  i8 = 0x09,
  i16 = 0x0B,
  i32 = 0x0C,
  f32 = 0x0D,
  f64 = 0x0E
};

/// The size in bytes of one element of type t (1, 1, 2, 4, 4, 8).
std::size_t idx_element_size(idx_type t) noexcept;

/// An IDX array as stored: the type, the sizes of its dimensions (outermost first) and the raw
/// big-endian bytes of its elements in C order. Kept as bytes so that a 60 000-image file costs
/// 47 MB, not 376 MB of doubles; at(i) decodes element i exactly (every IDX type converts to
/// double without rounding, except 32-bit integers beyond 2^53, which IDX never reaches).
struct idx_array {
  idx_type type = idx_type::u8;
  std::vector<std::size_t> shape;   ///< dimension sizes, outermost first
  std::vector<std::uint8_t> bytes;  ///< size() · idx_element_size(type) bytes

  /// The number of elements (the product of the shape; 1 for an empty shape).
  std::size_t size() const noexcept;
  /// Element i (flat C-order index) as a double. Precondition: i < size().
  double at(std::size_t i) const noexcept;
};

/// Reads an IDX file, plain or gzip-compressed (recognised by its first two bytes).
///
/// Throws std::runtime_error, naming the file, when it cannot be opened, is not valid gzip,
/// does not start with the IDX magic (two zero bytes, a known type code, 1 to 8 dimensions),
/// has a zero dimension, holds more than 2^40 bytes of data, ends before its data does, or has
/// bytes after them.
idx_array read_idx(const std::filesystem::path& path);

/// Writes `array` as an IDX file, gzip-compressed when `gzip` is true (zlib, default level).
/// Lets tests and users make small IDX files. Throws std::domain_error if the shape is empty,
/// has a zero entry or more than 8 dimensions, a size exceeds 2^32 − 1, or bytes.size() does not
/// match; std::runtime_error if the file cannot be written.
void write_idx(const idx_array& array, const std::filesystem::path& path, bool gzip = false);

/// How image values become features.
enum class pixel_scaling {
  raw,        ///< the stored values (0…255 for images)
  unit,       ///< x/255 ∈ [0, 1]
  symmetric,  ///< x/127.5 − 1 ∈ [−1, 1] (a fixed map: no statistic of the data is used)
  standard    ///< per feature (x − mean)/sd over the selected examples (sd = 0: x − mean);
              ///< a statistic of the data — not private unless computed on public data
};

/// "raw", "unit", "symmetric", "standard".
std::string_view to_string(pixel_scaling s) noexcept;
/// The inverse of to_string; throws std::domain_error naming the accepted names.
pixel_scaling pixel_scaling_from_string(std::string_view name);

/// Which examples of an IDX pair become the dataset, and how.
struct idx_selection {
  /// The classes kept, by their stored label; empty keeps every class. Kept classes are
  /// renumbered 0, …, K−1 in the order given here (empty: the sorted distinct labels), so the
  /// dataset's labels are class indices whatever the stored values.
  std::vector<long> classes;
  /// At most this many examples of each kept class (the first ones in file order), one entry per
  /// entry of `classes` (empty: no cap). Long-tailed subsets keep few examples of rare classes.
  std::vector<std::size_t> per_class;
  /// At most this many examples in all (the first ones in file order after the class
  /// selection); 0: no cap.
  std::size_t max_examples = 0;
  pixel_scaling scaling = pixel_scaling::unit;
  /// Each example's feature vector (after scaling) is scaled down to Euclidean norm at most
  /// this (BSA24 §D.2 clips MNIST images to norm 8); +inf: no clipping.
  double row_norm_clip = std::numeric_limits<double>::infinity();
  /// Appends a constant feature 1 after the pixels (an intercept), after the clipping.
  bool bias = false;
};

/// The dataset of an IDX pair: images (n × …, every trailing dimension flattened into the d
/// features, C order) and labels (n integers), selected and scaled by `selection`. Labels are
/// the class indices 0, …, K−1 of the kept classes (see idx_selection::classes).
///
/// Throws std::runtime_error from read_idx; std::domain_error, naming the file, when the images
/// have fewer than 2 dimensions, the labels are not one-dimensional, the counts differ, a label
/// is not an integer, a requested class never occurs, per_class has another size than classes,
/// the selection is empty, row_norm_clip is not positive, or a value is not finite.
dataset read_idx_dataset(const std::filesystem::path& images,
                         const std::filesystem::path& labels,
                         const idx_selection& selection = {});

/// The four files of Fashion-MNIST (Xiao, Rasul & Vollgraf 2017) in `directory`: the split
/// "train" (60 000 examples) or "test" (10 000), images and labels; each name is tried with
/// ".gz" and without. An empty `directory` means $DPKIT_FASHION_MNIST_DIR when set, else
/// /usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist package).
struct idx_pair {
  std::filesystem::path images, labels;
};
/// Throws std::runtime_error, saying how to install the data, when a file is missing; and
/// std::domain_error when split is neither "train" nor "test".
idx_pair fashion_mnist_files(std::string_view split, const std::filesystem::path& directory = {});

}  // namespace dpkit::sim
