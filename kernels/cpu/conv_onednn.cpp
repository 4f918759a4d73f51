// float32 and bfloat16 convolution through oneDNN's convolution primitives (forward, backward
// data, backward weights). Transposed convolution reaches these same three through
// kernels/common/conv_params.h's mapping, so oneDNN's deconvolution primitive is not needed.
//
// Layouts (BENCHMARKS.md §4's L2, x[32,64,16,16] -> y[32,128,16,16], float32, 1 thread pinned
// to one core of this 2-core AMD EPYC, best of 35 calls, while other builds loaded the machine;
// raw oneDNN in a lab program, reorders included where the tensor is nchw):
//   nchw x/y, oihw w (plain everywhere):             13.8 ms  (oneDNN picks gemm:jit, im2col)
//   nchw x/y, w in oneDNN's choice (any):            13.6 ms  (still gemm:jit)
//   x/y/w in oneDNN's choice, reorders in and out:   11.6 ms  (brgconv:avx512_core)
//   nChw16c x/y without reorders (a blocked model):   9.7 ms  (jit:avx512_core)
//   nhwc x/y, w in oneDNN's choice:                  10.2 ms  (brgconv:avx512_core)
//   nhwc x/y, plain ohwi/hwio/oihw w:              >2000 ms  (only the reference kernel)
// So the weights always take oneDNN's layout (a reorder of 74k floats, ~20 us per call: caching
// it would need the weight's identity, and a storage address plus version counter can repeat
// after a free); channels-last x/y are used as they are; NC... x/y go through oneDNN's choice
// with a reorder in and out (into per-thread buffers kept between calls), which beats the plain
// gemm path. Side by side at the same time, Debian's LibTorch 1.13.1: nchw 16.5-17 ms, channels-
// last 10.4 ms; Ember: nchw 11.8 ms, channels-last 10.3 ms. On AVX-512 the forward output of NC...
// tensors is asked for blocked (forward_asks below: the reorder back from it is the cheaper one),
// except small float32 2-d outputs, which run brgconv over channels-last x and y.
//
// Primitives (and their reorders) are cached by everything they are specialised on (direction,
// dtype, geometry, layout, bias) in one map behind a mutex: a training loop creates each once,
// and creation (~50-500 us) dwarfs the lookup. oneDNN primitives may run on several threads at
// once, so a hit is executed outside the lock.
#include <dnnl.hpp>

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "kernels/cpu/conv_kernels.h"
#include "kernels/cpu/gemm_cpu.h"
#include "kernels/cpu/onednn_scratch.h"

namespace ember::kernels {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// ForwardRelu: the forward with a ReLU post-op (the convolution_relu row).
enum class ConvDir : int64_t { Forward, ForwardRelu, BackwardData, BackwardWeights };

dnnl::engine& conv_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

bool conv_dnnl_type(ScalarType t, memory::data_type* out) {
  if (t == ScalarType::Float) {
    *out = memory::data_type::f32;
    return true;
  }
  if (t == ScalarType::BFloat16) {
    *out = memory::data_type::bf16;
    return true;
  }
  return false;
}

using ConvKey = std::array<int64_t, 28>;

ConvKey conv_key(ConvDir dir, ScalarType dtype, const ConvParams& p) {
  ConvKey k{};
  int i = 0;
  k[i++] = static_cast<int64_t>(dir);
  k[i++] = static_cast<int64_t>(dtype);
  k[i++] = p.spatial;
  k[i++] = p.n;
  k[i++] = p.ic;
  k[i++] = p.oc;
  k[i++] = p.groups;
  for (int d = 0; d < kConvMaxSpatial; ++d) {
    k[i++] = p.in[d];
    k[i++] = p.out[d];
    k[i++] = p.k[d];
    k[i++] = p.stride[d];
    k[i++] = p.pad[d];
    k[i++] = p.dilation[d];
  }
  k[i++] = p.channels_last;
  k[i++] = p.b != nullptr;
  return k;
}

// One operand (x, w or y) in the layout the primitive chose, and the reorder between that and
// the tensor's plain layout when they differ (plain -> chosen for an operand the primitive reads,
// chosen -> plain for one it writes).
struct ConvOperand {
  memory::desc plain, chosen;
  bool reordered = false;
  bool written = false;
  dnnl::reorder reorder;

