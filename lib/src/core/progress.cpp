#include "dpkit/core/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace dpkit {

std::string duration_text(double seconds) {
  char buf[32];
  if (seconds < 90)
    std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  else if (seconds < 5400)
    std::snprintf(buf, sizeof buf, "%.1f min", seconds / 60);
  else
    std::snprintf(buf, sizeof buf, "%.1f h", seconds / 3600);
  return buf;
}

progress_reporter::progress_reporter(std::string label,
                                     std::uint64_t total,
                                     progress_options options)
    : label_(std::move(label)),
      total_(total),
      o_(std::move(options)),
      bar_(o_.bar && total > 0 && ::isatty(2) != 0),
      start_(std::chrono::steady_clock::now()) {
  o_.announce = o_.announce && total > 0;
  // No watchdog for a threshold of a billion seconds or more (inf: never), which a steady_clock
  // duration cannot hold.
  if (!o_.announce || !(o_.announce_seconds < 1e9)) return;
  const auto at = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(o_.announce_seconds));
  watchdog_ = std::jthread([this, at](const std::stop_token& stop) {
    std::unique_lock lock(mutex_);
    if (wake_.wait_until(lock, stop, at, [] { return false; }) || stop.stop_requested()) return;
    if (finished_ || announced_ || done_.load() > 0) return;
    const std::string what = o_.what.empty() ? std::to_string(total_) + " " + o_.unit : o_.what;
    std::fprintf(stderr,
                 "%s%s: still running after %s, with none of the %s%s reported finished yet: "
                 "a long run (its length is projected once some are)\n",
                 bar_ ? "\r" : "", label_.c_str(), duration_text(o_.announce_seconds).c_str(),
                 what.c_str(), o_.where.c_str());
    std::fflush(stderr);
  });
}

void progress_reporter::advance(std::uint64_t k) {
  if (!bar_ && !o_.announce) return;
  const std::uint64_t done = done_.fetch_add(k) + k;
  const auto now = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || finished_) return;
  const double frac = static_cast<double>(done) / static_cast<double>(total_);
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // The projection waits for a few units per worker (the first finished unit alone would ignore
  // the ones still running elsewhere), 5 % of the work, or 10 s.
  if (o_.announce && !announced_ && done < total_ &&
      ((done >= 4 * o_.in_flight && elapsed >= 1) || frac >= 0.05 || elapsed >= 10)) {
    announced_ = true;
    const double projected = elapsed / frac;
    if (projected > o_.announce_seconds) {
      char first[64];
      if (o_.what.empty())
        std::snprintf(first, sizeof first, "the first %llu", static_cast<unsigned long long>(done));
      else
        std::snprintf(first, sizeof first, "the first %.0f %%", 100 * frac);
      const std::string what = o_.what.empty() ? std::to_string(total_) + " " + o_.unit : o_.what;
      std::fprintf(stderr, "%s%s: about %s for %s%s (projected from %s)\n", bar_ ? "\r" : "",
                   label_.c_str(), duration_text(projected).c_str(), what.c_str(), o_.where.c_str(),
                   first);
    }
  }
  if (!bar_) return;
  if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const int width = 30, filled = static_cast<int>(frac * width);
  std::fprintf(stderr, "\r%s [%.*s%*s] %3.0f%%  %llu/%llu  %.1f s", label_.c_str(), filled,
               "==============================", width - filled, "", 100 * frac,
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
               elapsed);
  if (frac > 0 && done < total_) std::fprintf(stderr, ", ~%.0f s left", elapsed * (1 / frac - 1));
  std::fflush(stderr);
}

void progress_reporter::finish() {
  const std::lock_guard lock(mutex_);
  if (bar_ && !finished_) std::fprintf(stderr, "\n");
  finished_ = true;
}

progress_reporter::~progress_reporter() {
  finish();
  if (watchdog_.joinable()) {
    watchdog_.request_stop();
    watchdog_.join();
  }
}

elapsed_ticker::elapsed_ticker(std::string label, double after_seconds)
    : label_(std::move(label)) {
  if (::isatty(2) == 0) return;
  const auto start = std::chrono::steady_clock::now();
  const auto first = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(after_seconds));
  thread_ = std::jthread([this, start, first](const std::stop_token& stop) {
    std::unique_lock lock(mutex_);
    if (wake_.wait_until(lock, stop, first, [] { return false; }) || stop.stop_requested())
      return;
    while (!stop.stop_requested()) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "\r%s: working, %s so far", label_.c_str(),
                   duration_text(elapsed).c_str());
      std::fflush(stderr);
      drawn_ = true;
      wake_.wait_for(lock, stop, std::chrono::milliseconds(500), [] { return false; });
    }
  });
}

elapsed_ticker::~elapsed_ticker() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
  if (drawn_) {
    std::fprintf(stderr, "\r\033[K");  // erase the line: the result follows on a clean line
    std::fflush(stderr);
  }
}

}  // namespace dpkit
