// The character-level language model trainer (examples/train_char_lm): its flags, the corpus
// reader (fortune-style entries, index files skipped, the train/validation split), and short
// runs of both models on a small repetitive text: validation bits per character fall below the
// uniform model's, the report files appear, a sample starts with its prompt, and --resume
// continues a run. Its sources are compiled into this program (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ember/core/tempfile.h"
#include "examples/common/report.h"
#include "examples/train_char_lm/corpus.h"
#include "examples/train_char_lm/options.h"
#include "examples/train_char_lm/training.h"

namespace char_lm_test {

std::string usage_error(const std::vector<std::string>& args) {
  try {
    char_lm::parse_options(args);
  } catch (const char_lm::UsageError& e) {
    return e.what();
  }
  return "";
}

void write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

/// A fortune-style folder: `entries` short sentences separated by '%' lines, plus an index file
/// (name with a '.') that the reader must skip.
std::string make_corpus(const ember::TempDir& dir, int entries) {
  const std::vector<std::string> lines = {"the cat sat on the mat.", "a dog ate the bone.",
                                          "the sun is hot today.", "we like to read books."};
  std::string text;
  for (int i = 0; i < entries; ++i) text += lines[static_cast<size_t>(i) % lines.size()] + "\n%\n";
  write(dir.name + "/sayings", text);
  write(dir.name + "/sayings.dat", std::string("\x01\x02\xff", 3));
  return dir.name;
}

TEST(CharLmTrainer, DefaultsAndFlags) {
  const char_lm::Options o = char_lm::parse_options({});
  EXPECT_EQ(o.model, "lstm");
  EXPECT_EQ(o.data, "/usr/share/games/fortunes");
  EXPECT_DOUBLE_EQ(o.learning_rate(), 3e-3);
  const char_lm::Options t = char_lm::parse_options({"--model=transformer", "--seq-len", "64"});
  EXPECT_EQ(t.model, "transformer");
  EXPECT_EQ(t.seq_len, 64);
  EXPECT_DOUBLE_EQ(t.learning_rate(), 1e-3);
  EXPECT_NE(usage_error({"--model", "gru"}).find("lstm|transformer"), std::string::npos);
  EXPECT_NE(usage_error({"--seq-len", "1"}).find("[2, 4096]"), std::string::npos);
  EXPECT_NE(usage_error({"--resume"}).find("--out"), std::string::npos);
  EXPECT_NE(usage_error({"--what"}).find("unknown flag"), std::string::npos);
  EXPECT_NE(char_lm::usage("train_char_lm").find("--model lstm|transformer"), std::string::npos);
}

TEST(CharLmTrainer, CorpusSplitsEntriesAndSkipsIndexFiles) {
  ember::TempDir dir = *ember::try_make_tempdir("char-lm-corpus-");
  const char_lm::Corpus c = char_lm::load_corpus(make_corpus(dir, 200), 10);
  // Every 20th of the 200 entries is validation; no '%' separator and no index byte survives.
  EXPECT_EQ(c.vocab.find('%'), std::string::npos);
  EXPECT_EQ(c.vocab.find('\xff'), std::string::npos);
  EXPECT_GT(c.train.size(0), 15 * c.valid.size(0));
  EXPECT_GT(c.valid.size(0), 150);
  EXPECT_EQ(c.decode(c.encode("the mat")[4].item<int64_t>()), 'm');
  EXPECT_THROW(c.encode("Z"), ember::Error);
  EXPECT_THROW(char_lm::load_corpus(dir.name + "/missing", 10), ember::Error);
  EXPECT_THROW(char_lm::load_corpus(make_corpus(dir, 200), 100000), ember::Error);
}

/// Runs a short training of `model` in a fresh folder; returns the metrics rows.
std::vector<trainer::EpochMetrics> short_run(const std::string& model, const std::string& data,
                                             const std::string& out, int stop_after, bool resume) {
  std::vector<std::string> args = {
      "--model",      model, "--data",         data, "--out",     out,
      "--epochs",     "3",   "--steps",        "40", "--seq-len", "32",
      "--batch-size", "16",  "--sample-chars", "30", "--prompt",  "the "};
  if (model == "transformer") args.insert(args.end(), {"--lr", "3e-3"});
  if (stop_after > 0) args.insert(args.end(), {"--stop-after", std::to_string(stop_after)});
  if (resume) args.push_back("--resume");
  EXPECT_EQ(char_lm::train(char_lm::parse_options(args)), 0);
  return trainer::read_metrics_csv(out + "/metrics.csv");
}

void expect_learns(const std::string& model) {
  ember::TempDir dir = *ember::try_make_tempdir("char-lm-run-");
  const std::string data = make_corpus(dir, 400), out = dir.name + "/run";
  const auto rows = short_run(model, data, out, 2, false);  // epochs 1 and 2 of 3
  ASSERT_EQ(rows.size(), 2u);
  // The text has 22 distinct bytes: a model that learnt nothing scores log2(22) = 4.46 bits.
  const double uniform =
      std::log2(static_cast<double>(char_lm::load_corpus(data, 10).vocab_size()));
  EXPECT_LT(rows[1].test_loss, 0.6 * uniform) << model;
  EXPECT_LT(rows[1].test_loss, rows[0].test_loss) << model;
  EXPECT_NE(read(out + "/curves.svg").find("<svg"), std::string::npos);
  // --resume continues after epoch 2 and samples at the end; other flags are refused.
  const auto resumed = short_run(model, data, out, 0, true);
  ASSERT_EQ(resumed.size(), 3u);
  EXPECT_DOUBLE_EQ(resumed[1].test_loss, rows[1].test_loss);
  EXPECT_EQ(read(out + "/sample.txt").rfind("the ", 0), 0u);
  std::vector<std::string> other = {"--model", model,      "--data",   data, "--out",
                                    out,       "--resume", "--epochs", "4"};
  EXPECT_THROW(char_lm::train(char_lm::parse_options(other)), ember::Error);
}

TEST(CharLmTrainer, LstmLearnsAndResumes) { expect_learns("lstm"); }
TEST(CharLmTrainer, TransformerLearnsAndResumes) { expect_learns("transformer"); }

}  // namespace char_lm_test
