#include "figure.hpp"

#include <unistd.h>

#include <sys/wait.h>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

namespace dpkit::figures {
namespace {

// The palette (colour-blind distinguishable; the indices scenarios use: 0 blue, 1 red,
// 2 green, 3 purple, 4 orange, 5 grey, 6 teal, 7 gold).
constexpr const char* kColours[] = {"#1f4e9c", "#c0392b", "#2e8b57", "#8e44ad",
                                    "#d35400", "#7f8c8d", "#16a085", "#b7950b"};
constexpr std::size_t kPalette = sizeof(kColours) / sizeof(kColours[0]);
// Point types by series position: filled circle, square, triangle, diamond, inverted triangle.
constexpr int kPointTypes[] = {7, 5, 9, 13, 11};
constexpr std::size_t kPointKinds = sizeof(kPointTypes) / sizeof(kPointTypes[0]);

constexpr double kMargin = 0.04;           // of the span, each side
constexpr double kLogDecades = 2;          // an axis spanning more goes logarithmic
constexpr double kInvisibleWidth = 0.004;  // an interval narrower than this share of the axis

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A double-quoted gnuplot string: \ and " escaped, line breaks as \n.
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The shortest text that reads back as x.
std::string number(double x) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, result.ptr);
}

bool has_pairs(const std::vector<double>& lo, const std::vector<double>& hi, std::size_t n) {
  if (lo.size() != n || hi.size() != n) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(lo[i]) && std::isfinite(hi[i])) return true;
  return false;
}
bool has_x_interval(const series& s) {
  return has_pairs(s.x_lo, s.x_hi, s.x.size());
}
bool has_y_interval(const series& s) {
  return has_pairs(s.y_lo, s.y_hi, s.x.size());
}
// Drawn as a band: a line with y intervals and no x intervals.
bool as_band(const series& s) {
  return s.style == "lines" && has_y_interval(s) && !has_x_interval(s);
}

// The values (and, separately, the interval ends) of one axis.
struct axis_values {
  std::vector<double> values, ends;
};

axis_fit fit_one(const axis_values& v, bool force_log, bool force_linear, double min, double max) {
  axis_fit a;
  a.used = !v.values.empty();
  const auto finite = [](const std::vector<double>& xs) {
    std::vector<double> out;
    for (double x : xs)
      if (std::isfinite(x)) out.push_back(x);
    return out;
  };
  const std::vector<double> values = finite(v.values);
  if (force_log) {
    a.log = true;
  } else if (!force_linear && !values.empty()) {
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    a.log = *lo > 0 && std::log10(*hi / *lo) > kLogDecades;
  }
  std::vector<double> all = values;
  for (double x : finite(v.ends)) all.push_back(x);
  if (a.log) std::erase_if(all, [](double x) { return !(x > 0); });
  if (all.empty()) {
    a.lo = a.log ? 0.1 : 0;
    a.hi = a.log ? 10 : 1;
  } else {
    const auto [lo_it, hi_it] = std::minmax_element(all.begin(), all.end());
    double lo = *lo_it, hi = *hi_it;
    if (a.log) {
      lo = std::log10(lo);
      hi = std::log10(hi);
    }
    double span = hi - lo;
    if (!(span > 0)) span = a.log ? 0.5 : (lo != 0 ? std::abs(lo) * 0.2 : 1);
    lo -= span * kMargin;
    hi += span * kMargin;
    if (hi - lo < span) {  // a single value: centre it
      lo -= span / 2;
      hi += span / 2;
    }
    a.lo = a.log ? std::pow(10.0, lo) : lo;
    a.hi = a.log ? std::pow(10.0, hi) : hi;
  }
  if (std::isfinite(min) && (!a.log || min > 0)) a.lo = min;
  if (std::isfinite(max) && (!a.log || max > 0)) a.hi = max;
  if (!(a.hi > a.lo)) a.hi = a.lo + (a.log ? a.lo : 1);
  return a;
}

// An axis position as a share of the axis length (log-aware).
double share(const axis_fit& a, double x) {
  if (a.log) return (std::log10(x) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo));
  return (x - a.lo) / (a.hi - a.lo);
}

// The largest interval of a series, as a share of its axis: 0 if it has none.
double widest_interval(const std::vector<double>& lo,
                       const std::vector<double>& hi,
                       const axis_fit& a) {
  double widest = 0;
  for (std::size_t i = 0; i < std::min(lo.size(), hi.size()); ++i) {
    if (!std::isfinite(lo[i]) || !std::isfinite(hi[i])) continue;
    const double l = a.log ? std::max(lo[i], a.lo) : lo[i];
    if (a.log && !(hi[i] > 0)) continue;
    widest = std::max(widest, std::abs(share(a, hi[i]) - share(a, l)));
  }
  return widest;
}

