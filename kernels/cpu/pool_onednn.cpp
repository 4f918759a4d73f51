// Average pooling on oneDNN's pooling_v2 primitives.
//
// Where oneDNN applies: windowed (not adaptive) average pooling without divisor_override, in
// float32 or bfloat16, on any strides (plain NCHW/NHWC layouts reach its JIT kernels). Its
// divisors match PyTorch's when no window lies wholly in the padding (PyTorch writes 0 there,
// oneDNN would divide by zero) and, with count_include_pad, when no window reaches past the
// right padding (PyTorch clips the divisor at in + pad, oneDNN counts the whole kernel). Max
// pooling stays on our loops: oneDNN's workspace is not PyTorch's int64 index and its max does
// not propagate NaN as PyTorch's does.
//
// Primitives are cached by everything they are specialised on (direction, dtype, algorithm,
// sizes, strides, window) in one map behind a mutex, so a training loop creates each once; a
// configuration oneDNN refuses is cached too, so it is asked once. Cached primitives run on any
// thread, so each call brings its own scratchpad (scratchpad_mode::user): oneDNN's library
// scratchpad is shared by all primitives and only safe when a primitive runs on the thread that
// created it (the race that corrupted concurrent convolutions, see conv_onednn.cpp).
#include "kernels/cpu/pool_onednn.h"

#include <dnnl.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <mutex>

#include "kernels/cpu/gemm_cpu.h"
#include "kernels/cpu/onednn_scratch.h"

