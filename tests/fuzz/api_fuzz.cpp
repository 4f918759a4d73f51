// A seeded random driver of Ember's public API (issue #14). Each call takes arguments drawn from
// every dtype, 0-dim and 0-size shapes, non-contiguous and overlapping (expanded) views, dims,
// indices and sizes near the int64 limits, NaN/inf scalars and misused autograd; a call must end
// in a result or an ember::Error. Another exception fails the test; a crash names the call from its
// signal handler; a call running past the watchdog's limit aborts the program, naming it too.
//
// CI runs a seeded slice (EMBER_FUZZ_CALLS, default 3000; the ASan build runs it too). A long run:
//   EMBER_FUZZ_SEED=7 EMBER_FUZZ_CALLS=200000 build/release/tests/test_fuzz
// EMBER_FUZZ_VERBOSE=1 prints every call before making it.
#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "ember/ember.h"

#include "tests/fuzz/fuzz_args.h"

namespace ember_fuzz {

char g_current[512];  // a plain buffer: the signal handler may only write(2) it
std::atomic<int64_t> g_call_started_ms{0};

void set_current(const std::string& text) {
  std::snprintf(g_current, sizeof g_current, "%s", text.c_str());
  g_call_started_ms.store(std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now().time_since_epoch())
                              .count());
}

namespace {

int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoll(v, nullptr, 10) : fallback;
}

// What the crash handler says before the process dies.
void say_current_and_die(int sig) {
  const char prefix[] = "\napi_fuzz: died in call: ";
  (void)!write(2, prefix, sizeof prefix - 1);
  (void)!write(2, g_current, std::strlen(g_current));
  (void)!write(2, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::vector<Op> all_ops() {
  std::vector<Op> ops;
  for (auto family : {elementwise_ops(), shape_ops(), reduction_ops(), indexing_ops(),
                      factory_ops(), linalg_ops(), nn_ops(), autograd_ops(), module_ops()})
    ops.insert(ops.end(), family.begin(), family.end());
  return ops;
}

// Aborts the program, naming the call, when one runs longer than `limit_s`.
class Watchdog {
 public:
  explicit Watchdog(int64_t limit_s) : limit_ms_(limit_s * 1000), thread_([this] { run(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; })) {
      const int64_t started = g_call_started_ms.load();
      const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now().time_since_epoch())
                              .count();
      if (started != 0 && now - started > limit_ms_) {
        std::fprintf(stderr, "\napi_fuzz: a call ran for more than %lld s (a hang): %s\n",
                     static_cast<long long>(limit_ms_ / 1000), g_current);
        std::abort();
      }
    }
  }
  int64_t limit_ms_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

TEST(ApiFuzz, EveryCallEndsInAResultOrAnEmberError) {
  const uint64_t seed = static_cast<uint64_t>(env_int("EMBER_FUZZ_SEED", 20261203));
  const int64_t calls = env_int("EMBER_FUZZ_CALLS", 3000);
  const bool verbose = env_int("EMBER_FUZZ_VERBOSE", 0) != 0;
  for (int sig : {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT}) std::signal(sig, say_current_and_die);
  Watchdog watchdog(env_int("EMBER_FUZZ_CALL_LIMIT_S", 60));

  const std::vector<Op> ops = all_ops();
  ASSERT_GT(ops.size(), 250u);
  std::mt19937_64 pick(seed);
  int64_t results = 0, errors = 0, failures = 0;
  for (int64_t i = 0; i < calls; ++i) {
    const Op& op = ops[pick() % ops.size()];
    Ctx c;
    c.rng.seed(seed ^ (static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull));
    manual_seed(seed + static_cast<uint64_t>(i));
    const std::string head =
        "seed " + std::to_string(seed) + " call " + std::to_string(i) + " " + op.name;
    c.head = head;
    set_current(head);
    if (verbose) std::fprintf(stderr, "%s\n", head.c_str());
    try {
      op.call(c);
      ++results;
    } catch (const Error&) {
      ++errors;
    } catch (const std::exception& e) {
      ++failures;
      ADD_FAILURE() << head << " (args:" << c.desc.str() << ") threw a non-Ember "
                    << typeid(e).name() << ": " << e.what();
    }
    g_call_started_ms.store(0);
  }
  std::printf(
      "api_fuzz: seed %llu, %lld calls over %zu op variants: %lld results, %lld "
      "ember::Errors, %lld other exceptions\n",
      static_cast<unsigned long long>(seed), static_cast<long long>(calls), ops.size(),
      static_cast<long long>(results), static_cast<long long>(errors),
      static_cast<long long>(failures));
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace ember_fuzz