  void set(const memory::desc& plain_desc, const memory::desc& chosen_desc, bool is_written) {
    plain = plain_desc;
    chosen = chosen_desc;
    written = is_written;
    reordered = chosen != plain;
    if (!reordered) return;
    dnnl::engine& eng = conv_engine();
    memory a(plain, eng, nullptr), b(chosen, eng, nullptr);
    reorder = written ? dnnl::reorder(b, a) : dnnl::reorder(a, b);
  }
};

struct ConvEntry {
  bool ok = false;  // false: oneDNN refused (cached so we ask once)
  dnnl::primitive prim;
  memory::desc scratchpad;  // the primitive's scratch space, given per call (see conv_attr)
  ConvOperand x, w, y;
};

// A CNN has a few dozen distinct convolutions per direction.
constexpr size_t kConvCacheCapacity = 1024;
std::mutex g_conv_cache_mutex;
std::map<ConvKey, std::shared_ptr<ConvEntry>>& conv_cache() {
  static std::map<ConvKey, std::shared_ptr<ConvEntry>> cache;
  return cache;
}

// The memory descriptors of one geometry: the tensors' plain layouts, and what the primitive
// descriptors are asked for (format_tag::any where oneDNN may choose).
struct ConvDescs {
  memory::desc x, w, b, y;
  memory::desc x_ask, w_ask, y_ask;
  memory::dims strides, dilates, pad_l, pad_r;
};

ConvDescs conv_descs(memory::data_type dt, const ConvParams& p) {
  static const Tag kPlain[] = {Tag::ncw, Tag::nchw, Tag::ncdhw};
  static const Tag kLast[] = {Tag::nwc, Tag::nhwc, Tag::ndhwc};
  static const Tag kW[] = {Tag::oiw, Tag::oihw, Tag::oidhw};
  static const Tag kGW[] = {Tag::goiw, Tag::goihw, Tag::goidhw};
  const int s = p.spatial - 1;
  ConvDescs d;
  memory::dims xd = {p.n, p.ic}, yd = {p.n, p.oc}, wd;
  if (p.groups > 1)
    wd = {p.groups, p.oc / p.groups, p.ic / p.groups};
  else
    wd = {p.oc, p.ic};
  for (int i = 0; i < p.spatial; ++i) {
    xd.push_back(p.in[i]);
    yd.push_back(p.out[i]);
    wd.push_back(p.k[i]);
    d.strides.push_back(p.stride[i]);
    d.dilates.push_back(p.dilation[i] - 1);  // oneDNN counts the gaps
    d.pad_l.push_back(p.pad[i]);
    d.pad_r.push_back(conv_pad_right(p, i));
  }
  const Tag act = p.channels_last ? kLast[s] : kPlain[s];
  d.x = memory::desc(xd, dt, act);
  d.y = memory::desc(yd, dt, act);
  d.w = memory::desc(wd, dt, p.groups > 1 ? kGW[s] : kW[s]);
  d.b = memory::desc({p.oc}, dt, Tag::a);
  d.x_ask = p.channels_last ? d.x : memory::desc(xd, dt, Tag::any);
  d.y_ask = p.channels_last ? d.y : memory::desc(yd, dt, Tag::any);
  d.w_ask = memory::desc(wd, dt, Tag::any);
  return d;
}

// The cached primitives run on several threads at once; with oneDNN's default (library-owned)
// scratchpad, concurrent runs of one primitive shared scratch space and corrupted each other's
// results (ConvFunctional.ConcurrentCallsShareTheCachedPrimitives). Each call brings its own.
// `relu`: max(y, 0) as an eltwise post-op, applied while y is still in registers.
dnnl::primitive_attr conv_attr(bool relu = false) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  return attr;
}

dnnl::convolution_forward::primitive_desc conv_forward_pd(const ConvDescs& d, bool bias,
                                                          dnnl::prop_kind kind,
                                                          bool user_scratchpad = false,
                                                          bool relu = false) {
  using F = dnnl::convolution_forward;
  const auto algo = dnnl::algorithm::convolution_direct;
  F::desc desc =
      bias ? F::desc(kind, algo, d.x_ask, d.w_ask, d.b, d.y_ask, d.strides, d.dilates, d.pad_l,
                     d.pad_r)
           : F::desc(kind, algo, d.x_ask, d.w_ask, d.y_ask, d.strides, d.dilates, d.pad_l, d.pad_r);
  return user_scratchpad ? F::primitive_desc(desc, conv_attr(relu), conv_engine())
                         : F::primitive_desc(desc, conv_engine());
}

