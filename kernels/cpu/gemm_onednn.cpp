// bfloat16/float16 GEMM through oneDNN's matmul primitive, cached by shape, with a float32
// fallback for CPUs where oneDNN has no kernel for the dtype.
//
// oneDNN 2.6 builds bf16/f16 matmul only on AVX-512 (bf16: avx512_core, native from avx512_bf16 /
// AMX; f16: avx512_core_fp16). On the AVX2 machines we develop on, primitive creation fails for
// both, so the fallback widens A and B to float32, runs the sgemm path (float accumulation, as
// PyTorch's CPU bf16 gemm) and rounds C once. The primitive path is shared with float32, which
// every CPU supports, so the tests exercise the cache, strides and alpha/beta attributes there.
#include <dnnl.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "kernels/cpu/gemm_cpu.h"
#include "src/core/check.h"
#include "src/core/parallel.h"

namespace ember::cpu {
namespace {

using dnnl::memory;

bool to_dnnl(ScalarType t, memory::data_type* out) {
  switch (t) {
    case ScalarType::Float:
      *out = memory::data_type::f32;
      return true;
    case ScalarType::BFloat16:
      *out = memory::data_type::bf16;
      return true;
    case ScalarType::Half:
      *out = memory::data_type::f16;
      return true;
    default:
      return false;
  }
}

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// Everything a primitive is specialised on: dtype, dims, strides and the alpha/beta attributes.
using Key = std::array<int64_t, 16>;

struct Entry {
  Key key{};
  bool used = false;
  bool ok = false;  // false: oneDNN refused this configuration (cached so we ask once)
  dnnl::matmul prim;
};

// Per-thread, so lookups take no lock; 16 shapes cover a model's distinct matmuls. Round-robin
// replacement: a miss costs a primitive creation (~tens of microseconds), which is rare.
struct Cache {
  std::array<Entry, 16> entries;
  int next = 0;
};
thread_local Cache t_cache;

int64_t float_bits(double v) {
  float f = static_cast<float>(v);
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

// oneDNN rejects meaningless strides on size-1 dims; give them a harmless value.
void tidy_strides(int64_t rows, int64_t cols, int64_t& rs, int64_t& cs) {
  if (cols == 1) cs = rs == 1 ? rows : 1;
  if (rows == 1) rs = cs == 1 ? cols : 1;
}

// A 3-D (batch, rows, cols) descriptor; a batch stride of 0 is a broadcast batch of 1.
memory::desc matrix_desc(memory::data_type dt, int64_t batch, int64_t rows, int64_t cols,
                         int64_t bs, int64_t rs, int64_t cs) {
  if (bs == 0 || batch == 1) {
    batch = 1;
    bs = std::max<int64_t>(1, (rows - 1) * rs + (cols - 1) * cs + 1);
  }
  return memory::desc({batch, rows, cols}, dt, {bs, rs, cs});
}

}  // namespace

bool onednn_matmul(ScalarType dtype, const GemmParams& p) {
  memory::data_type dt;
  if (!to_dnnl(dtype, &dt) || p.batch <= 0 || p.m <= 0 || p.n <= 0 || p.k <= 0) return false;
  int64_t a_rs = p.a_rs, a_cs = p.a_cs, b_rs = p.b_rs, b_cs = p.b_cs, c_rs = p.c_rs, c_cs = p.c_cs;
  tidy_strides(p.m, p.k, a_rs, a_cs);
  tidy_strides(p.k, p.n, b_rs, b_cs);
  tidy_strides(p.m, p.n, c_rs, c_cs);
  const int64_t a_bs = p.batch == 1 ? 0 : p.a_bs, b_bs = p.batch == 1 ? 0 : p.b_bs;
  const int64_t c_bs = p.batch == 1 ? 0 : p.c_bs;
  const double alpha = p.alpha.toDouble(), beta = p.beta.toDouble();
  const Key key = {static_cast<int64_t>(dtype),
                   p.batch,
                   p.m,
                   p.n,
                   p.k,
                   a_bs,
                   a_rs,
                   a_cs,
                   b_bs,
                   b_rs,
                   b_cs,
                   c_bs,
                   c_rs,
                   c_cs,
                   float_bits(alpha),
                   float_bits(beta)};

  Cache& cache = t_cache;
  Entry* hit = nullptr;
  for (Entry& e : cache.entries)
    if (e.used && e.key == key) {
      hit = &e;
      break;
    }
  if (!hit) {
    hit = &cache.entries[cache.next];
    cache.next = (cache.next + 1) % static_cast<int>(cache.entries.size());
    hit->key = key;
    hit->used = true;
    hit->ok = false;
    try {
      dnnl::primitive_attr attr;
      if (alpha != 1) attr.set_output_scales(0, {static_cast<float>(alpha)});
      if (beta != 0) {
        dnnl::post_ops ops;
        ops.append_sum(static_cast<float>(beta));
        attr.set_post_ops(ops);
      }
      // A C batch stride of 0 would make every batch write the same matrix: not a matmul.
      if (p.batch > 1 && c_bs == 0) throw dnnl::error(dnnl_invalid_arguments, "c batch stride 0");
      dnnl::matmul::desc desc(matrix_desc(dt, p.batch, p.m, p.k, a_bs, a_rs, a_cs),
                              matrix_desc(dt, p.batch, p.k, p.n, b_bs, b_rs, b_cs),
                              matrix_desc(dt, p.batch, p.m, p.n, c_bs, c_rs, c_cs));
      hit->prim = dnnl::matmul(dnnl::matmul::primitive_desc(desc, attr, cpu_engine()));
      hit->ok = true;
    } catch (const dnnl::error&) {
      hit->ok = false;  // unsupported here: the caller falls back
    }
  }
  if (!hit->ok) return false;

  sync_omp_threads();
  dnnl::engine& eng = cpu_engine();
  thread_local dnnl::stream stream(eng);
  auto md = [&](int64_t rows, int64_t cols, int64_t bs, int64_t rs, int64_t cs) {
    return matrix_desc(dt, p.batch, rows, cols, bs, rs, cs);
  };
  memory a(md(p.m, p.k, a_bs, a_rs, a_cs), eng, const_cast<void*>(p.a));
  memory b(md(p.k, p.n, b_bs, b_rs, b_cs), eng, const_cast<void*>(p.b));
  memory c(md(p.m, p.n, c_bs, c_rs, c_cs), eng, p.c);
  hit->prim.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
  stream.wait();
  return true;
}

namespace {

// Dense float32 copy of a strided (batch, rows, cols) operand; one copy when the batch broadcasts.
template <class T>
std::vector<float> widen(const T* src, int64_t batch, int64_t rows, int64_t cols, int64_t bs,
                         int64_t rs, int64_t cs) {
  const int64_t nb = bs == 0 ? 1 : batch, per = rows * cols;
  std::vector<float> out(static_cast<size_t>(nb * per));
  parallel_for(0, nb * rows, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, cols)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const int64_t bi = r / rows, i = r % rows;
                   const T* s = src + bi * bs + i * rs;
                   float* d = out.data() + r * cols;
                   for (int64_t j = 0; j < cols; ++j) d[j] = static_cast<float>(s[j * cs]);
                 }
               });
  return out;
}

