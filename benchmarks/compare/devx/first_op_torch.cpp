// BENCHMARKS.md §8 start-up, LibTorch side: `torch::ones({1}) + 1`, then `.item()`. The launcher
// exports T0_NS=$(date +%s%N) just before exec; this prints exec→main and exec→first result
// (CLOCK_REALTIME, ms).
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

static long long now_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main() {
  const long long t_main = now_ns();
  const float value = (torch::ones({1}) + 1).item<float>();
  const long long t_first = now_ns();
  const char* t0 = std::getenv("T0_NS");
  const long long t_exec = t0 ? std::atoll(t0) : t_main;
  std::printf("STARTUP exec_to_main_ms=%.3f exec_to_first_ms=%.3f value=%g\n",
              (t_main - t_exec) / 1e6, (t_first - t_exec) / 1e6, value);
  return value == 2.0f ? 0 : 1;
}
