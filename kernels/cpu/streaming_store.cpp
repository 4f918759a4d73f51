#include "kernels/cpu/streaming_store.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>

namespace ember::kernels {
namespace {

// The largest data or unified cache of cpu0 as sysfs lists it ("32768K"), 0 when unreadable.
// Read before sysconf(_SC_LEVEL3_CACHE_SIZE), which glibc takes from cpuid and a VM can report
// wrongly: 256 MiB on the 2-core EPYC VM here, whose sysfs and lscpu say 32 MiB.
size_t largest_cache_from_sysfs() {
  size_t best = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i);
    std::ifstream type_file(dir + "/type"), size_file(dir + "/size");
    std::string type, size;
    if (!(type_file >> type) || !(size_file >> size)) break;
    if (type == "Instruction" || size.empty()) continue;
    char* end = nullptr;
    size_t bytes = std::strtoull(size.c_str(), &end, 10);
    if (*end == 'K') bytes <<= 10;
    if (*end == 'M') bytes <<= 20;
    if (*end == 'G') bytes <<= 30;
    if (bytes > best) best = bytes;
  }
  return best;
}

size_t default_threshold() {
  if (const size_t sysfs = largest_cache_from_sysfs(); sysfs >= (size_t(1) << 20)) return sysfs;
  const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return llc > 0 ? static_cast<size_t>(llc) : size_t(32) << 20;
}

// The threshold in force, 0 until first asked: every elementwise call reads it, so it is one
// relaxed load (no static-local guard); two threads racing to fill it store the same value.
std::atomic<size_t> g_threshold{0};

}  // namespace

size_t streaming_store_threshold() {
  const size_t t = g_threshold.load(std::memory_order_relaxed);
  if (t != 0) return t;
  const size_t d = default_threshold();
  g_threshold.store(d, std::memory_order_relaxed);
  return d;
}

void set_streaming_store_threshold(size_t bytes) {
  g_threshold.store(bytes != 0 ? bytes : default_threshold(), std::memory_order_relaxed);
}

}  // namespace ember::kernels
