// Per-epoch progress: on a terminal one line redrawn in place (a bar, batch, running loss,
// samples/s, ETA); otherwise (a log file, CI) a plain line every tenth of the epoch, so logs stay
// readable.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace trainer {

class Progress {
 public:
  /// `out` is where lines go; `interactive` says whether it is a terminal.
  Progress(std::FILE* out, bool interactive, int epoch, int epochs, int64_t batches);
  /// After each batch: its size and loss.
  void update(int64_t batch_size, double loss);
  /// Ends the epoch's line; returns the mean loss over the epoch's batches.
  double finish();

  /// Whether stdout is a terminal.
  static bool stdout_is_terminal();

 private:
  void print(bool final_line);

  std::FILE* out_;
  bool interactive_;
  int epoch_, epochs_;
  int64_t batches_, done_ = 0, samples_ = 0;
  double loss_sum_ = 0;
  int64_t next_plain_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace trainer
