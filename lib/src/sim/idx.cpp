#include "dpkit/sim/idx.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

#include "dpkit/core/check.hpp"

namespace dpkit::sim {
namespace {

constexpr std::size_t kMaxDimensions = 8;
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 40;

std::string count(std::size_t n) {
  return format_value(static_cast<long long>(n));
}

bool known_type(std::uint8_t code) {
  switch (code) {
    case 0x08:
    case 0x09:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x0E:
      return true;
    default:
      return false;
  }
}

// zlib's gzFile, closed on every path. gzread decompresses gzip data and passes plain files
// through unchanged ("transparent" reading, zlib.h, gzread), which is how both are read.
struct gz_closer {
  void operator()(gzFile_s* f) const noexcept { gzclose(f); }
};
using gz_handle = std::unique_ptr<gzFile_s, gz_closer>;

class gz_reader {
 public:
  explicit gz_reader(const std::filesystem::path& path) : path_(path.string()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
      throw std::runtime_error("cannot open " + path_ + " (no such file)");
    file_.reset(gzopen(path_.c_str(), "rb"));
    if (!file_) throw std::runtime_error("cannot open " + path_);
    gzbuffer(file_.get(), 1U << 17);
  }

  // Reads up to `size` bytes; returns how many were read (fewer only at the end of the data).
  std::size_t read(void* out, std::size_t size) {
    auto* p = static_cast<unsigned char*>(out);
    std::size_t done = 0;
    while (done < size) {
      // gzread takes an unsigned count: read in chunks of at most 1 GiB.
      const auto chunk = static_cast<unsigned>(std::min<std::size_t>(size - done, 1U << 30));
      const int got = gzread(file_.get(), p + done, chunk);
      if (got < 0) {
        int code = 0;
        const char* what = gzerror(file_.get(), &code);
        throw std::runtime_error(path_ + " is not a readable IDX or gzip file (" +
                                 (what != nullptr ? what : "zlib error") + ")");
      }
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    return done;
  }

  const std::string& name() const { return path_; }

 private:
  std::string path_;
  gz_handle file_;
};

std::uint32_t big_endian_u32(const unsigned char* b) {
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) |
         std::uint32_t{b[3]};
}

}  // namespace

std::size_t idx_element_size(idx_type t) noexcept {
  switch (t) {
    case idx_type::u8:
    case idx_type::i8:
      return 1;
    case idx_type::i16:
      return 2;
    case idx_type::i32:
    case idx_type::f32:
      return 4;
    case idx_type::f64:
      return 8;
  }
  return 1;
}

std::size_t idx_array::size() const noexcept {
  std::size_t n = 1;
  for (std::size_t s : shape) n *= s;
  return n;
}

double idx_array::at(std::size_t i) const noexcept {
  const std::size_t w = idx_element_size(type);
  const unsigned char* b = bytes.data() + i * w;
  std::uint64_t u = 0;
  for (std::size_t k = 0; k < w; ++k) u = (u << 8) | b[k];  // big-endian
  switch (type) {
    case idx_type::u8:
      return static_cast<double>(u);
    case idx_type::i8:
      return static_cast<double>(static_cast<std::int8_t>(static_cast<std::uint8_t>(u)));
    case idx_type::i16:
      return static_cast<double>(static_cast<std::int16_t>(static_cast<std::uint16_t>(u)));
    case idx_type::i32:
      return static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(u)));
    case idx_type::f32: {
      const auto bits = static_cast<std::uint32_t>(u);
      float f = 0;
      std::memcpy(&f, &bits, sizeof f);
      return static_cast<double>(f);
    }
    case idx_type::f64: {
      double d = 0;
      std::memcpy(&d, &u, sizeof d);
      return d;
    }
  }
  return 0;
}

idx_array read_idx(const std::filesystem::path& path) {
  gz_reader in(path);
  const std::string& name = in.name();
  std::array<unsigned char, 4> magic{};
  if (in.read(magic.data(), magic.size()) != magic.size() || magic[0] != 0 || magic[1] != 0 ||
      !known_type(magic[2]) || magic[3] == 0 || magic[3] > kMaxDimensions)
    throw std::runtime_error(
        name +
        " is not an IDX file (it must start with two zero bytes, a type code 0x08, 0x09, 0x0B, "
        "0x0C, 0x0D or 0x0E, and 1 to 8 dimensions)");
  idx_array a;
  a.type = static_cast<idx_type>(magic[2]);
  const std::size_t rank = magic[3];
  std::array<unsigned char, 4 * kMaxDimensions> sizes{};
  if (in.read(sizes.data(), 4 * rank) != 4 * rank)
    throw std::runtime_error(name + " ends inside its header (the " + count(rank) +
                             " dimension sizes)");
  std::uint64_t total = idx_element_size(a.type);
  for (std::size_t k = 0; k < rank; ++k) {
    const std::uint32_t s = big_endian_u32(sizes.data() + 4 * k);
    if (s == 0)
      throw std::runtime_error(name + " has dimension " + count(k) + " of size 0 (an empty array)");
    total *= s;  // ≤ 2^40 · 2^32 before the check below: no overflow of 64 bits
    if (total > kMaxBytes)
      throw std::runtime_error(name + " declares more than 2^40 bytes of data");
    a.shape.push_back(s);
  }
  a.bytes.resize(static_cast<std::size_t>(total));
  const std::size_t got = in.read(a.bytes.data(), a.bytes.size());
  if (got != a.bytes.size())
    throw std::runtime_error(name + " is truncated: its header declares " + count(a.bytes.size()) +
                             " bytes of data, the file holds " + count(got));
  unsigned char extra = 0;
  if (in.read(&extra, 1) != 0)
    throw std::runtime_error(name + " has bytes after the " + count(a.bytes.size()) +
                             " bytes of data its header declares");
  return a;
}

