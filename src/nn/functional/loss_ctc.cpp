// ctc_loss: connectionist temporal classification (Graves et al. 2006), CPU, float32/float64.
//
// Composition would be absurdly slow here (T steps of tiny ops per sequence), so this is a
// kernel with its own autograd node. For each batch element, with the extended label sequence
// l' = (blank, l1, blank, l2, ..., lL, blank) of length 2L+1:
//   forward   alpha[t][s] = lp[t][l'(s)] + lse(alpha[t-1][s], alpha[t-1][s-1],
//                                             alpha[t-1][s-2] when l'(s) != blank, l'(s-2)),
//             nll = -lse(alpha[T-1][2L], alpha[T-1][2L-1]);
//   backward  beta the same recursion run from the end, and per (t, c)
//             grad = exp(lp) - exp(lse_{s: l'(s) = c}(alpha[t][s] + beta[t][s]) + nll - lp),
//             PyTorch's formula: the gradient w.r.t. the logits of a log_softmax, which is also
//             what chains correctly through log_softmax (the exp(lp) term cancels there).
// Everything runs in float64 log space whatever the input dtype; the batch is split over threads.
// Work per element: O(T (2L+1 + C)) exp/log, memory: alpha [N, T, 2 max(L) + 1] float64, kept
// for backward as PyTorch keeps it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/autograd/function.h"
#include "ember/nn/functional/loss.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/core/parallel.h"
#include "src/nn/functional/loss_common.h"

namespace ember::nn::functional {

using detail::describe;

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

inline double log_add(double a, double b) {
  if (a < b) std::swap(a, b);
  if (b == kNegInf) return a;
  return a + std::log1p(std::exp(b - a));
}

// The batch as the kernels see it: contiguous log_probs [T, N, C], int64 targets and lengths.
struct CtcProblem {
  int64_t T = 0, N = 0, C = 0, blank = 0;
  int64_t width = 1;  // alpha row length: 2 * max target length + 1
  const int64_t* input_lengths = nullptr;
  const int64_t* target_lengths = nullptr;
  const int64_t* targets = nullptr;
  std::vector<int64_t> target_offset;  // where element b's labels start in `targets`

  int64_t label(int64_t b, int64_t s) const {
    return (s & 1) ? targets[target_offset[b] + s / 2] : blank;
  }
  // Whether the path may skip from s - 2 to s (distinct labels with a blank between).
  bool can_skip(int64_t b, int64_t s) const {
    return s >= 2 && (s & 1) && label(b, s) != label(b, s - 2);
  }
  int64_t grain() const { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, T * width)); }
};

template <class scalar_t>
void ctc_forward(const CtcProblem& p, const scalar_t* lp, double* alpha, double* nll) {
  parallel_for(0, p.N, p.grain(), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t len = p.input_lengths[b], S = 2 * p.target_lengths[b] + 1;
      if (len == 0) {  // no frames: only the empty target is possible
        nll[b] = p.target_lengths[b] == 0 ? 0.0 : std::numeric_limits<double>::infinity();
        continue;
      }
      auto at = [&](int64_t t, int64_t c) {
        return static_cast<double>(lp[(t * p.N + b) * p.C + c]);
      };
      double* a = alpha + b * p.T * p.width;
      std::fill(a, a + S, kNegInf);
      a[0] = at(0, p.blank);
      if (S > 1) a[1] = at(0, p.label(b, 1));
      for (int64_t t = 1; t < len; ++t) {
        const double* prev = a + (t - 1) * p.width;
        double* row = a + t * p.width;
        for (int64_t s = 0; s < S; ++s) {
          double v = prev[s];
          if (s >= 1) v = log_add(v, prev[s - 1]);
          if (p.can_skip(b, s)) v = log_add(v, prev[s - 2]);
          row[s] = v == kNegInf ? kNegInf : v + at(t, p.label(b, s));
        }
      }
      const double* last = a + (len - 1) * p.width;
      nll[b] = -log_add(last[S - 1], S > 1 ? last[S - 2] : kNegInf);
    }
  });
}

