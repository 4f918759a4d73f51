// tools/ember-run: the ranks it starts find each other through env://, and one failing rank
// fails the job at once (the others are stopped) with that rank's exit status.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "ember/distributed/distributed.h"
#include "tests/distributed/harness.h"

namespace dist_launcher_test {

namespace dist = ember::distributed;

EMBER_DIST_WORKER(launched_all_reduce) {
  DIST_CHECK(std::getenv("LOCAL_RANK") != nullptr, "LOCAL_RANK is not set");
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(30));
  auto t = ember::ones({3});
  dist::all_reduce(t);
  DIST_CHECK(t[0].item<double>() == dist::get_world_size(), "sum {}", t[0].item<double>());
  dist::destroy_process_group();
}

EMBER_DIST_WORKER(launched_rank1_fails) {
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(60));
  if (dist::get_rank() == 1) std::_Exit(5);
  dist::barrier();  // never completes: ember-run must stop this rank
}

std::string self_path() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return std::string(buf, n > 0 ? static_cast<size_t>(n) : 0);
}

int run_launcher(int nproc, const std::string& worker) {
  const std::string cmd = std::string(EMBER_SOURCE_DIR) + "/tools/ember-run --nproc " +
                          std::to_string(nproc) + " --master-port " +
                          std::to_string(dist_test::free_port()) + " " + self_path() +
                          " --ember-dist-worker=" + worker + " > /dev/null 2>&1";
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(EmberRun, StartsTheRanksOfAJob) { EXPECT_EQ(run_launcher(3, "launched_all_reduce"), 0); }

TEST(EmberRun, OneFailingRankFailsTheJobAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run_launcher(2, "launched_rank1_fails"), 5);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(EmberRun, RefusesAMissingRankCount) {
  const std::string cmd = std::string(EMBER_SOURCE_DIR) + "/tools/ember-run true > /dev/null 2>&1";
  int status = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

}  // namespace dist_launcher_test