namespace ember::kernels {
namespace {

using dnnl::memory;

dnnl::engine& pool_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

using PoolKey = std::array<int64_t, 40>;

struct PoolEntry {
  bool ok = false;
  dnnl::primitive prim;
  memory::desc src, dst, scratchpad;
};

dnnl::primitive_attr pool_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

std::mutex g_pool_cache_mutex;
std::map<PoolKey, std::shared_ptr<PoolEntry>>& pool_cache() {
  static std::map<PoolKey, std::shared_ptr<PoolEntry>> cache;
  return cache;
}

// True when PyTorch's average divisor and oneDNN's agree for every window (see the file comment).
bool pool_divisors_agree(const PoolParams& p) {
  for (int i = 0; i < kPoolMaxDims; ++i) {
    const int64_t in = p.in.size[i], out = p.out.size[i];
    const int64_t last_start = (out - 1) * p.stride[i] - p.pad[i];
    if (last_start >= in) return false;
    if (p.count_include_pad && last_start + p.kernel[i] > in + p.pad[i]) return false;
    if (p.dilation[i] != 1) return false;
  }
  return true;
}

// A memory descriptor of a (N, C, [D,] H, W) operand with its element strides.
memory::desc pool_desc(memory::data_type dt, const PoolParams& p, const PoolGeometry& g,
                       bool three_d) {
  memory::dims dims{p.batch, p.channels}, strides{g.stride_n, g.stride_c};
  for (int i = three_d ? 0 : 1; i < kPoolMaxDims; ++i) {
    dims.push_back(g.size[i]);
    strides.push_back(g.stride[i]);
  }
  return memory::desc(dims, dt, strides);
}

std::shared_ptr<PoolEntry> pool_entry(ScalarType dtype, memory::data_type dt, const PoolParams& p,
                                      bool backward) {
  PoolKey key{};
  size_t n = 0;
  auto put = [&](int64_t v) { key[n++] = v; };
  put(static_cast<int64_t>(dtype));
  put(backward);
  put(p.count_include_pad);
  put(p.batch);
  put(p.channels);
  for (const PoolGeometry* g : {&p.in, &p.out}) {
    put(g->stride_n);
    put(g->stride_c);
    for (int i = 0; i < kPoolMaxDims; ++i) {
      put(g->size[i]);
      put(g->stride[i]);
    }
  }
  for (int i = 0; i < kPoolMaxDims; ++i) {
    put(p.kernel[i]);
    put(p.stride[i]);
    put(p.pad[i]);
  }
  std::lock_guard<std::mutex> lock(g_pool_cache_mutex);
  auto& slot = pool_cache()[key];
  if (slot) return slot;
  slot = std::make_shared<PoolEntry>();
  // 2-d and 1-d poolings (a leading spatial dim of 1 with no window along it) run as 2-d.
  const bool three_d =
      !(p.in.size[0] == 1 && p.out.size[0] == 1 && p.kernel[0] == 1 && p.pad[0] == 0);
  memory::dims strides, kernel, dilation, pad_l, pad_r;
  for (int i = three_d ? 0 : 1; i < kPoolMaxDims; ++i) {
    strides.push_back(p.stride[i]);
    kernel.push_back(p.kernel[i]);
    dilation.push_back(0);  // oneDNN counts dilation from 0
    pad_l.push_back(p.pad[i]);
    // The right padding that makes oneDNN's output size ours (0 when the windows end inside).
    pad_r.push_back(std::max<int64_t>(
        0, (p.out.size[i] - 1) * p.stride[i] + p.kernel[i] - p.in.size[i] - p.pad[i]));
  }
  const auto alg = p.count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                       : dnnl::algorithm::pooling_avg_exclude_padding;
  try {
    slot->src = pool_desc(dt, p, p.in, three_d);
    slot->dst = pool_desc(dt, p, p.out, three_d);
    const auto prop =
        backward ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
    dnnl::pooling_v2_forward::desc fwd(prop, alg, slot->src, slot->dst, strides, kernel, dilation,
                                       pad_l, pad_r);
    dnnl::pooling_v2_forward::primitive_desc fwd_pd(fwd, pool_attr(), pool_engine());
    if (!backward) {
      slot->scratchpad = fwd_pd.scratchpad_desc();
      slot->prim = dnnl::pooling_v2_forward(fwd_pd);
    } else {
      dnnl::pooling_v2_backward::desc bwd(alg, slot->src, slot->dst, strides, kernel, dilation,
                                          pad_l, pad_r);
      dnnl::pooling_v2_backward::primitive_desc bwd_pd(bwd, pool_attr(), pool_engine(), fwd_pd);
      slot->scratchpad = bwd_pd.scratchpad_desc();
      slot->prim = dnnl::pooling_v2_backward(bwd_pd);
    }
    slot->ok = true;
  } catch (const dnnl::error&) {
    slot->ok = false;  // unsupported here: our loops run instead
  }
  return slot;
}

}  // namespace

bool onednn_avg_pool(ScalarType dtype, const PoolParams& p, bool backward) {
  memory::data_type dt;
  if (dtype == ScalarType::Float)
    dt = memory::data_type::f32;
  else if (dtype == ScalarType::BFloat16)
    dt = memory::data_type::bf16;
  else
    return false;
  if (p.adaptive || p.divisor_override != 0 || p.batch * p.channels == 0) return false;
  if (p.in.volume() == 0 || p.out.volume() == 0 || !pool_divisors_agree(p)) return false;
  const std::shared_ptr<PoolEntry> e = pool_entry(dtype, dt, p, backward);
  if (!e->ok) return false;
  cpu::sync_omp_threads();
  thread_local dnnl::stream stream(pool_engine());
  thread_local OnednnScratch scratchpad_buffer;
  memory src(e->src, pool_engine(), p.input);
  memory dst(e->dst, pool_engine(), p.output);
  memory scratchpad(e->scratchpad, pool_engine(), scratchpad_buffer.get(e->scratchpad.get_size()));
  if (backward)
    e->prim.execute(
        stream,
        {{DNNL_ARG_DIFF_SRC, src}, {DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_SCRATCHPAD, scratchpad}});
  else
    e->prim.execute(stream,
                    {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_SCRATCHPAD, scratchpad}});
  stream.wait();
  return true;
}

}  // namespace ember::kernels
