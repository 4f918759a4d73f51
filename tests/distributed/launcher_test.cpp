// tools/ember-run: the ranks it starts find each other through env://, and one failing rank
// fails the job at once (the others are stopped) with that rank's exit status.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

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

// One rank per "machine" of a two-machine job: world size 2, local rank 0, global rank 0 or 1.
EMBER_DIST_WORKER(launched_one_per_node) {
  DIST_CHECK(std::string(std::getenv("LOCAL_RANK")) == "0", "LOCAL_RANK {}",
             std::getenv("LOCAL_RANK"));
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(30));
  DIST_CHECK(dist::get_world_size() == 2, "world size {}", dist::get_world_size());
  auto t = ember::full({1}, static_cast<double>(dist::get_rank() + 1));
  dist::all_reduce(t);
  DIST_CHECK(t.item<double>() == 3, "sum {} (ranks 0 and 1 expected)", t.item<double>());
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

// --nnodes / --node-rank: two "machines" (two ember-run calls here) of one rank each make one job
// of world size 2, global ranks 0 and 1.
TEST(EmberRun, NodesOfAMultiMachineJob) {
  const std::string run = std::string(EMBER_SOURCE_DIR) + "/tools/ember-run --nproc 1 --nnodes 2 " +
                          "--master-port " + std::to_string(dist_test::free_port());
  const std::string worker = self_path() + " --ember-dist-worker=launched_one_per_node";
  const std::string cmd = "sh -c '" + run + " --node-rank 1 " + worker + " & other=$!; " + run +
                          " --node-rank 0 " + worker + "; mine=$?; wait $other; " +
                          "exit $((mine + $?))' > /dev/null 2>&1";
  int status = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  const std::string bad =
      std::string(EMBER_SOURCE_DIR) +
      "/tools/ember-run --nproc 1 --nnodes 2 --node-rank 2 true > /dev/null 2>&1";
  status = std::system(bad.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

TEST(EmberRun, RefusesAMissingRankCount) {
  const std::string cmd = std::string(EMBER_SOURCE_DIR) + "/tools/ember-run true > /dev/null 2>&1";
  int status = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

}  // namespace dist_launcher_test

namespace dist_launcher_test {

// The README's distributed command: two ranks of the Fashion-MNIST trainer under ember-run, one
// epoch on the real data set (a release build; the sanitizer build has no examples).
TEST(DistributedTrainer, TwoRanksTrainFashionMnistWithDdp) {
  const std::string trainer = std::string(EMBER_BINARY_DIR) + "/examples/train_fashion_mnist";
  if (::access(trainer.c_str(), X_OK) != 0) GTEST_SKIP() << "the examples are not built here";
  if (::access("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", R_OK) != 0)
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const std::string cmd = std::string(EMBER_SOURCE_DIR) + "/tools/ember-run --nproc 2 " +
                          "--master-port " + std::to_string(dist_test::free_port()) + " " +
                          trainer + " --distributed --epochs 1 --threads 1 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), pipe)) output.append(buf, n);
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  // Rank 0 alone reports: one epoch line, with the accuracy of 469 steps of batch 2 x 64.
  const auto at = output.find("test accuracy ");
  ASSERT_NE(at, std::string::npos) << output;
  EXPECT_EQ(output.find("test accuracy ", at + 1), std::string::npos) << "two ranks reported";
  const double accuracy = std::stod(output.substr(at + 14));
  EXPECT_GE(accuracy, 80.0) << output;
}

}  // namespace dist_launcher_test