struct terminal {
  std::string command;
  double line_height = 18;  // of a key row, in the terminal's units
  double base_height = 0;
  double width = 0;
  std::string unit;
};

terminal terminal_for(const std::string& ext) {
  terminal t;
  if (ext == ".svg") {
    t.command =
        "set terminal svg size {W},{H} dynamic enhanced font 'Helvetica,13' "
        "background '#ffffff'";
    t.width = 820;
    t.base_height = 560;
    t.line_height = 19;
  } else if (ext == ".png") {
    t.command =
        "set terminal pngcairo size {W},{H} enhanced font 'Helvetica,13' "
        "fontscale 1.25 linewidth 1.25 background '#ffffff'";
    t.width = 1100;
    t.base_height = 750;
    t.line_height = 25;
  } else if (ext == ".pdf") {
    // The SVG's proportions at a paper's text width (6.4 in): 7 pt text.
    t.command =
        "set terminal pdfcairo size {W}in,{H}in enhanced font 'Helvetica,7' "
        "fontscale 1 linewidth 1 pointscale 0.7 background '#ffffff'";
    t.width = 6.4;
    t.base_height = 4.37;
    t.line_height = 0.148;
    t.unit = "in";
  } else {
    throw std::invalid_argument(figure_extension_message(ext));
  }
  return t;
}

std::string with_size(std::string command, double w, double h) {
  const auto put = [&](const std::string& key, double v) {
    std::ostringstream o;
    o << std::setprecision(4) << v;
    command.replace(command.find(key), key.size(), o.str());
  };
  put("{W}", w);
  put("{H}", h);
  return command;
}

// `text` with line breaks at spaces so that no line is much longer than `width` characters.
std::string wrap(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t line = 0;
  std::stringstream words(text);
  std::string word;
  while (words >> word) {
    if (line > 0 && line + 1 + word.size() > width) {
      out += '\n';
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out += word;
    line += word.size();
  }
  return out;
}

// Log-axis tic labels as powers of ten once the axis spans several decades.
void log_format(std::ostringstream& gp, const char* axis, const axis_fit& a) {
  gp << "set logscale " << axis << "\n";
  const double decades = std::log10(a.hi / a.lo);
  if (decades > 3.2) {
    gp << "set format " << axis << " \"10^{%T}\"\n";
    return;
  }
  gp << "set format " << axis << " \"%g\"\n";
  // Three decades or fewer: tics at 1, 2 and 5 times the powers of ten, so the axis has numbers.
  std::string tics;
  for (int e = static_cast<int>(std::floor(std::log10(a.lo))); e <= std::ceil(std::log10(a.hi));
       ++e)
    for (const double m : {1.0, 2.0, 5.0}) {
      const double t = m * std::pow(10.0, e);
      if (t >= a.lo && t <= a.hi) tics += (tics.empty() ? "" : ", ") + number(t);
    }
  if (!tics.empty()) gp << "set " << axis << "tics (" << tics << ")\n";
}

}  // namespace

std::string enhanced_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '_' || c == '^' || c == '{' || c == '}' || c == '@' || c == '&' || c == '~' ||
        c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

bool is_figure_extension(const std::string& ext) {
  const std::string e = lower(ext);
  return e == ".svg" || e == ".png" || e == ".pdf";
}

std::string figure_extension_message(const std::string& ext) {
  return "the figure must end in .svg, .png or .pdf, not '" + ext + "'";
}

figure_axes fit_axes(const figure& f) {
  axis_values x, y, y2;
  for (const series& s : f.data) {
    axis_values& v = s.right_axis ? y2 : y;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      x.values.push_back(s.x[i]);
      v.values.push_back(s.y[i]);
      if (i < s.x_lo.size() && i < s.x_hi.size() && std::isfinite(s.x_lo[i]) &&
          std::isfinite(s.x_hi[i])) {
        x.ends.push_back(s.x_lo[i]);
        x.ends.push_back(s.x_hi[i]);
      }
      if (i < s.y_lo.size() && i < s.y_hi.size() && std::isfinite(s.y_lo[i]) &&
          std::isfinite(s.y_hi[i])) {
        v.ends.push_back(s.y_lo[i]);
        v.ends.push_back(s.y_hi[i]);
      }
    }
  }
  figure_axes a;
  if (!f.x_categories.empty()) {
    a.x.used = true;
    a.x.lo = 0.5;
    a.x.hi = static_cast<double>(f.x_categories.size()) + 0.5;
  } else {
    a.x = fit_one(x, f.log_x, f.linear_x, f.x_min, f.x_max);
  }
  a.y = fit_one(y, f.log_y, f.linear_y, f.y_min, f.y_max);
  a.y2 = fit_one(y2, f.log_y2, f.linear_y2, std::nan(""), std::nan(""));
  return a;
}