template <class T>
void gemm_widened(const GemmParams& p) {
  std::vector<float> a =
      widen(static_cast<const T*>(p.a), p.batch, p.m, p.k, p.a_bs, p.a_rs, p.a_cs);
  std::vector<float> b =
      widen(static_cast<const T*>(p.b), p.batch, p.k, p.n, p.b_bs, p.b_rs, p.b_cs);
  T* c = static_cast<T*>(p.c);
  const bool read_c = p.beta.toDouble() != 0;
  std::vector<float> cf = read_c ? widen<T>(c, p.batch, p.m, p.n, p.c_bs, p.c_rs, p.c_cs)
                                 : std::vector<float>(static_cast<size_t>(p.batch * p.m * p.n));
  GemmParams f = p;
  f.a = a.data();
  f.a_bs = p.a_bs == 0 ? 0 : p.m * p.k;
  f.a_rs = p.k;
  f.a_cs = 1;
  f.b = b.data();
  f.b_bs = p.b_bs == 0 ? 0 : p.k * p.n;
  f.b_rs = p.n;
  f.b_cs = 1;
  f.c = cf.data();
  f.c_bs = p.m * p.n;
  f.c_rs = p.n;
  f.c_cs = 1;
  gemm_float(f);
  for (int64_t bi = 0; bi < p.batch; ++bi)
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j)
        c[bi * p.c_bs + i * p.c_rs + j * p.c_cs] = T(cf[(bi * p.m + i) * p.n + j]);
}

}  // namespace

void gemm_reduced_float(ScalarType dtype, const GemmParams& p) {
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;
  if (onednn_matmul(dtype, p)) return;
  if (dtype == ScalarType::BFloat16) {
    gemm_widened<BFloat16>(p);
  } else {
    EMBER_CHECK(dtype == ScalarType::Half, "mm: expected a bfloat16 or float16 tensor, got {}",
                dtype);
    gemm_widened<Half>(p);
  }
}

}  // namespace ember::cpu
