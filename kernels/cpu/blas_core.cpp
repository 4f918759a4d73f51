// Which OpenBLAS kernels this process runs, and whether they are a fallback. Debian's OpenBLAS is
// built with DYNAMIC_ARCH: at load it picks a kernel set ("core") from a table of the CPUs it
// knew when it was released. A newer CPU missing from that table gets an old core: OpenBLAS
// 0.3.21 runs its SSE3 "Prescott" kernels on a Sapphire Rapids Xeon, at 12-25 GFLOP/s where
// oneDNN reaches 90-145. gemm_blas.cpp asks here before sending a product to OpenBLAS, so a
// dependency's CPU table does not decide Ember's speed.
//
// The check is by capability, not by CPU model: a core counts as a fallback when the CPU has
// AVX2 + FMA and the core is not one of OpenBLAS's AVX2/AVX-512 kernel sets. (OPENBLAS_CORETYPE
// forces a core; OPENBLAS_CORETYPE=Prescott reproduces the Xeon's situation on any x86 machine,
// which is how the tests cover the fallback routes.)
#include <cctype>
#include <string>

#include "kernels/cpu/gemm_cpu.h"

extern "C" char* openblas_get_corename(void);
extern "C" void openblas_set_num_threads(int);

namespace ember::cpu {

namespace {

bool cpu_has_avx2_fma() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;  // other architectures: trust OpenBLAS's choice
#endif
}

// OpenBLAS's x86-64 kernel sets that use AVX2 or AVX-512 FMA at full width (0.3.21 names; newer
// releases add names, which a lower-case prefix match keeps working for "sapphirerapids" etc.).
bool is_modern_core(const std::string& lower) {
  for (const char* name : {"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"})
    if (lower.rfind(name, 0) == 0) return true;
  return false;
}

struct CoreInfo {
  std::string name;
  bool fallback = false;
};

void pin_openblas_to_caller() { openblas_set_num_threads(1); }

// Every OpenBLAS product asks this first, so the pin below is repeated before the first one (in
// case a statically linked OpenBLAS initialised itself after Ember did).
const CoreInfo& core_info() {
  static const CoreInfo info = [] {
    pin_openblas_to_caller();
    CoreInfo i;
    const char* raw = openblas_get_corename();
    i.name = raw ? raw : "unknown";
    std::string lower = i.name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    i.fallback = cpu_has_avx2_fma() && !is_modern_core(lower);
    return i;
  }();
  return info;
}

// OpenBLAS runs on its caller's thread alone, from the moment Ember loads: its pthreads, which
// spin while they wait for work, would fight OpenMP's team (which also spins, and which oneDNN and
// Ember's own loops use) for the cores. Large products share out over that one team instead
// (gemm_blas.cpp), and set_num_threads leaves OpenBLAS alone.
const bool openblas_pinned_to_caller = [] {
  pin_openblas_to_caller();
  return true;
}();

}  // namespace

const char* openblas_core() { return core_info().name.c_str(); }
bool openblas_core_is_fallback() { return core_info().fallback; }

}  // namespace ember::cpu