std::string gnuplot_script(const figure& given, const std::filesystem::path& out) {
  figure f = given;
  // Series that share a category stand side by side around it, not on top of each other.
  if (!f.x_categories.empty()) {
    std::map<double, std::vector<std::size_t>> at;
    for (std::size_t k = 0; k < f.data.size(); ++k)
      for (double x : f.data[k].x)
        if (std::isfinite(x) && x == std::round(x)) at[x].push_back(k);
    for (const auto& [x, members] : at) {
      if (members.size() < 2) continue;
      const double width = std::min(0.5, 0.15 * static_cast<double>(members.size() - 1));
      for (std::size_t j = 0; j < members.size(); ++j) {
        const double shift =
            width * (static_cast<double>(j) / static_cast<double>(members.size() - 1) - 0.5);
        for (double& v : f.data[members[j]].x)
          if (v == x) v = x + shift;
      }
    }
  }
  const terminal term = terminal_for(lower(out.extension().string()));
  const figure_axes axes = fit_axes(f);

  // Intervals too narrow to see at this scale are said so in the legend: after each such series'
  // name, or once for all when every series with intervals has such.
  std::vector<bool> invisible(f.data.size(), false);
  std::size_t with_intervals = 0, narrow = 0;
  for (std::size_t k = 0; k < f.data.size(); ++k) {
    const series& s = f.data[k];
    const bool ex = has_x_interval(s), ey = has_y_interval(s);
    if (!ex && !ey) continue;
    ++with_intervals;
    const axis_fit& ya = s.right_axis ? axes.y2 : axes.y;
    const double wx = ex ? widest_interval(s.x_lo, s.x_hi, axes.x) : 0;
    const double wy = ey ? widest_interval(s.y_lo, s.y_hi, ya) : 0;
    invisible[k] = std::max(wx, wy) < kInvisibleWidth;
    if (invisible[k]) ++narrow;
  }
  const bool one_note = narrow >= 2 && narrow == with_intervals;

  // The legend: one entry per named series; entries that do not fit two abreast go one a row.
  std::vector<std::string> names;
  std::size_t longest = 0;
  for (const series& s : f.data) {
    if (s.name.empty()) continue;
    names.push_back(s.name);
    longest = std::max(longest, s.name.size());
  }
  if (one_note) names.emplace_back("intervals too narrow to see at this scale");
  // Category names are wrapped at spaces into lines that fit their share of the width (not
  // rotated).
  std::vector<std::string> categories;
  std::size_t category_lines = 0;
  for (const std::string& c : f.x_categories) {
    categories.push_back(wrap(c, std::max<std::size_t>(8, 84 / f.x_categories.size())));
    category_lines = std::max<std::size_t>(
        category_lines, 1 + static_cast<std::size_t>(std::count(categories.back().begin(),
                                                                categories.back().end(), '\n')));
  }
  const bool below = f.key == "below" || f.key.empty();
  const std::size_t columns = longest > 46 ? 1 : (longest > 28 ? 2 : 3);
  const std::size_t rows = below ? (names.size() + columns - 1) / columns : 0;
  const double height =
      term.base_height +
      term.line_height * static_cast<double>(rows + (rows ? 1 : 0) +
                                             (category_lines > 1 ? category_lines - 1 : 0)) +
      (f.subtitle.empty() ? 0 : term.line_height);

  std::ostringstream gp;
  gp << std::setprecision(17);
  gp << "set encoding utf8\n";
  gp << with_size(term.command, term.width, height) << "\n";
  gp << "set output " << quote(out.string()) << "\n";
  if (!f.title.empty() || !f.subtitle.empty()) {
    std::string title = f.title;
    if (!f.subtitle.empty()) title += (title.empty() ? "" : "\n") + ("{/*0.8 " + f.subtitle + "}");
    gp << "set title " << quote(title) << " enhanced\n";
  }
  gp << "set xlabel " << quote(f.x_label) << " enhanced";
  if (category_lines > 1) gp << " offset 0," << -static_cast<double>(category_lines - 1);
  gp << "\n";
  gp << "set ylabel " << quote(f.y_label) << " enhanced\n";
  gp << "set grid lc rgb '#dddddd' lw 1\nset border lw 1.2\nset tics nomirror out scale 0.6\n";
  gp << "set errorbars 0.5\n";  // short caps on the bars
  if (below) {
    gp << "set key outside below center horizontal Left reverse enhanced maxcols " << columns
       << " samplen 2.5 spacing 1.1 title \"{/*0.4 }\"\n";  // the blank title: a gap under the x
                                                            // label
  } else {
    // Right-justified: gnuplot misplaces left-justified (reversed) text in an inside key.
    gp << "set key inside " << f.key << " enhanced box opaque samplen 2.5\n";
  }
  // Axes.
  if (!f.x_categories.empty()) {
    gp << "set xtics (";
    for (std::size_t k = 0; k < categories.size(); ++k)
      gp << (k ? ", " : "") << quote(categories[k]) << " " << k + 1;
    gp << ")\n";
  } else if (axes.x.log) {
    log_format(gp, "x", axes.x);
  }
  if (axes.y.log) log_format(gp, "y", axes.y);
  gp << "set xrange [" << number(axes.x.lo) << ":" << number(axes.x.hi) << "]\n";
  gp << "set yrange [" << number(axes.y.lo) << ":" << number(axes.y.hi) << "]\n";
  if (axes.y2.used) {
    gp << "set y2label " << quote(f.y2_label) << " enhanced\nset y2tics nomirror out scale 0.6\n";
    if (axes.y2.log) log_format(gp, "y2", axes.y2);
    gp << "set y2range [" << number(axes.y2.lo) << ":" << number(axes.y2.hi) << "]\n";
  }

  // Data: one datablock per series, columns x y x_lo x_hi y_lo y_hi (a point without an
  // interval gets lo = hi = its value; on a log axis a lower end at or below 0 is drawn from the
  // axis' lower end).
  std::vector<std::string> plots;
  std::size_t points_seen = 0;
  for (std::size_t k = 0; k < f.data.size(); ++k) {
    const series& s = f.data[k];
    const axis_fit& ya = s.right_axis ? axes.y2 : axes.y;
    const bool ex = has_x_interval(s), ey = has_y_interval(s);
    gp << "$s" << k << " << EOD\n";
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) {
        gp << "\n";  // a gap: lines break here
        continue;
      }
      const auto end = [&](const std::vector<double>& lo, const std::vector<double>& hi,
                           double value, const axis_fit& a) {
        double l = value, h = value;
        if (i < lo.size() && i < hi.size() && std::isfinite(lo[i]) && std::isfinite(hi[i])) {
          l = lo[i];
          h = hi[i];
        }
        if (a.log && !(l > 0)) l = a.lo;
        return std::pair{l, h};
      };
      const auto [xl, xh] = end(s.x_lo, s.x_hi, s.x[i], axes.x);
      const auto [yl, yh] = end(s.y_lo, s.y_hi, s.y[i], ya);
      gp << number(s.x[i]) << ' ' << number(s.y[i]) << ' ' << number(xl) << ' ' << number(xh) << ' '
         << number(yl) << ' ' << number(yh) << '\n';
    }
    gp << "EOD\n";

    const std::size_t colour = s.colour >= 0 ? static_cast<std::size_t>(s.colour) : k;
    const std::string lc = std::string(" lc rgb '") + kColours[colour % kPalette] + "'";
    const std::string axis = s.right_axis ? " axes x1y2" : "";
    // Past the palette's end, colours repeat with another dash.
    const int dash_type = s.colour < 0 && k >= kPalette
                              ? std::max(s.dash, 1 + static_cast<int>(k / kPalette))
                              : std::max(1, s.dash);
    const std::string dash = " dt " + std::to_string(dash_type);
    std::string name = s.name;
    if (!name.empty() && invisible[k] && !one_note)
      name += s.style == "lines" ? " (interval too narrow to see)"
                                 : " (intervals smaller than the marks)";
    const std::string title = name.empty() ? " notitle" : " title " + quote(name);
    const std::string data = "$s" + std::to_string(k);
    const bool points = s.style == "points" || s.style == "linespoints";
    // Few points are drawn larger than a dense cloud; points with bars small enough for the
    // bars to show.
    const std::string size = ex || ey ? " ps 0.5" : (s.x.size() <= 30 ? " ps 0.9" : " ps 0.55");
    const std::string pt =
        points ? " pt " + std::to_string(kPointTypes[points_seen++ % kPointKinds]) + size : "";
    if (as_band(s)) {
      plots.push_back(data + " using 1:5:6" + axis +
                      " with filledcurves fs transparent solid 0.22 noborder" + lc + " notitle");
      plots.push_back(data + " using 1:2" + axis + " with lines lw 2" + dash + lc + title);
    } else if (s.style == "lines" && !ex && !ey) {
      plots.push_back(data + " using 1:2" + axis + " with lines lw 2" + dash + lc + title);
    } else {
      const std::string kind = ex && ey ? "xyerror" : (ex ? "xerror" : (ey ? "yerror" : ""));
      const std::string cols =
          ex && ey ? "1:2:3:4:5:6" : (ex ? "1:2:3:4" : (ey ? "1:2:5:6" : "1:2"));
      if (s.style == "points") {
        plots.push_back(data + " using " + cols + axis + " with " +
                        (kind.empty() ? "points" : kind + "bars") + pt + " lw 1.3" + lc + title);
      } else {  // lines (with x intervals) or linespoints: the line with its bars
        plots.push_back(data + " using " + cols + axis + " with " +
                        (kind.empty() ? "linespoints" : kind + "lines") +
                        (points ? pt : " pt 7 ps 0.35") + " lw 1.8" + dash + lc + title);
      }
    }
  }
  if (plots.empty()) {
    gp << "set label 1 'no data' at graph 0.5, graph 0.5 center\nplot NaN notitle\n";
  } else {
    if (one_note)
      plots.push_back("keyentry with lines lc rgb '#ffffff' title " +
                      quote("(intervals too narrow to see at this scale)"));
    gp << "plot ";
    for (std::size_t k = 0; k < plots.size(); ++k) gp << (k ? ", \\\n     " : "") << plots[k];
    gp << "\n";
  }
  gp << "unset output\n";
  return gp.str();
}

