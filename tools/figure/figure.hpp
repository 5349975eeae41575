#pragma once
// Figures of dpkit: one description of a figure (series with x, y and optional x and y
// intervals, labels, axis scales) and one renderer, gnuplot through a pipe. Used by
// `dpkit plot` (every CSV/JSON output of the program) and by the validation harness (a figure
// per scenario); it knows nothing of scenarios, accountants or the simulator.
//
// Text: titles, axis labels and series names are gnuplot *enhanced* text in UTF-8: Greek
// letters are written as themselves (ε, δ, σ, α, β, μ, κ, λ, η), subscripts and superscripts
// as `ε_{lower}`, `P_t`, `10^{-5}`. A literal _ ^ { } @ & ~ is escaped with a backslash
// (enhanced_escape below does it for text taken from data, such as a file name).
//
// What the renderer guarantees:
//   - an interval is drawn whenever one exists: error bars for x-only, y-only or both
//     intervals (a point without one in a series that has them gets none), or a shaded band
//     for a "lines" series with y intervals only;
//   - each axis is fitted to the data and to the ends of its intervals, with a small margin,
//     so no point or bar is clipped on the frame;
//   - an axis is logarithmic when its values are all positive and span more than two decades,
//     unless the figure forces it (log_x / linear_x, …);
//   - the output format follows the extension: .svg (svg terminal), .png (pngcairo),
//     .pdf (pdfcairo) — all three in gnuplot-nox on Debian.
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dpkit::figures {

/// One curve or point set of a figure.
struct series {
  std::string name;  ///< legend entry (enhanced text); empty: no legend entry
  /// "lines", "points" or "linespoints". Points carry error bars where intervals exist; lines
  /// with y intervals only carry a shaded band between y_lo and y_hi.
  std::string style = "lines";
  int colour = -1;  ///< index into the palette; −1: by position
  int dash = 1;     ///< gnuplot dash type of lines (1 solid, 2 dashed, …)
  /// Points; the intervals are empty (none), or as long as x with NaN where a point has none.
  std::vector<double> x, y, x_lo, x_hi, y_lo, y_hi;
  bool right_axis = false;  ///< drawn against the right-hand y axis (figure::y2_label)
};

struct figure {
  std::string title;     ///< first title line
  std::string subtitle;  ///< second title line, smaller (may be empty)
  std::string x_label, y_label, y2_label;
  /// Force a logarithmic (log_*) or linear (linear_*) axis; neither: chosen from the data.
  bool log_x = false, log_y = false, log_y2 = false;
  bool linear_x = false, linear_y = false, linear_y2 = false;
  /// Explicit axis ranges (NaN: fitted to the data).
  double x_min = std::nan(""), x_max = std::nan(""), y_min = std::nan(""), y_max = std::nan("");
  /// Non-empty: a categorical x axis; x = 1, 2, … are these categories (tic labels).
  std::vector<std::string> x_categories;
  /// Where the key goes: "below" (under the plot, default), or a gnuplot position inside the
  /// plot ("top left", "bottom right", …).
  std::string key = "below";
  std::vector<series> data;
};

/// The resolved choice of one axis: logarithmic or not, and its range.
struct axis_fit {
  bool log = false;
  double lo = 0, hi = 1;
  bool used = false;  ///< some series is drawn against this axis
};
struct figure_axes {
  axis_fit x, y, y2;
};
/// The axes `f` is drawn with: log where forced or where the values are positive and span
/// more than two decades (ratio > 100), ranges over values and interval ends plus a margin
/// of 4 % of the span on each side (of the log span on a log axis).
figure_axes fit_axes(const figure& f);

/// Whether `ext` (".svg", ".png", ".pdf", any case) is a format the renderer writes.
bool is_figure_extension(const std::string& ext);
/// "the figure must end in .svg, .png or .pdf, not 'EXT'".
std::string figure_extension_message(const std::string& ext);

/// The gnuplot script that draws `f` into `out` (the terminal from its extension); throws
/// std::invalid_argument (figure_extension_message) for another extension.
std::string gnuplot_script(const figure& f, const std::filesystem::path& out);

/// Renders `f` into `out` with gnuplot (the `gnuplot` on PATH). Returns false and fills `error`
/// (one line) when the extension is not one of .svg/.png/.pdf, gnuplot is missing (the
/// message names Debian's gnuplot-nox) or fails.
bool render(const figure& f, const std::filesystem::path& out, std::string& error);

/// `text` with gnuplot's enhanced-text control characters (_ ^ { } @ & ~ \) escaped, so that
/// it prints as is.
std::string enhanced_escape(const std::string& text);

/// The JSON of a figure (the "figure" object of a validation result) and back; missing keys
/// take their defaults, so older results read.
nlohmann::json to_json(const figure& f);
figure figure_from_json(const nlohmann::json& j);

/// The second title line of a validation result's figure: "ID: VERDICT, tightness T" (the
/// tightness when finite and positive, to 3 decimals).
std::string validation_subtitle(const std::string& id,
                                const std::string& verdict,
                                double tightness);

}  // namespace dpkit::figures