template <class scalar_t>
void ctc_backward(const CtcProblem& p, const scalar_t* lp, const double* alpha, const double* nll,
                  const scalar_t* grad_out, bool zero_infinity, scalar_t* grad) {
  parallel_for(0, p.N, p.grain(), [&](int64_t b0, int64_t b1) {
    std::vector<double> cur, next, lcab(p.C);
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t len = p.input_lengths[b], S = 2 * p.target_lengths[b] + 1;
      // grad is zero-filled: frames past the input length, empty inputs and (with
      // zero_infinity) impossible alignments keep a zero gradient.
      if (len == 0 || (zero_infinity && std::isinf(nll[b]))) continue;
      const double gr = static_cast<double>(grad_out[b]);
      auto at = [&](int64_t t, int64_t c) {
        return static_cast<double>(lp[(t * p.N + b) * p.C + c]);
      };
      const double* a = alpha + b * p.T * p.width;
      cur.assign(S, kNegInf);
      next.assign(S, kNegInf);
      for (int64_t t = len - 1; t >= 0; --t) {
        for (int64_t s = 0; s < S; ++s) {
          double v;
          if (t == len - 1) {
            v = s >= S - 2 ? 0.0 : kNegInf;
          } else {
            v = next[s];
            if (s + 1 < S) v = log_add(v, next[s + 1]);
            if (s + 2 < S && p.can_skip(b, s + 2)) v = log_add(v, next[s + 2]);
          }
          cur[s] = v == kNegInf ? kNegInf : v + at(t, p.label(b, s));
        }
        std::fill(lcab.begin(), lcab.end(), kNegInf);
        const double* arow = a + t * p.width;
        for (int64_t s = 0; s < S; ++s) {
          double& slot = lcab[p.label(b, s)];
          slot = log_add(slot, arow[s] + cur[s]);
        }
        scalar_t* g = grad + (t * p.N + b) * p.C;
        for (int64_t c = 0; c < p.C; ++c) {
          const double l = at(t, c);
          g[c] = static_cast<scalar_t>((std::exp(l) - std::exp(lcab[c] + nll[b] - l)) * gr);
        }
        std::swap(cur, next);
      }
    }
  });
}

CtcProblem make_problem(const Tensor& lp, const Tensor& targets, const Tensor& input_lengths,
                        const Tensor& target_lengths, int64_t blank) {
  CtcProblem p;
  p.T = lp.size(0);
  p.N = lp.size(1);
  p.C = lp.size(2);
  p.blank = blank;
  p.input_lengths = input_lengths.data_ptr<int64_t>();
  p.target_lengths = target_lengths.data_ptr<int64_t>();
  p.targets = targets.data_ptr<int64_t>();
  p.target_offset.resize(p.N);
  int64_t max_len = 0, offset = 0;
  const bool padded = targets.dim() == 2;
  for (int64_t b = 0; b < p.N; ++b) {
    p.target_offset[b] = padded ? b * targets.size(1) : offset;
    offset += p.target_lengths[b];
    max_len = std::max(max_len, p.target_lengths[b]);
  }
  p.width = 2 * max_len + 1;
  return p;
}

struct CtcLossFn : autograd::Function<CtcLossFn> {
  // log_probs [T, N, C] float/double; targets int64 [N, S] or [sum]; lengths int64 [N].
  static Tensor forward(autograd::AutogradContext* ctx, Tensor log_probs, Tensor targets,
                        Tensor input_lengths, Tensor target_lengths, int64_t blank,
                        bool zero_infinity) {
    Tensor lp = log_probs.contiguous();
    CtcProblem p = make_problem(lp, targets, input_lengths, target_lengths, blank);
    Tensor alpha = empty({p.N, p.T, p.width}, TensorOptions().dtype(kDouble));
    Tensor nll = empty({p.N}, TensorOptions().dtype(kDouble));
    if (lp.scalar_type() == kFloat)
      ctc_forward(p, lp.data_ptr<float>(), alpha.data_ptr<double>(), nll.data_ptr<double>());
    else
      ctc_forward(p, lp.data_ptr<double>(), alpha.data_ptr<double>(), nll.data_ptr<double>());
    ctx->save_for_backward({lp, targets, input_lengths, target_lengths});
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["nll"] = nll;
    ctx->saved_data["blank"] = blank;
    ctx->saved_data["zero_infinity"] = zero_infinity;
    // A fresh tensor even when lp is float64: returning `nll` itself would make the output live
    // in ctx->saved_data, and the output's grad_fn is this node (a reference cycle, a leak).
    Tensor out = nll.to(lp.scalar_type(), /*non_blocking=*/false, /*copy=*/true);
    if (zero_infinity) out = where(isinf(out), zeros_like(out), out);
    return out;
  }