namespace {
// The gnuplot executable on PATH, or "" if none.
std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) dir = ".";
    const std::filesystem::path candidate = std::filesystem::path(dir) / "gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate))
      return candidate.string();
  }
  return "";
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

bool render(const figure& f, const std::filesystem::path& out, std::string& error) {
  if (!is_figure_extension(out.extension().string())) {
    error = figure_extension_message(out.extension().string());
    return false;
  }
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty()) {
    error = "gnuplot is not installed (on Debian: apt-get install gnuplot-nox)";
    return false;
  }
  // Drawn into a temporary file beside `out`, renamed over it once gnuplot succeeded: no
  // half-written figure is ever left.
  static std::atomic<unsigned> counter{0};
  const std::string tag = std::to_string(::getpid()) + "_" + std::to_string(counter++);
  const std::filesystem::path dir = out.has_parent_path() ? out.parent_path() : ".";
  const std::filesystem::path tmp = dir / ("." + out.filename().string() + ".tmp" + tag);
  const std::filesystem::path log =
      std::filesystem::temp_directory_path() / ("dpkit_gnuplot_" + tag + ".log");
  std::string script;
  try {
    script = gnuplot_script(f, tmp.string() + out.extension().string());
  } catch (const std::invalid_argument& e) {
    error = e.what();
    return false;
  }
  const std::filesystem::path drawn = tmp.string() + out.extension().string();
  FILE* pipe =
      ::popen((shell_quote(gnuplot) + " >" + shell_quote(log.string()) + " 2>&1").c_str(), "w");
  if (!pipe) {
    error = "cannot start gnuplot (" + gnuplot + ")";
    return false;
  }
  std::fwrite(script.data(), 1, script.size(), pipe);
  const int status = ::pclose(pipe);
  std::string messages;
  {
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    messages = text.str();
  }
  std::error_code ec;
  std::filesystem::remove(log, ec);
  const bool drawn_ok =
      std::filesystem::exists(drawn, ec) && std::filesystem::file_size(drawn, ec) > 0 && !ec;
  if (status != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !drawn_ok) {
    std::filesystem::remove(drawn, ec);
    const auto start = messages.find_first_not_of(" \n");
    std::string first = start == std::string::npos
                            ? std::string("no message")
                            : messages.substr(start, messages.find('\n', start) - start);
    error = "gnuplot failed: " + first;
    return false;
  }
  std::filesystem::rename(drawn, out, ec);
  if (ec) {
    std::filesystem::remove(drawn, ec);
    error = "cannot write " + out.string() + ": " + ec.message();
    return false;
  }
  return true;
}

