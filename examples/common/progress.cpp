#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <string>

namespace trainer {

namespace {

std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

}  // namespace

Progress::Progress(std::FILE* out, bool interactive, int epoch, int epochs, int64_t batches)
    : out_(out),
      interactive_(interactive),
      epoch_(epoch),
      epochs_(epochs),
      batches_(std::max<int64_t>(batches, 1)),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  next_plain_ = (batches_ + 9) / 10;
}

bool Progress::stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }

void Progress::update(int64_t batch_size, double loss) {
  ++done_;
  samples_ += batch_size;
  loss_sum_ += loss;
  if (interactive_) {
    // Redrawing costs a write per batch; ten times a second is plenty for a person.
    const auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ >= std::chrono::milliseconds(100) || done_ == batches_) {
      last_draw_ = now;
      print(false);
    }
  } else if (done_ >= next_plain_ && done_ < batches_) {
    next_plain_ += (batches_ + 9) / 10;
    print(false);
  }
}

double Progress::finish() {
  print(true);
  return done_ ? loss_sum_ / static_cast<double>(done_) : 0.0;
}

void Progress::print(bool final_line) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(samples_) / elapsed : 0.0;
  const double eta = done_ ? elapsed * static_cast<double>(batches_ - done_) / done_ : 0.0;
  const double mean_loss = done_ ? loss_sum_ / static_cast<double>(done_) : 0.0;
  std::string bar;
  if (interactive_) {
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(kWidth * done_ / batches_);
    bar = "[" + std::string(filled, '=') + (filled < kWidth ? ">" : "") +
          std::string(std::max(0, kWidth - filled - 1), ' ') + "] ";
  }
  std::fprintf(out_, "%sepoch %d/%d %s%lld/%lld loss %.4f %.0f samples/s %s %s%s",
               interactive_ ? "\r" : "", epoch_, epochs_, bar.c_str(),
               static_cast<long long>(done_), static_cast<long long>(batches_), mean_loss, rate,
               final_line ? "time" : "ETA", clock_text(final_line ? elapsed : eta).c_str(),
               interactive_ && !final_line ? "   " : "\n");
  std::fflush(out_);
}

}  // namespace trainer
