// The example trainer's command line and report files (examples/train_fashion_mnist): flags and
// their errors, --help, and the metrics CSV read back for --resume. Its sources are compiled into
// this program (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ember/core/tempfile.h"
#include "examples/common/report.h"
#include "examples/train_fashion_mnist/options.h"

namespace trainer_cli_test {

using trainer::Options;
using trainer::parse_options;
using trainer::UsageError;

std::string usage_error(const std::vector<std::string>& args) {
  try {
    parse_options(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(TrainerCli, DefaultsAreTheReadmeRun) {
  const Options o = parse_options({});
  EXPECT_EQ(o.model, "mlp");
  EXPECT_EQ(o.epochs, 1);
  EXPECT_EQ(o.batch_size, 64);
  EXPECT_EQ(o.optimizer, "sgd");
  EXPECT_DOUBLE_EQ(o.learning_rate(), 0.01);
  EXPECT_EQ(o.scheduler, "none");
  EXPECT_EQ(o.data, "/usr/share/datasets/fashion-mnist");
  EXPECT_FALSE(o.help);
  EXPECT_FALSE(o.resume);
}

TEST(TrainerCli, EveryFlagInBothSpellings) {
  const Options o =
      parse_options({"--model",   "mlp",   "--epochs=5",        "--batch-size", "128",
                     "--lr",      "0.002", "--optimizer=adamw", "--scheduler",  "cosine",
                     "--threads", "2",     "--seed=7",          "--device",     "cpu",
                     "--data",    "/d",    "--out=/o",          "--resume",     "--workers",
                     "0"});
  EXPECT_EQ(o.epochs, 5);
  EXPECT_EQ(o.batch_size, 128);
  EXPECT_DOUBLE_EQ(o.learning_rate(), 0.002);
  EXPECT_EQ(o.optimizer, "adamw");
  EXPECT_EQ(o.scheduler, "cosine");
  EXPECT_EQ(o.threads, 2);
  EXPECT_EQ(o.seed, 7u);
  EXPECT_EQ(o.data, "/d");
  EXPECT_EQ(o.out, "/o");
  EXPECT_TRUE(o.resume);
  EXPECT_EQ(o.workers, 0);
  EXPECT_DOUBLE_EQ(parse_options({"--optimizer", "adam"}).learning_rate(), 1e-3);
  EXPECT_EQ(parse_options({"--stop-after", "2"}).stop_after, 2);
  // The run's identity for --resume: what shapes the numbers, not where files go.
  EXPECT_EQ(o.run_config(),
            "--model mlp --epochs 5 --batch-size 128 --lr 0.002 --optimizer adamw --scheduler "
            "cosine --seed 7");
  EXPECT_EQ(parse_options({"--workers", "3", "--out", "x"}).run_config(),
            parse_options({}).run_config());
  EXPECT_TRUE(parse_options({"--help"}).help);
  EXPECT_TRUE(parse_options({"-h"}).help);
}

TEST(TrainerCli, BadFlagsSayWhatIsWrong) {
  EXPECT_NE(usage_error({"--epoch", "3"}).find("unknown argument '--epoch'"), std::string::npos);
  EXPECT_NE(usage_error({"--epochs"}).find("--epochs needs a value"), std::string::npos);
  EXPECT_NE(usage_error({"--epochs", "0"}).find("--epochs expects an integer in [1, 1000]"),
            std::string::npos);
  EXPECT_NE(usage_error({"--epochs", "3x"}).find("got '3x'"), std::string::npos);
  EXPECT_NE(usage_error({"--lr", "-1"}).find("--lr expects a positive number"), std::string::npos);
  EXPECT_NE(usage_error({"--lr", "nan"}).find("--lr expects a positive number"), std::string::npos);
  EXPECT_NE(usage_error({"--optimizer", "lamb"}).find("one of sgd|adam|adamw, got 'lamb'"),
            std::string::npos);
  EXPECT_NE(usage_error({"--scheduler", "linear"}).find("none|step|cosine|onecycle"),
            std::string::npos);
  EXPECT_NE(usage_error({"--resume"}).find("--resume needs --out"), std::string::npos);
  EXPECT_NE(usage_error({"stray"}).find("unknown argument 'stray'"), std::string::npos);
}

TEST(TrainerCli, UsageListsEveryFlag) {
  const std::string text = trainer::usage("train_fashion_mnist");
  for (const char* flag :
       {"--model", "--epochs", "--batch-size", "--lr", "--optimizer", "--scheduler", "--threads",
        "--workers", "--seed", "--device", "--data", "--out", "--resume", "--stop-after", "--help"})
    EXPECT_NE(text.find(flag), std::string::npos) << flag;
}

TEST(TrainerReport, MetricsCsvReadsBackAndSvgIsWritten) {
  ember::TempDir dir = *ember::try_make_tempdir("trainer-report-");
  const std::vector<trainer::EpochMetrics> rows = {{1, 0.61234567, 0.5, 81.25, 0.01, 9.5},
                                                   {2, 0.41, 0.45, 84.5, 0.005, 9.25}};
  trainer::write_metrics_csv(dir.name + "/metrics.csv", rows);
  const auto back = trainer::read_metrics_csv(dir.name + "/metrics.csv");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].epoch, 2);
  EXPECT_DOUBLE_EQ(back[0].train_loss, 0.61234567);
  EXPECT_DOUBLE_EQ(back[1].test_accuracy, 84.5);
  EXPECT_DOUBLE_EQ(back[1].lr, 0.005);
  EXPECT_TRUE(trainer::read_metrics_csv(dir.name + "/absent.csv").empty());

  trainer::write_curves_svg(dir.name + "/curves.svg", rows);
  std::ifstream svg(dir.name + "/curves.svg");
  std::stringstream text;
  text << svg.rdbuf();
  EXPECT_EQ(text.str().rfind("<svg", 0), 0u);
  EXPECT_NE(text.str().find("test accuracy"), std::string::npos);
  EXPECT_NE(text.str().find("</svg>"), std::string::npos);
  std::remove((dir.name + "/metrics.csv").c_str());
  std::remove((dir.name + "/curves.svg").c_str());
}

}  // namespace trainer_cli_test