  static autograd::variable_list backward(autograd::AutogradContext* ctx,
                                          autograd::variable_list grads) {
    autograd::variable_list saved = ctx->get_saved_variables();
    const Tensor& lp = saved[0];
    CtcProblem p = make_problem(lp, saved[1], saved[2], saved[3], ctx->saved_data["blank"].toInt());
    const bool zero_infinity = ctx->saved_data["zero_infinity"].toBool();
    const Tensor& alpha = ctx->saved_data["alpha"].toTensor();
    const Tensor& nll = ctx->saved_data["nll"].toTensor();
    Tensor go = grads[0].to(lp.scalar_type()).contiguous();
    Tensor grad = zeros_like(lp);
    if (lp.scalar_type() == kFloat)
      ctc_backward(p, lp.data_ptr<float>(), alpha.data_ptr<double>(), nll.data_ptr<double>(),
                   go.data_ptr<float>(), zero_infinity, grad.data_ptr<float>());
    else
      ctc_backward(p, lp.data_ptr<double>(), alpha.data_ptr<double>(), nll.data_ptr<double>(),
                   go.data_ptr<double>(), zero_infinity, grad.data_ptr<double>());
    return {grad, Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

// input_lengths / target_lengths: integer tensors of n values (0-dim allowed for n == 1), as a
// contiguous int64 CPU tensor [n].
Tensor lengths_of(const char* what, const Tensor& lengths, int64_t n) {
  EMBER_CHECK_TYPE(lengths.defined() && is_integral(lengths.scalar_type(), false),
                   "ctc_loss: {} must be an integer tensor, got {}. Hint: pass an int64 tensor "
                   "of one length per sequence",
                   what, lengths.defined() ? describe(lengths) : std::string("undefined"));
  EMBER_CHECK_VALUE(lengths.dim() <= 1 && lengths.numel() == n,
                    "ctc_loss: {} must hold one value per sequence ({}), got {}", what, n,
                    describe(lengths));
  return lengths.to(Device(kCPU)).to(kLong).contiguous().reshape({n});
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options) {
  const char* op = "ctc_loss";
  detail::check_floating(op, "log_probs", log_probs);
  EMBER_CHECK_TYPE(log_probs.scalar_type() == kFloat || log_probs.scalar_type() == kDouble,
                   "{}: log_probs must be float32 or float64, got {}. Hint: convert with "
                   ".to(kFloat) (PyTorch's CPU ctc_loss has no float16/bfloat16 either)",
                   op, describe(log_probs));
  EMBER_CHECK_AS(NotImplementedError, log_probs.is_cpu(),
                 "{}: only CPU tensors are supported, got log_probs on {}. Hint: move the "
                 "inputs to the CPU",
                 op, log_probs.device());
  EMBER_CHECK_VALUE(log_probs.dim() == 3 || log_probs.dim() == 2,
                    "{}: log_probs must be [T, N, C] (or [T, C] for one sequence), got {}", op,
                    describe(log_probs));
  const bool batched = log_probs.dim() == 3;
  Tensor lp = batched ? log_probs : log_probs.unsqueeze(1);
  const int64_t T = lp.size(0), N = lp.size(1), C = lp.size(2);
  const int64_t blank = options.blank();
  EMBER_CHECK_INDEX(blank >= 0 && blank < C,
                    "{}: blank {} is out of range for {} classes. Hint: blank must be in [0, {})",
                    op, blank, C, C);
  EMBER_CHECK_TYPE(targets.defined() && is_integral(targets.scalar_type(), false),
                   "{}: targets must be integer class indices, got {}. Hint: pass int64 targets",
                   op, targets.defined() ? describe(targets) : std::string("undefined"));
  Tensor il = lengths_of("input_lengths", input_lengths, N);
  Tensor tl = lengths_of("target_lengths", target_lengths, N);
  Tensor tg = targets.to(Device(kCPU)).to(kLong).contiguous();
  if (batched) {
    EMBER_CHECK_VALUE(tg.dim() == 1 || (tg.dim() == 2 && tg.size(0) == N),
                      "{}: targets must be [N, S] padded ([{}, S]) or 1-D concatenated, got {} "
                      "for log_probs {}",
                      op, N, describe(targets), describe(log_probs));
  } else {
    EMBER_CHECK_VALUE(tg.dim() == 1, "{}: targets of an unbatched [T, C] input must be [S], got {}",
                      op, describe(targets));
    tg = tg.unsqueeze(0);
  }
  const int64_t* ilp = il.data_ptr<int64_t>();
  const int64_t* tlp = tl.data_ptr<int64_t>();
  const int64_t* tgp = tg.data_ptr<int64_t>();
  const bool padded = tg.dim() == 2;
  int64_t offset = 0;
  for (int64_t b = 0; b < N; ++b) {
    EMBER_CHECK_VALUE(ilp[b] >= 0 && ilp[b] <= T,
                      "{}: input_lengths[{}] is {}, must be in [0, {}] (the time steps of "
                      "log_probs {})",
                      op, b, ilp[b], T, describe(log_probs));
    const int64_t cap = padded ? tg.size(1) : tg.numel() - offset;
    EMBER_CHECK_VALUE(tlp[b] >= 0 && tlp[b] <= cap,
                      "{}: target_lengths[{}] is {}, but only {} target values are there "
                      "(targets {})",
                      op, b, tlp[b], std::max<int64_t>(cap, 0), describe(targets));
    const int64_t start = padded ? b * tg.size(1) : offset;
    for (int64_t k = 0; k < tlp[b]; ++k) {
      const int64_t c = tgp[start + k];
      EMBER_CHECK_INDEX(c >= 0 && c < C,
                        "{}: target class {} (sequence {}, position {}) is out of range for {} "
                        "classes",
                        op, c, b, k, C);
    }
    offset += tlp[b];
  }

  Tensor nll = CtcLossFn::apply(lp, tg, il, tl, blank, options.zero_infinity());
  switch (detail::reduction_of(options.reduction())) {
    case detail::Reduction::kSum:
      return nll.sum();
    case detail::Reduction::kMean:
      return (nll / tl.to(nll.scalar_type()).clamp_min(1)).mean();
    default:
      return batched ? nll : nll.squeeze(0);
  }
}

}  // namespace ember::nn::functional