// ---- JSON

namespace {
nlohmann::json json_number(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}
double number_of(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : std::nan("");
}
}  // namespace

nlohmann::json to_json(const figure& f) {
  nlohmann::json series_json = nlohmann::json::array();
  for (const series& s : f.data) {
    auto vec = [](const std::vector<double>& v) {
      nlohmann::json a = nlohmann::json::array();
      for (double x : v) a.push_back(json_number(x));
      return a;
    };
    nlohmann::json j = {{"name", s.name},      {"style", s.style},    {"colour", s.colour},
                        {"dash", s.dash},      {"x", vec(s.x)},       {"y", vec(s.y)},
                        {"x_lo", vec(s.x_lo)}, {"x_hi", vec(s.x_hi)}, {"y_lo", vec(s.y_lo)},
                        {"y_hi", vec(s.y_hi)}};
    if (s.right_axis) j["right_axis"] = true;
    series_json.push_back(std::move(j));
  }
  nlohmann::json j = {{"title", f.title}, {"x_label", f.x_label}, {"y_label", f.y_label},
                      {"log_x", f.log_x}, {"log_y", f.log_y},     {"series", series_json}};
  // The rest only where set: results stay as they were for figures that do not use them.
  if (!f.subtitle.empty()) j["subtitle"] = f.subtitle;
  if (!f.y2_label.empty()) j["y2_label"] = f.y2_label;
  if (f.log_y2) j["log_y2"] = true;
  if (f.linear_x) j["linear_x"] = true;
  if (f.linear_y) j["linear_y"] = true;
  if (f.linear_y2) j["linear_y2"] = true;
  if (std::isfinite(f.x_min)) j["x_min"] = f.x_min;
  if (std::isfinite(f.x_max)) j["x_max"] = f.x_max;
  if (std::isfinite(f.y_min)) j["y_min"] = f.y_min;
  if (std::isfinite(f.y_max)) j["y_max"] = f.y_max;
  if (!f.x_categories.empty()) j["x_categories"] = f.x_categories;
  if (f.key != "below") j["key"] = f.key;
  return j;
}