// What the forward primitive is asked for. With plain (NC...) activations and an AVX-512 CPU, the
// output is asked for in oneDNN's 16-channel blocked layout rather than left to oneDNN: its own
// choice (channels-last, brgconv) is no faster, and the reorder from channels-last back to NCHW is
// slow (LeNet's first layer, y[64,32,24,24], one Xeon thread: brgconv 0.62 ms + that reorder
// 1.33 ms; blocked: jit:avx512_core 0.47 ms + 0.39 ms. Side by side, A/B interleaved: LeNet step
// 17.2 -> 16.5 ms, L1 forward 52-68 -> 77-80 GFLOP/s, L2 unchanged within noise). The input
// stays oneDNN's choice (a 1-channel input blocked by 16 would be 16 times larger). AVX2 CPUs
// (8-wide) keep oneDNN's choice: not measured there.
//
// Except for small float32 2-d outputs (at most 16 wide) of 16+ input channels: there brgconv
// over channels-last x and y gains more than its reorders (oneDNN's jit:uni, slower than the
// blocked ones) cost. One Zen 5 thread, in place (ONEDNN_VERBOSE), primitive + reorders of x and
// y, blocked vs channels-last: LeNet's second layer 2.023 + 0.047 + 0.049 vs 1.785 + 0.087 +
// 0.081 ms; BENCHMARKS.md §4's L2 5.042 + 0.120 + 0.214 vs 4.690 + 0.235 + 0.333 ms. Hot, in a
// lab program, (n, ic, oc, h, k): (16, 256, 256, 14, 3) 15.16 + 0.12 vs 13.58 + 0.57 ms; (16, 128,
// 128, 8, 3) 1.16 + 0.02 vs 0.98 + 0.06; but the wider (32, 32, 64, 28, 3) 3.70 + 0.18 vs 3.57 +
// 0.58, where the larger reorders win back more than the primitive gains. A/B interleaved in
// place, 3 pairs: L2 forward, one thread, 224-228 -> 231-235 GFLOP/s, two threads unchanged;
// the LeNet step and CNN epoch gain less than this VM's noise. Every measured case had stride 1
// (strided ones are left out: x's reorder grows with the stride). Should oneDNN pick anything but
// brgconv for such an ask, conv_make asks again without it.
bool forward_prefers_channels_last(const ConvDescs& d, const ConvParams& p) {
  return !p.channels_last && p.spatial == 2 && p.groups == 1 && p.ic >= 16 && p.out[1] <= 16 &&
         p.stride[0] == 1 && p.stride[1] == 1 && d.x.data_type() == memory::data_type::f32;
}

// oneDNN 2.6's ISA values are bit sets, not an order (avx2_vnni, 0x407, is above avx512_core,
// 0x27): AVX-512 is every bit of avx512_core.
bool onednn_isa_has_avx512_core() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto core = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
  return (isa & core) == core;
}

bool forward_asks_channels_last(const ConvDescs& d, const ConvParams& p) {
  static const bool avx512 = onednn_isa_has_avx512_core();
  return avx512 && forward_prefers_channels_last(d, p);
}

// `channels_last_ok`: false once the channels-last ask gave something other than brgconv.
ConvDescs forward_asks(ConvDescs d, const ConvParams& p, bool channels_last_ok = true) {
  static const Tag kBlocked[] = {Tag::nCw16c, Tag::nChw16c, Tag::nCdhw16c};
  static const bool avx512 = onednn_isa_has_avx512_core();
  if (channels_last_ok && forward_asks_channels_last(d, p)) {
    d.x_ask = memory::desc(d.x.dims(), d.x.data_type(), Tag::nhwc);
    d.y_ask = memory::desc(d.y.dims(), d.y.data_type(), Tag::nhwc);
    return d;
  }
  if (!p.channels_last && avx512 && p.groups == 1 && p.oc % 16 == 0)
    d.y_ask = memory::desc(d.y.dims(), d.y.data_type(), kBlocked[p.spatial - 1]);
  return d;
}

