// progress_reporter's announcement lines, read from stderr (redirected to a file for the test):
// the projection once finished work shows the whole takes long, and the line said at the
// threshold when no work has been reported finished by then (few, heavy units).
#include "dpkit/core/progress.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace {

// Runs f with stderr (fd 2) sent to a temporary file; returns what was written.
template <class F>
std::string stderr_of(F&& f) {
  std::fflush(stderr);
  char path[] = "/tmp/dpkit_progress_test_XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  const int saved = ::dup(2);
  ::dup2(fd, 2);
  f();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  ::close(fd);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  ::unlink(path);
  return text.str();
}

dpkit::progress_options announcing(double seconds) {
  dpkit::progress_options o;
  o.announce = true;
  o.announce_seconds = seconds;
  o.where = " on 1 thread";
  return o;
}

}  // namespace

TEST_CASE("progress: no unit reported by the threshold is said at the threshold, once",
          "[progress]") {
  const std::string err = stderr_of([] {
    dpkit::progress_reporter p("heavy run", 4, announcing(0.2));
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
  });
  CHECK(err ==
        "heavy run: still running after 0 s, with none of the 4 replicates on 1 thread reported "
        "finished yet: a long run (its length is projected once some are)\n");
}

TEST_CASE("progress: nothing is said by a run that ends, or reports work, before the threshold",
          "[progress]") {
  CHECK(stderr_of([] { dpkit::progress_reporter p("quick run", 4, announcing(5)); }).empty());
  CHECK(stderr_of([] {
          dpkit::progress_reporter p("steady run", 1000, announcing(0.3));
          p.advance(1);
          std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }).empty());
  CHECK(stderr_of([] {
          dpkit::progress_reporter p("silent run", 4, dpkit::progress_options{});
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }).empty());
}
