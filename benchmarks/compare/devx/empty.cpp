// BENCHMARKS.md §8 start-up baseline: no tensor library, measured like first_op, so the launcher's
// own cost (date, exec, the C++ runtime) can be read off.
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
  const char* t0 = std::getenv("T0_NS");
  const long long t_exec = t0 ? std::atoll(t0) : t_main;
  std::printf("STARTUP exec_to_main_ms=%.3f exec_to_first_ms=%.3f value=0\n",
              (t_main - t_exec) / 1e6, (t_main - t_exec) / 1e6);
  return 0;
}