// What the backward-weights primitive is asked for. With plain (NC...) activations of 16 and more
// input channels, x and dy may be asked for channels-last, reordered into it: oneDNN's backward
// weights over channels-last (jit:avx512_core) beats the blocked one when the output is small or
// the kernel large, by more than its reorders (oneDNN's slower jit:uni ones) cost over the blocked
// reorders. One Zen 5 thread, raw oneDNN, hot caches, ms: primitive channels-last vs blocked, then
// the reorders of x and dy into each, (n, ic, oc, h, k, pad):
//   64, 32, 64, 12, 5, 0 (LeNet's second layer, 8x8 out):  1.696 vs 2.035; 0.136 vs 0.042
//   16, 128, 128, 8, 3, 1 (8x8 out):                     1.050 vs 1.275; 0.063 vs 0.016
//   32, 64, 128, 16, 5, 2 (5x5 kernel):                  12.22 vs 12.87; 0.399 vs 0.125
//   32, 64, 128, 16, 3, 1 (BENCHMARKS.md §4's L2):        4.894 vs 4.876; 0.409 vs 0.119
//   64, 32, 64, 12, 3, 1:                                1.323 vs 1.372; 0.210 vs 0.067
//   32, 32, 64, 28, 3, 1:                                3.671 vs 3.789; 0.579 vs 0.180
//   16, 256, 256, 14, 3, 1:                              15.06 vs 15.23; 0.571 vs 0.124
// So 2-d convolutions ask for channels-last when the output is at most 8 wide or the kernel has
// 25 taps or more (the first three), else blocked. On the Intel Xeon of BENCHMARKS.md the two
// that were measured agree: LeNet's second layer 2.92 ms blocked against 2.47 channels-last, L2
// a little faster blocked. In place, A/B interleaved on Zen 5: L2 forward + backward, one thread,
// 202-217 -> 215-229 GFLOP/s; two threads unchanged. 1-d and 3-d convolutions, not measured,
// keep channels-last from 16 input channels. Strides above 1 and bfloat16 were not measured.
bool backward_weights_prefers_channels_last(const ConvParams& p) {
  if (p.channels_last || p.groups != 1 || p.ic < 16) return false;
  if (p.spatial != 2) return true;
  return p.out[1] <= 8 || p.k[0] * p.k[1] >= 25;
}

// One input channel on a CPU without AVX-512 (where a -march=native build has no conv_c1.cpp
// kernels): oneDNN's jit:avx2 backward weights pads x's channel to a block of 8, eight times the
// work, where plain x and dy take its GEMM-based implementation. One Zen 3 (AVX2) thread, LeNet's
// first layer (64 images, 1 -> 32 channels, 5x5 on 28x28), per call: 7.2 ms blocked (plus x's
// reorder) -> 2.9 ms; two threads 5.0 (+0.3) -> 2.7. With 3 channels (BENCHMARKS.md §4's L1) the
// blocked one stays ahead (2.6 against 4.6 ms on one thread), so only one channel. AVX-512 was not
// measured.
bool backward_weights_asks_plain(const ConvParams& p) {
  static const bool avx512 = onednn_isa_has_avx512_core();
  return !avx512 && !p.channels_last && p.ic == 1 && p.groups == 1;
}

// `plain_ok`: false once the plain ask gave something other than oneDNN's GEMM-based backward
// weights (the one measured).
ConvDescs backward_weights_asks(ConvDescs d, const ConvParams& p, bool plain_ok = true) {
  static const Tag kLast[] = {Tag::nwc, Tag::nhwc, Tag::ndhwc};
  if (plain_ok && backward_weights_asks_plain(p)) {
    d.x_ask = d.x;
    d.y_ask = d.y;
    return d;
  }
  if (backward_weights_prefers_channels_last(p)) {
    d.x_ask = memory::desc(d.x.dims(), d.x.data_type(), kLast[p.spatial - 1]);
    d.y_ask = memory::desc(d.y.dims(), d.y.data_type(), kLast[p.spatial - 1]);
  }
  return d;
}

