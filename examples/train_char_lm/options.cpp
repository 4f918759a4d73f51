#include "options.h"

#include "cli.h"

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <map>

namespace char_lm {

using trainer::parse_choice;
using trainer::parse_int;
using trainer::parse_positive;

std::string Options::run_config() const {
  return "model=" + model + " epochs=" + std::to_string(epochs) +
         " steps=" + std::to_string(steps) + " batch_size=" + std::to_string(batch_size) +
         " seq_len=" + std::to_string(seq_len) + " lr=" + std::to_string(learning_rate()) +
         " scheduler=" + scheduler + " seed=" + std::to_string(seed) + " data=" + data;
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  using Setter = std::function<void(const std::string&, const std::string&)>;
  const std::map<std::string, Setter> with_value = {
      {"--model",
       [&](auto& f, auto& v) {
         o.model = parse_choice(f, v, {"lstm", "transformer"});
       }},
      {"--epochs",
       [&](auto& f, auto& v) { o.epochs = static_cast<int>(parse_int(f, v, 1, 1000)); }},
      {"--steps", [&](auto& f, auto& v) { o.steps = parse_int(f, v, 0, 100000000); }},
      {"--batch-size", [&](auto& f, auto& v) { o.batch_size = parse_int(f, v, 1, 4096); }},
      {"--seq-len", [&](auto& f, auto& v) { o.seq_len = parse_int(f, v, 2, 4096); }},
      {"--lr", [&](auto& f, auto& v) { o.lr = parse_positive(f, v); }},
      {"--scheduler",
       [&](auto& f, auto& v) {
         o.scheduler = parse_choice(f, v, {"none", "cosine"});
       }},
      {"--threads",
       [&](auto& f, auto& v) { o.threads = static_cast<int>(parse_int(f, v, 0, 1024)); }},
      {"--seed",
       [&](auto& f, auto& v) { o.seed = static_cast<uint64_t>(parse_int(f, v, 0, INT64_MAX)); }},
      {"--data", [&](auto&, auto& v) { o.data = v; }},
      {"--eval-chars", [&](auto& f, auto& v) { o.eval_chars = parse_int(f, v, 0, INT64_MAX); }},
      {"--sample-chars", [&](auto& f, auto& v) { o.sample_chars = parse_int(f, v, 0, 1000000); }},
      {"--temperature", [&](auto& f, auto& v) { o.temperature = parse_positive(f, v); }},
      {"--prompt", [&](auto&, auto& v) { o.prompt = v; }},
      {"--out", [&](auto&, auto& v) { o.out = v; }},
      {"--stop-after",
       [&](auto& f, auto& v) { o.stop_after = static_cast<int>(parse_int(f, v, 0, 1000)); }},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    const size_t eq = flag.find('=');
    const bool inline_value = flag.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    if (flag == "--help" || flag == "-h") {
      o.help = true;
      continue;
    }
    if (flag == "--resume") {
      if (inline_value) throw UsageError("--resume takes no value");
      o.resume = true;
      continue;
    }
    const auto it = with_value.find(flag);
    if (it == with_value.end()) throw UsageError("unknown flag '" + flag + "' (see --help)");
    if (!inline_value) {
      if (i + 1 >= args.size()) throw UsageError(flag + " needs a value");
      value = args[++i];
    }
    it->second(flag, value);
  }
  if (o.resume && o.out.empty()) throw UsageError("--resume needs --out (the run's folder)");
  if (o.prompt.empty()) throw UsageError("--prompt must not be empty");
  return o;
}

std::string usage(const std::string& program) {
  return "Usage: " + program + R"( [flags]
Trains a character-level language model on English text (Debian's `fortunes` package by default),
reports validation bits per character after each epoch, and prints generated text at the end.

  --model lstm|transformer  2-layer LSTM (hidden 256) or 3-layer pre-norm Transformer
                            (d_model 128, 4 heads, causal) (default lstm)
  --epochs N                passes (default 1)
  --steps N                 batches per epoch; 0 = the training characters once (default 0)
  --batch-size N            sequences per batch (default 32)
  --seq-len N               characters per sequence (default 128)
  --lr X                    AdamW learning rate (default 3e-3 lstm, 1e-3 transformer)
  --scheduler none|cosine   cosine decay per batch over the run (default cosine)
  --threads N               intra-op threads; 0 = Ember's default (default 0)
  --seed N                  initial weights, batches and sampling (default 0)
  --data PATH               a folder of text files or one file (default /usr/share/games/fortunes)
  --eval-chars N            validation characters scored per epoch; 0 = all (default 100000)
  --sample-chars N          characters generated after training (default 400)
  --temperature X           sampling temperature (default 0.8)
  --prompt TEXT             text the sample starts from (default "The ")
  --out DIR                 write checkpoint.safetensors, metrics.csv, curves.svg, sample.txt
  --resume                  continue the run in --out from its last epoch (same flags)
  --stop-after N            end after epoch N (a later --resume continues)
  --help                    this text
)";
}

}  // namespace char_lm