figure figure_from_json(const nlohmann::json& j) {
  figure f;
  f.title = j.value("title", "");
  f.subtitle = j.value("subtitle", "");
  f.x_label = j.value("x_label", "");
  f.y_label = j.value("y_label", "");
  f.y2_label = j.value("y2_label", "");
  f.log_x = j.value("log_x", false);
  f.log_y = j.value("log_y", false);
  f.log_y2 = j.value("log_y2", false);
  f.linear_x = j.value("linear_x", false);
  f.linear_y = j.value("linear_y", false);
  f.linear_y2 = j.value("linear_y2", false);
  f.x_min = number_of(j.value("x_min", nlohmann::json(nullptr)));
  f.x_max = number_of(j.value("x_max", nlohmann::json(nullptr)));
  f.y_min = number_of(j.value("y_min", nlohmann::json(nullptr)));
  f.y_max = number_of(j.value("y_max", nlohmann::json(nullptr)));
  f.x_categories = j.value("x_categories", std::vector<std::string>{});
  f.key = j.value("key", std::string("below"));
  for (const auto& s : j.at("series")) {
    series out;
    out.name = s.value("name", "");
    out.style = s.value("style", "lines");
    out.colour = s.value("colour", -1);
    out.dash = s.value("dash", 1);
    out.right_axis = s.value("right_axis", false);
    auto vec = [&](const char* key) {
      std::vector<double> v;
      for (const auto& x : s.value(key, nlohmann::json::array())) v.push_back(number_of(x));
      return v;
    };
    out.x = vec("x");
    out.y = vec("y");
    out.x_lo = vec("x_lo");
    out.x_hi = vec("x_hi");
    out.y_lo = vec("y_lo");
    out.y_hi = vec("y_hi");
    f.data.push_back(std::move(out));
  }
  return f;
}

std::string validation_subtitle(const std::string& id,
                                const std::string& verdict,
                                double tightness) {
  std::string line = enhanced_escape(id) + ": " + verdict;
  if (std::isfinite(tightness) && tightness > 0) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(3) << tightness;
    line += ", tightness " + o.str();
  }
  return line;
}

}  // namespace dpkit::figures