// Fills entry with the primitive of (dir, p) and its operand layouts; throws dnnl::error when
// oneDNN has no implementation.
void conv_make(ConvEntry& entry, ConvDir dir, memory::data_type dt, const ConvParams& p) {
  const ConvDescs d = conv_descs(dt, p);
  const auto algo = dnnl::algorithm::convolution_direct;
  const bool bias = p.b != nullptr;
  switch (dir) {
    case ConvDir::Forward:
    case ConvDir::ForwardRelu: {
      const bool relu = dir == ConvDir::ForwardRelu;
      auto pd =
          conv_forward_pd(forward_asks(d, p), bias, dnnl::prop_kind::forward_inference, true, relu);
      // The channels-last ask was measured with brgconv only: anything else takes the usual asks.
      if (forward_asks_channels_last(d, p) && std::string(pd.impl_info_str()).rfind("brg", 0) != 0)
        pd = conv_forward_pd(forward_asks(d, p, false), bias, dnnl::prop_kind::forward_inference,
                             true, relu);
      entry.scratchpad = pd.scratchpad_desc();
      entry.x.set(d.x, pd.src_desc(), false);
      entry.w.set(d.w, pd.weights_desc(), false);
      entry.y.set(d.y, pd.dst_desc(), true);
      entry.prim = dnnl::convolution_forward(pd);
      break;
    }
    case ConvDir::BackwardData: {
      auto hint = conv_forward_pd(d, false, dnnl::prop_kind::forward_training);
      dnnl::convolution_backward_data::desc desc(algo, d.x_ask, d.w_ask, d.y_ask, d.strides,
                                                 d.dilates, d.pad_l, d.pad_r);
      dnnl::convolution_backward_data::primitive_desc pd(desc, conv_attr(), conv_engine(), hint);
      entry.scratchpad = pd.scratchpad_desc();
      entry.x.set(d.x, pd.diff_src_desc(), true);
      entry.w.set(d.w, pd.weights_desc(), false);
      entry.y.set(d.y, pd.diff_dst_desc(), false);
      entry.prim = dnnl::convolution_backward_data(pd);
      break;
    }
    case ConvDir::BackwardWeights: {
      using B = dnnl::convolution_backward_weights;
      auto make_pd = [&](const ConvDescs& asks) {
        auto hint = conv_forward_pd(asks, bias, dnnl::prop_kind::forward_training);
        B::desc desc = bias ? B::desc(algo, asks.x_ask, d.w_ask, d.b, asks.y_ask, d.strides,
                                      d.dilates, d.pad_l, d.pad_r)
                            : B::desc(algo, asks.x_ask, d.w_ask, asks.y_ask, d.strides, d.dilates,
                                      d.pad_l, d.pad_r);
        return B::primitive_desc(desc, conv_attr(), conv_engine(), hint);
      };
      B::primitive_desc pd = make_pd(backward_weights_asks(d, p));
      // The plain ask was measured with the GEMM-based implementation only: anything else (a
      // geometry it declines falls to the slow reference one) takes the usual asks.
      if (backward_weights_asks_plain(p) &&
          std::string(pd.impl_info_str()).find("gemm") == std::string::npos)
        pd = make_pd(backward_weights_asks(d, p, false));
      entry.scratchpad = pd.scratchpad_desc();
      entry.x.set(d.x, pd.src_desc(), false);
      entry.w.set(d.w, pd.diff_weights_desc(), true);
      entry.y.set(d.y, pd.diff_dst_desc(), false);
      entry.prim = B(pd);
      break;
    }
  }
}

// The cached primitive for (dir, dtype, p); its `ok` is false when oneDNN has none.
std::shared_ptr<ConvEntry> conv_lookup(ConvDir dir, ScalarType dtype, memory::data_type dt,
                                       const ConvParams& p) {
  const ConvKey key = conv_key(dir, dtype, p);
  {
    std::lock_guard<std::mutex> lock(g_conv_cache_mutex);
    auto it = conv_cache().find(key);
    if (it != conv_cache().end()) return it->second;
  }
  auto entry = std::make_shared<ConvEntry>();
  try {
    conv_make(*entry, dir, dt, p);
    entry->ok = true;
  } catch (const dnnl::error&) {
    entry->ok = false;
  }
  std::lock_guard<std::mutex> lock(g_conv_cache_mutex);
  // A bound on memory for programs that see endless shapes; entries in use stay alive through
  // their shared_ptr.
  if (conv_cache().size() >= kConvCacheCapacity) conv_cache().clear();
  return conv_cache().emplace(key, entry).first->second;
}

