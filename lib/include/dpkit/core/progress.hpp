// dpkit/core/progress.hpp — progress of long computations, for people watching them.
//
// A one-line bar on stderr, redrawn at most ~10 times a second, only when stderr is a terminal;
// and, terminal or not, one line with the projected duration once the first units of work show
// that the whole will take longer than a threshold (the cost estimate before the rest runs) —
// or, where no unit has finished by the threshold (few, heavy units), one line saying so then.
// Thread-safe: advance() may be called from several threads (a call that finds another one
// drawing skips its redraw).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace dpkit {

struct progress_options {
  bool bar = false;       ///< the bar (only drawn on a terminal)
  bool announce = false;  ///< the projected-duration line (terminal or not)
  double announce_seconds = 30;
  /// Work that may be under way at once (threads × chunk): the projection waits for four times
  /// this much finished work (or 5 % of it, or 10 s), so that it does not count the first
  /// finished unit as all the progress.
  std::uint64_t in_flight = 1;
  std::string unit = "replicates";  ///< what is counted, for the announcement
  /// What the whole is, for the announcement, when the units are weights rather than things
  /// (e.g. "300 points"); empty: "<total> <unit>".
  std::string what;
  std::string where;  ///< e.g. " on 2 threads", appended to the announcement
};

class progress_reporter {
 public:
  progress_reporter(std::string label, std::uint64_t total, progress_options options);
  progress_reporter(const progress_reporter&) = delete;
  progress_reporter& operator=(const progress_reporter&) = delete;
  /// k more units done.
  void advance(std::uint64_t k);
  /// Ends the bar's line (also done by the destructor).
  void finish();
  ~progress_reporter();

 private:
  std::string label_;
  std::uint64_t total_;
  progress_options o_;
  bool bar_;
  std::atomic<std::uint64_t> done_{0};
  std::mutex mutex_;
  bool announced_ = false, finished_ = false;
  std::chrono::steady_clock::time_point start_, last_{};
  std::condition_variable_any wake_;
  // With announce: wakes at announce_seconds and, if no unit has finished, says so (the
  // projection needs finished units). Last: started after the members it uses, joined first.
  std::jthread watchdog_;
};

/// For one computation that reports no progress of its own (a single PLD composition, a
/// calibration): on a terminal, once it has run `after_seconds`, one line on stderr saying what
/// runs and for how long so far, redrawn every half second and erased when the ticker is
/// destroyed. Nothing when stderr is not a terminal. The computation must not write to the
/// terminal while the ticker lives.
class elapsed_ticker {
 public:
  explicit elapsed_ticker(std::string label, double after_seconds = 2);
  elapsed_ticker(const elapsed_ticker&) = delete;
  elapsed_ticker& operator=(const elapsed_ticker&) = delete;
  ~elapsed_ticker();

 private:
  std::string label_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  bool drawn_ = false;
  std::jthread thread_;  // last: started after the members it uses, joined first
};

/// "45 s", "3.5 min", "2.1 h".
std::string duration_text(double seconds);

}  // namespace dpkit