void write_idx(const idx_array& array, const std::filesystem::path& path, bool gzip) {
  constexpr const char* fn = "write_idx";
  check_at_least(fn, "the number of dimensions", static_cast<long long>(array.shape.size()), 1);
  if (array.shape.size() > kMaxDimensions)
    throw_domain_error(fn, "the number of dimensions", count(array.shape.size()), "at most 8");
  for (std::size_t k = 0; k < array.shape.size(); ++k)
    if (array.shape[k] == 0 || array.shape[k] > std::numeric_limits<std::uint32_t>::max())
      throw_domain_error(fn, "dimension " + count(k), count(array.shape[k]), "in [1, 2^32 - 1]");
  if (array.bytes.size() != array.size() * idx_element_size(array.type))
    throw_domain_error(
        fn, "bytes.size()", count(array.bytes.size()),
        "size() * element size = " + count(array.size() * idx_element_size(array.type)));
  std::string header = {0, 0, static_cast<char>(array.type), static_cast<char>(array.shape.size())};
  for (std::size_t s : array.shape)
    for (int shift = 24; shift >= 0; shift -= 8)
      header.push_back(static_cast<char>((s >> shift) & 0xFFU));
  const std::string name = path.string();
  gz_handle f(gzopen(name.c_str(), gzip ? "wb" : "wbT"));  // "T": plain, no compression
  if (!f) throw std::runtime_error("cannot write " + name);
  auto put = [&](const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    while (size > 0) {
      const auto chunk = static_cast<unsigned>(std::min<std::size_t>(size, 1U << 30));
      if (gzwrite(f.get(), p, chunk) != static_cast<int>(chunk))
        throw std::runtime_error("cannot write " + name);
      p += chunk;
      size -= chunk;
    }
  };
  put(header.data(), header.size());
  put(array.bytes.data(), array.bytes.size());
  if (gzclose(f.release()) != Z_OK) throw std::runtime_error("cannot write " + name);
}

std::string_view to_string(pixel_scaling s) noexcept {
  switch (s) {
    case pixel_scaling::raw:
      return "raw";
    case pixel_scaling::unit:
      return "unit";
    case pixel_scaling::symmetric:
      return "symmetric";
    case pixel_scaling::standard:
      return "standard";
  }
  return "unit";
}

pixel_scaling pixel_scaling_from_string(std::string_view name) {
  for (pixel_scaling s :
       {pixel_scaling::raw, pixel_scaling::unit, pixel_scaling::symmetric, pixel_scaling::standard})
    if (to_string(s) == name) return s;
  throw_domain_error("pixel_scaling_from_string", "the scaling", std::string(name),
                     "raw, unit, symmetric or standard");
}