// The memory the primitive uses for one operand at `data`: the tensor itself, or this thread's
// scratch buffer `slot` in the chosen layout (filled from the tensor first when the primitive
// reads it).
memory conv_bind(const ConvOperand& op, const void* data, int slot, dnnl::stream& stream) {
  thread_local OnednnScratch scratch[3];
  dnnl::engine& eng = conv_engine();
  memory user(op.plain, eng, const_cast<void*>(data));
  if (!op.reordered) return user;
  memory inner(op.chosen, eng, scratch[slot].get(op.chosen.get_size()));
  if (!op.written) op.reorder.execute(stream, user, inner);
  return inner;
}

// Copies a written operand from the chosen layout back into the tensor.
void conv_unbind(const ConvOperand& op, memory inner, void* data, dnnl::stream& stream) {
  if (!op.reordered || !op.written) return;
  memory user(op.plain, conv_engine(), data);
  op.reorder.execute(stream, inner, user);
}

bool conv_run(ConvDir dir, ScalarType dtype, const ConvParams& p) {
  memory::data_type dt;
  if (!conv_dnnl_type(dtype, &dt)) return false;
  const std::shared_ptr<ConvEntry> entry = conv_lookup(dir, dtype, dt, p);
  if (!entry->ok) return false;
  cpu::sync_omp_threads();
  thread_local dnnl::stream stream(conv_engine());
  const memory x = conv_bind(entry->x, p.x, 0, stream);
  const memory w = conv_bind(entry->w, p.w, 1, stream);
  const memory y = conv_bind(entry->y, p.y, 2, stream);
  const memory::desc b_desc({p.oc}, dt, Tag::a);
  thread_local OnednnScratch scratchpad_buffer;
  const memory scratchpad(entry->scratchpad, conv_engine(),
                          scratchpad_buffer.get(entry->scratchpad.get_size()));
  switch (dir) {
    case ConvDir::Forward:
    case ConvDir::ForwardRelu: {
      std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, x},
                                              {DNNL_ARG_WEIGHTS, w},
                                              {DNNL_ARG_DST, y},
                                              {DNNL_ARG_SCRATCHPAD, scratchpad}};
      if (p.b) args.emplace(DNNL_ARG_BIAS, memory(b_desc, conv_engine(), const_cast<void*>(p.b)));
      entry->prim.execute(stream, args);
      break;
    }
    case ConvDir::BackwardData:
      entry->prim.execute(stream, {{DNNL_ARG_DIFF_SRC, x},
                                   {DNNL_ARG_WEIGHTS, w},
                                   {DNNL_ARG_DIFF_DST, y},
                                   {DNNL_ARG_SCRATCHPAD, scratchpad}});
      break;
    case ConvDir::BackwardWeights: {
      std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, x},
                                              {DNNL_ARG_DIFF_WEIGHTS, w},
                                              {DNNL_ARG_DIFF_DST, y},
                                              {DNNL_ARG_SCRATCHPAD, scratchpad}};
      if (p.b)
        args.emplace(DNNL_ARG_DIFF_BIAS, memory(b_desc, conv_engine(), const_cast<void*>(p.b)));
      entry->prim.execute(stream, args);
      break;
    }
  }
  conv_unbind(entry->x, x, const_cast<void*>(p.x), stream);
  conv_unbind(entry->w, w, const_cast<void*>(p.w), stream);
  conv_unbind(entry->y, y, p.y, stream);
  stream.wait();
  return true;
}

}  // namespace

bool conv_onednn_forward(ScalarType dtype, const ConvParams& p) {
  return conv_run(ConvDir::Forward, dtype, p);
}
bool conv_onednn_forward_relu(ScalarType dtype, const ConvParams& p) {
  return conv_run(ConvDir::ForwardRelu, dtype, p);
}
bool conv_onednn_backward_data(ScalarType dtype, const ConvParams& p) {
  return conv_run(ConvDir::BackwardData, dtype, p);
}
bool conv_onednn_backward_weights(ScalarType dtype, const ConvParams& p) {
  return conv_run(ConvDir::BackwardWeights, dtype, p);
}

}  // namespace ember::kernels
