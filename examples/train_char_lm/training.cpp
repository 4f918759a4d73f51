#include "training.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "corpus.h"
#include "ember/ember.h"
#include "model.h"
#include "progress.h"
#include "report.h"

namespace char_lm {

namespace F = ember::nn::functional;
using trainer::EpochMetrics;
using trainer::is_file;
using trainer::make_dir;
using trainer::seconds_since;

namespace {

const double kLn2 = std::log(2.0);

/// `count` windows of T + 1 characters of `ids` starting at `starts` [B]: inputs and targets
/// [B, T] (targets are the inputs shifted by one).
std::pair<Tensor, Tensor> windows(const Tensor& ids, const Tensor& starts, int64_t T) {
  const int64_t B = starts.size(0);
  const Tensor idx = starts.unsqueeze(1) + ember::arange(T + 1).unsqueeze(0);
  const Tensor w = ids.index_select(0, idx.reshape({-1})).view({B, T + 1});
  return {w.slice(1, 0, T), w.slice(1, 1, T + 1)};
}

struct Evaluation {
  double bits_per_char = 0, accuracy = 0;
};

/// Scores the first `chars` validation characters (all for 0) in windows of T, each window
/// starting from a fresh state.
Evaluation evaluate(CharModel& model, const Tensor& valid, int64_t T, int64_t chars) {
  model.module->eval();
  ember::NoGradGuard no_grad;
  const int64_t usable = valid.size(0) - 1;
  const int64_t n = (chars > 0 ? std::min(chars, usable) : usable) / T;
  double nats = 0;
  int64_t correct = 0;
  for (int64_t i = 0; i < n; i += 64) {
    const int64_t b = std::min<int64_t>(64, n - i);
    const Tensor starts = ember::arange(i, i + b) * T;
    auto [x, y] = windows(valid, starts, T);
    const Tensor logits = model.logits(x);
    const Tensor flat = logits.reshape({-1, logits.size(-1)});
    nats +=
        F::cross_entropy(flat, y.reshape({-1}), F::CrossEntropyFuncOptions().reduction(ember::kSum))
            .item<double>();
    correct += flat.argmax(1).eq(y.reshape({-1})).sum().item<int64_t>();
  }
  model.module->train();
  const double scored = static_cast<double>(std::max<int64_t>(1, n * T));
  return {nats / scored / kLn2, 100.0 * static_cast<double>(correct) / scored};
}

/// `count` characters after `prompt`, drawn from softmax(logits / temperature).
std::string sample(CharModel& model, const Corpus& corpus, const std::string& prompt, int64_t count,
                   double temperature) {
  model.module->eval();
  ember::NoGradGuard no_grad;
  model.reset();
  const Tensor prompt_ids = corpus.encode(prompt);
  Tensor logits;
  for (int64_t i = 0; i < prompt_ids.size(0); ++i)
    logits = model.step(prompt_ids[i].item<int64_t>());
  std::string text = prompt;
  for (int64_t i = 0; i < count; ++i) {
    const Tensor p = (logits.to(ember::kFloat64) / temperature).softmax(0);
    const double* prob = p.data_ptr<double>();
    double u = ember::rand({1}, ember::kFloat64).item<double>(), acc = 0;
    int64_t id = p.size(0) - 1;
    for (int64_t j = 0; j < p.size(0); ++j) {
      acc += prob[j];
      if (u < acc) {
        id = j;
        break;
      }
    }
    text += corpus.decode(id);
    logits = model.step(id);
  }
  model.module->train();
  return text;
}

}  // namespace

int train(const Options& o) {
  if (o.threads > 0) ember::set_num_threads(o.threads);
  const auto t0 = std::chrono::steady_clock::now();
  const Corpus corpus = load_corpus(o.data, o.seq_len + 1);
  const int64_t V = corpus.vocab_size(), T = o.seq_len, N = corpus.train.size(0);
  std::printf(
      "read %lld training and %lld validation characters (%lld distinct) from %s in %.2f s\n",
      static_cast<long long>(N), static_cast<long long>(corpus.valid.size(0)),
      static_cast<long long>(V), corpus.source.c_str(), seconds_since(t0));

  ember::manual_seed(o.seed);
  CharModel model = make_model(o.model, V, T);
  const std::vector<Tensor> params = model.module->parameters();
  int64_t weights = 0;
  for (const Tensor& p : params) weights += p.numel();
  std::printf("model %s: %lld parameters\n", o.model.c_str(), static_cast<long long>(weights));
  ember::optim::AdamW optimizer(params,
                                ember::optim::AdamWOptions(o.learning_rate()).weight_decay(0.01));
  const int64_t steps = o.steps > 0 ? o.steps : std::max<int64_t>(1, N / (o.batch_size * T));
  std::unique_ptr<ember::optim::CosineAnnealingLR> scheduler;
  if (o.scheduler == "cosine")
    scheduler = std::make_unique<ember::optim::CosineAnnealingLR>(optimizer, o.epochs * steps);

  std::vector<EpochMetrics> history;
  int first_epoch = 0;
  const std::string checkpoint = o.out.empty() ? "" : o.out + "/checkpoint.safetensors";
  if (!o.out.empty()) make_dir(o.out);
  if (o.resume) {
    if (!is_file(checkpoint)) throw ember::Error("--resume: no checkpoint at " + checkpoint);
    ember::serialize::InputArchive in, part;
    in.load_from(checkpoint);
    ember::IValue config, vocab, epoch;
    in.read("config", config);
    if (config.toStringRef() != o.run_config())
      throw ember::Error("--resume: " + checkpoint + " was written by a run with " +
                         config.toStringRef() + "; this one has " + o.run_config() +
                         " (pass the same flags to continue it)");
    in.read("vocab", vocab);
    if (vocab.toStringRef() != corpus.vocab)
      throw ember::Error("--resume: the text under --data has another alphabet than the run's");
    in.read("model", part);
    model.module->load(part);
    in.read("optimizer", part);
    optimizer.load(part);
    if (scheduler) {
      in.read("scheduler", part);
      scheduler->load(part);
    }
    in.read("epoch", epoch);
    first_epoch = static_cast<int>(epoch.toInt());
    history = trainer::read_metrics_csv(o.out + "/metrics.csv");
    history.resize(std::min<size_t>(history.size(), static_cast<size_t>(first_epoch)));
    std::printf("resumed from %s after epoch %d\n", checkpoint.c_str(), first_epoch);
  }

  const bool terminal = trainer::Progress::stdout_is_terminal();
  for (int epoch = first_epoch; epoch < o.epochs; ++epoch) {
    // Each epoch's batches depend only on the seed and the epoch (a resumed run draws the same).
    ember::manual_seed(o.seed * 1000003 + static_cast<uint64_t>(epoch) + 1);
    const auto start = std::chrono::steady_clock::now();
    const double lr = optimizer.param_groups()[0].options().get_lr();
    trainer::Progress progress(stdout, terminal, epoch + 1, o.epochs, steps);
    for (int64_t s = 0; s < steps; ++s) {
      auto [x, y] = windows(corpus.train, ember::randint(0, N - T, {o.batch_size}), T);
      const Tensor logits = model.logits(x);
      Tensor loss = F::cross_entropy(logits.reshape({-1, V}), y.reshape({-1}));
      optimizer.zero_grad();
      loss.backward();
      ember::nn::utils::clip_grad_norm_(params, 1.0);
      optimizer.step();
      if (scheduler) scheduler->step();
      progress.update(o.batch_size, loss.item<double>() / kLn2);  // shown in bits per character
    }
    const double train_bpc = progress.finish();
    const Evaluation val = evaluate(model, corpus.valid, T, o.eval_chars);
    history.push_back(
        {epoch + 1, train_bpc, val.bits_per_char, val.accuracy, lr, seconds_since(start)});
    std::printf(
        "epoch %d/%d: train %.3f, validation %.3f bits per character; next-character "
        "accuracy %.1f%%\n",
        epoch + 1, o.epochs, train_bpc, val.bits_per_char, val.accuracy);
    if (!o.out.empty()) {
      ember::serialize::OutputArchive out, part_model, part_opt, part_sched;
      model.module->save(part_model);
      out.write("model", part_model);
      optimizer.save(part_opt);
      out.write("optimizer", part_opt);
      if (scheduler) {
        scheduler->save(part_sched);
        out.write("scheduler", part_sched);
      }
      out.write("epoch", ember::IValue(static_cast<int64_t>(epoch + 1)));
      out.write("config", ember::IValue(o.run_config()));
      out.write("vocab", ember::IValue(corpus.vocab));
      out.save_to(checkpoint);
      // metrics.csv / curves.svg: "loss" columns hold bits per character, "accuracy" the
      // validation next-character accuracy.
      trainer::write_metrics_csv(o.out + "/metrics.csv", history);
      trainer::write_curves_svg(o.out + "/curves.svg", history);
    }
    if (o.stop_after > 0 && epoch + 1 == o.stop_after && epoch + 1 < o.epochs) {
      std::printf("stopping after epoch %d (--stop-after); --resume continues\n", epoch + 1);
      return 0;
    }
  }
  if (o.sample_chars > 0) {
    ember::manual_seed(o.seed + 7);
    const std::string text = sample(model, corpus, o.prompt, o.sample_chars, o.temperature);
    std::printf("sample (temperature %g):\n%s\n", o.temperature, text.c_str());
    if (!o.out.empty()) trainer::write_file_atomically(o.out + "/sample.txt", text + "\n");
  }
  if (!o.out.empty())
    std::printf("wrote checkpoint.safetensors, metrics.csv, curves.svg%s to %s\n",
                o.sample_chars > 0 ? " and sample.txt" : "", o.out.c_str());
  return 0;
}

}  // namespace char_lm