dataset read_idx_dataset(const std::filesystem::path& images,
                         const std::filesystem::path& labels,
                         const idx_selection& selection) {
  constexpr const char* fn = "read_idx_dataset";
  if (!(selection.row_norm_clip > 0))
    throw_domain_error(fn, "row_norm_clip", selection.row_norm_clip, "positive");
  if (!selection.per_class.empty() && selection.per_class.size() != selection.classes.size())
    throw_domain_error(fn, "per_class.size()", count(selection.per_class.size()),
                       "classes.size() = " + count(selection.classes.size()));

  const idx_array y = read_idx(labels);
  if (y.shape.size() != 1)
    throw_domain_error(fn, "the number of dimensions of " + labels.string(), count(y.shape.size()),
                       "1 (one label per example)");
  const std::size_t n_file = y.shape[0];
  std::vector<long> stored(n_file);
  for (std::size_t i = 0; i < n_file; ++i) {
    const double v = y.at(i);
    if (!(std::floor(v) == v) || std::fabs(v) > 1e15)
      throw_domain_error(fn, "label " + count(i) + " of " + labels.string(), v, "an integer");
    stored[i] = static_cast<long>(v);
  }

  // The kept classes and their new indices.
  std::vector<long> classes = selection.classes;
  if (classes.empty()) {
    classes = stored;
    std::sort(classes.begin(), classes.end());
    classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  } else {
    for (std::size_t k = 0; k < classes.size(); ++k) {
      if (std::find(classes.begin(), classes.begin() + static_cast<std::ptrdiff_t>(k),
                    classes[k]) != classes.begin() + static_cast<std::ptrdiff_t>(k))
        throw_domain_error(fn, "class " + format_value(static_cast<long long>(classes[k])),
                           "given twice", "listed once");
      if (std::find(stored.begin(), stored.end(), classes[k]) == stored.end())
        throw_domain_error(fn, "class " + format_value(static_cast<long long>(classes[k])),
                           "absent from " + labels.string(), "a label of the file");
    }
  }

  // Rows kept, in file order.
  std::vector<std::size_t> rows;
  std::vector<double> new_label;
  std::vector<std::size_t> taken(classes.size(), 0);
  for (std::size_t i = 0; i < n_file; ++i) {
    if (selection.max_examples > 0 && rows.size() >= selection.max_examples) break;
    const auto it = std::find(classes.begin(), classes.end(), stored[i]);
    if (it == classes.end()) continue;
    const auto k = static_cast<std::size_t>(it - classes.begin());
    if (!selection.per_class.empty() && taken[k] >= selection.per_class[k]) continue;
    ++taken[k];
    rows.push_back(i);
    new_label.push_back(static_cast<double>(k));
  }
  if (rows.empty()) throw_domain_error(fn, "the selection", "empty", "at least one example");

  const idx_array x = read_idx(images);
  if (x.shape.size() < 2)
    throw_domain_error(fn, "the number of dimensions of " + images.string(), count(x.shape.size()),
                       "at least 2 (examples × features)");
  if (x.shape[0] != n_file)
    throw_domain_error(fn, "the number of images in " + images.string(), count(x.shape[0]),
                       "the number of labels in " + labels.string() + " = " + count(n_file));
  const std::size_t pixels = x.size() / x.shape[0];
  const std::size_t d = pixels + (selection.bias ? 1 : 0);
  const auto n = static_cast<Eigen::Index>(rows.size());

  dataset data;
  data.features.resize(n, static_cast<Eigen::Index>(d));
  data.labels = Eigen::Map<const Eigen::VectorXd>(new_label.data(), n);
  for (Eigen::Index r = 0; r < n; ++r) {
    const std::size_t base = rows[static_cast<std::size_t>(r)] * pixels;
    for (std::size_t j = 0; j < pixels; ++j) {
      const double v = x.at(base + j);
      if (!std::isfinite(v))
        throw_domain_error(fn, "value " + count(base + j) + " of " + images.string(), v, "finite");
      data.features(r, static_cast<Eigen::Index>(j)) = v;
    }
  }
  auto pix = data.features.leftCols(static_cast<Eigen::Index>(pixels));
  switch (selection.scaling) {
    case pixel_scaling::raw:
      break;
    case pixel_scaling::unit:
      pix /= 255.0;
      break;
    case pixel_scaling::symmetric:
      pix = (pix.array() / 127.5 - 1.0).matrix();
      break;
    case pixel_scaling::standard:
      for (Eigen::Index j = 0; j < pix.cols(); ++j) {
        const double mean = pix.col(j).mean();
        pix.col(j).array() -= mean;
        const double sd = std::sqrt(pix.col(j).squaredNorm() / static_cast<double>(n));
        if (sd > 0) pix.col(j) /= sd;
      }
      break;
  }
  if (std::isfinite(selection.row_norm_clip)) {
    for (Eigen::Index r = 0; r < n; ++r) {
      const double norm = pix.row(r).norm();
      if (norm > selection.row_norm_clip) pix.row(r) *= selection.row_norm_clip / norm;
    }
  }
  if (selection.bias) data.features.col(static_cast<Eigen::Index>(pixels)).setOnes();
  check_dataset(fn, data);
  return data;
}

idx_pair fashion_mnist_files(std::string_view split, const std::filesystem::path& directory) {
  if (split != "train" && split != "test")
    throw_domain_error("fashion_mnist_files", "split", std::string(split), "train or test");
  std::filesystem::path dir = directory;
  if (dir.empty()) {
    const char* env = std::getenv("DPKIT_FASHION_MNIST_DIR");
    dir = env != nullptr && *env != '\0'
              ? std::filesystem::path(env)
              : std::filesystem::path("/usr/share/datasets/fashion-mnist");
  }
  const std::string prefix = split == "train" ? "train" : "t10k";
  auto find = [&](const std::string& stem) {
    std::error_code ec;
    for (const std::string& name : {stem + ".gz", stem})
      if (std::filesystem::is_regular_file(dir / name, ec)) return dir / name;
    throw std::runtime_error(
        "Fashion-MNIST: " + (dir / (stem + ".gz")).string() +
        " not found. Install the data with `apt-get install dataset-fashion-mnist` (Debian), or "
        "set DPKIT_FASHION_MNIST_DIR to a directory holding " +
        stem + "[.gz] (https://github.com/zalandoresearch/fashion-mnist)");
  };
  return {find(prefix + "-images-idx3-ubyte"), find(prefix + "-labels-idx1-ubyte")};
}

}  // namespace dpkit::sim
