// einsum: parses the equation, then contracts the operands left to right, each step one bmm over
// permuted/reshaped views (PyTorch's strategy without opt_einsum).
//
// Supported: explicit ("ij,jk->ik") and implicit ("ij,jk": the subscripts used once, sorted)
// outputs; repeated subscripts in one operand (a diagonal: "ii->i", "ii" = trace); '...' for
// broadcast batch dims (summed when the explicit output leaves it out); size-1 dims broadcasting
// against the same subscript elsewhere; any number of operands.
#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "ember/ops/linalg.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/ops/op_common.h"

namespace ember {
namespace {

// Subscript ids: 'A'-'Z' are 0-25, 'a'-'z' 26-51 (so sorting ids sorts as PyTorch's implicit
// output does), and the dims an ellipsis covers are 52, 53, ... right-aligned across operands.
constexpr int kLetters = 52;
int letter_id(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26; }
std::string label_name(int id) {
  if (id < 26) return std::string(1, static_cast<char>('A' + id));
  if (id < kLetters) return std::string(1, static_cast<char>('a' + id - 26));
  return "...";
}

using Labels = std::vector<int>;

bool contains(const Labels& l, int id) { return std::find(l.begin(), l.end(), id) != l.end(); }

// One parsed term: its letters in order, with the ellipsis position (or -1).
struct Term {
  Labels letters;
  int ellipsis_at = -1;
  std::string text;
};

Term parse_term(const std::string& s, bool output) {
  Term t;
  t.text = s;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(s.compare(i, 3, "...") == 0 && t.ellipsis_at < 0,
                  "einsum: found '.' that is not part of a single ellipsis ('...') in the {} '{}'",
                  output ? "output" : "subscripts", s);
      t.ellipsis_at = static_cast<int>(t.letters.size());
      i += 2;
      continue;
    }
    EMBER_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'),
                "einsum: invalid subscript '{}' in the equation. Hint: subscripts must be in "
                "[a-zA-Z]",
                c);
    t.letters.push_back(letter_id(c));
  }
  return t;
}

// The full label list of a term once ellipses are expanded to `ell` dims (right-aligned ids).
Labels expand_term(const Term& t, int64_t ell_here, int64_t ell_max) {
  Labels out;
  for (size_t i = 0; i <= t.letters.size(); ++i) {
    if (static_cast<int>(i) == t.ellipsis_at)
      for (int64_t e = ell_max - ell_here; e < ell_max; ++e)
        out.push_back(kLetters + static_cast<int>(e));
    if (i < t.letters.size()) out.push_back(t.letters[i]);
  }
  return out;
}

// A tensor with one label per dim.
struct Labelled {
  Tensor t;
  Labels labels;
};

// Repeated labels in one operand select its diagonal: one dim whose stride is the sum of theirs.
Labelled take_diagonals(const Tensor& t, const Labels& labels, size_t index) {
  Labels uniq;
  DimVector sizes, strides;
  for (size_t d = 0; d < labels.size(); ++d) {
    auto it = std::find(uniq.begin(), uniq.end(), labels[d]);
    if (it == uniq.end()) {
      uniq.push_back(labels[d]);
      sizes.push_back(t.size(static_cast<int64_t>(d)));
      strides.push_back(t.stride(static_cast<int64_t>(d)));
      continue;
    }
    const size_t u = static_cast<size_t>(it - uniq.begin());
    EMBER_CHECK(sizes[u] == t.size(static_cast<int64_t>(d)),
                "einsum: subscript {} is repeated for operand {} but the sizes don't match, {} != "
                "{}",
                label_name(labels[d]), index, sizes[u], t.size(static_cast<int64_t>(d)));
    strides[u] += t.stride(static_cast<int64_t>(d));
  }
  if (uniq.size() == labels.size()) return {t, labels};
  return {as_strided(t, sizes, strides, t.storage_offset()), uniq};
}

// Sums the dims whose labels `drop` says, keeping the dtype (einsum never promotes).
Labelled sum_labels(const Labelled& x, const std::function<bool(int)>& drop, bool keepdim = false) {
  DimVector dims;
  Labels rest;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    if (drop(x.labels[d])) {
      dims.push_back(static_cast<int64_t>(d));
      if (keepdim) rest.push_back(x.labels[d]);
    } else {
      rest.push_back(x.labels[d]);
    }
  }
  if (dims.empty()) return x;
  return {sum(x.t, dims, keepdim, x.t.dtype()), rest};
}

int64_t label_size(const Labelled& x, int id) {
  auto it = std::find(x.labels.begin(), x.labels.end(), id);
  return it == x.labels.end() ? 1 : x.t.size(static_cast<int64_t>(it - x.labels.begin()));
}

// Contracts a with b: labels in both and in `keep` are batch dims, labels in both but not kept are
// summed by the bmm, the rest are a's rows or b's columns. Result labels: batch, a-only, b-only.
Labelled contract(Labelled a, Labelled b, const Labels& keep) {
  Labels batch, sum_dims, left, right;
  for (int id : a.labels) {
    if (!contains(b.labels, id))
      left.push_back(id);
    else if (contains(keep, id))
      batch.push_back(id);
    else
      sum_dims.push_back(id);
  }
  for (int id : b.labels)
    if (!contains(a.labels, id)) right.push_back(id);

  // A summed label of size 1 on one side broadcasts: sum the other side down to 1 first.
  Labels a_down, b_down;
  for (int id : sum_dims) {
    const int64_t sa = label_size(a, id), sb = label_size(b, id);
    if (sa != sb && sb == 1) a_down.push_back(id);
    if (sa != sb && sa == 1) b_down.push_back(id);
  }
  a = sum_labels(
      a, [&](int id) { return contains(a_down, id); }, true);
  b = sum_labels(
      b, [&](int id) { return contains(b_down, id); }, true);

  auto order = [](const Labelled& x, std::initializer_list<const Labels*> groups) {
    DimVector perm;
    for (const Labels* g : groups)
      for (int id : *g)
        perm.push_back(std::find(x.labels.begin(), x.labels.end(), id) - x.labels.begin());
    return x.t.permute(perm);
  };
  DimVector batch_sizes, out_shape;
  int64_t nbatch = 1, m = 1, n = 1, k = 1;
  for (int id : batch) {
    // A size-1 side broadcasts to the other's size, which may be 0.
    const int64_t sa = label_size(a, id), s = sa == 1 ? label_size(b, id) : sa;
    batch_sizes.push_back(s);
    nbatch *= s;
  }
  DimVector a_shape = batch_sizes, b_shape = batch_sizes;
  out_shape = batch_sizes;
  for (int id : left) {
    m *= label_size(a, id);
    a_shape.push_back(label_size(a, id));
    out_shape.push_back(label_size(a, id));
  }
  for (int id : sum_dims) {
    const int64_t s = label_size(a, id);
    k *= s;
    a_shape.push_back(s);
  }
  for (int id : sum_dims) b_shape.push_back(label_size(b, id));
  for (int id : right) {
    n *= label_size(b, id);
    b_shape.push_back(label_size(b, id));
    out_shape.push_back(label_size(b, id));
  }
  // Batch labels of size 1 on one side broadcast (a view); then each side becomes 3-D.
  Tensor ta = order(a, {&batch, &left, &sum_dims}).expand(a_shape).reshape({nbatch, m, k});
  Tensor tb = order(b, {&batch, &sum_dims, &right}).expand(b_shape).reshape({nbatch, k, n});
  Labels labels = batch;
  labels.insert(labels.end(), left.begin(), left.end());
  labels.insert(labels.end(), right.begin(), right.end());
  return {bmm(ta, tb).reshape(out_shape), labels};
}

}  // namespace

Tensor einsum(std::string_view equation, TensorList operands) {
  const std::string eq(equation);
  EMBER_CHECK(!operands.empty(), "einsum: must provide at least one operand");
  for (size_t i = 0; i < operands.size(); ++i) check_defined(operands[i], "einsum", "operands");
  for (size_t i = 1; i < operands.size(); ++i) {
    check_same_device({&operands[0], &operands[i]}, "einsum");
    EMBER_CHECK_TYPE(operands[i].dtype() == operands[0].dtype(),
                     "einsum: expected all operands to have the same dtype, but operand 0 is {} "
                     "and operand {} is {}. Hint: convert them with .to(...)",
                     operands[0].dtype(), i, operands[i].dtype());
  }

  // ---- Parse ----
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(parse_term(lhs.substr(start, comma - start), false));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  EMBER_CHECK(terms.size() == operands.size(),
              "einsum: the equation '{}' names {} operands but {} tensors were given", eq,
              terms.size(), operands.size());
  int64_t ell_max = 0;
  std::vector<int64_t> ell_dims(terms.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    const int64_t nl = static_cast<int64_t>(terms[i].letters.size()), nd = operands[i].dim();
    const bool ell = terms[i].ellipsis_at >= 0;
    EMBER_CHECK(ell ? nd >= nl : nd == nl,
                "einsum: the subscripts '{}' of operand {} name {} dims, but the operand has {} "
                "dims (shape {})",
                terms[i].text, i, nl, nd, operands[i].sizes());
    if (ell) ell_dims[i] = nd - nl;
    ell_max = std::max(ell_max, ell_dims[i]);
  }
  std::vector<Labels> in_labels;
  std::array<int, kLetters> count{};
  for (size_t i = 0; i < terms.size(); ++i) {
    in_labels.push_back(expand_term(terms[i], ell_dims[i], ell_max));
    for (int id : terms[i].letters) ++count[static_cast<size_t>(id)];
  }

  Labels out;
  if (arrow != std::string::npos) {
    const Term rhs = parse_term(eq.substr(arrow + 2), true);
    for (int id : rhs.letters) {
      EMBER_CHECK(count[static_cast<size_t>(id)] > 0,
                  "einsum: output subscript {} does not appear in the equation for any input "
                  "operand",
                  label_name(id));
      EMBER_CHECK(std::count(rhs.letters.begin(), rhs.letters.end(), id) == 1,
                  "einsum: output subscript {} appears more than once in the output",
                  label_name(id));
    }
    // Without '...' in the output, the ellipsis dims are summed.
    out = expand_term(rhs, rhs.ellipsis_at >= 0 ? ell_max : 0, ell_max);
  } else {
    for (int64_t e = 0; e < ell_max; ++e) out.push_back(kLetters + static_cast<int>(e));
    for (int id = 0; id < kLetters; ++id)
      if (count[static_cast<size_t>(id)] == 1) out.push_back(id);
  }

  // Every label must have one size across operands, or 1 where it broadcasts (a label repeated
  // within one operand must match exactly: take_diagonals checks that first).
  std::vector<int64_t> sizes(static_cast<size_t>(kLetters + ell_max), -1);
  std::vector<Labelled> inputs;
  for (size_t i = 0; i < operands.size(); ++i) {
    inputs.push_back(take_diagonals(operands[i], in_labels[i], i));
    for (size_t d = 0; d < in_labels[i].size(); ++d) {
      int64_t& s = sizes[static_cast<size_t>(in_labels[i][d])];
      const int64_t here = operands[i].size(static_cast<int64_t>(d));
      EMBER_CHECK(s == -1 || s == here || s == 1 || here == 1,
                  "einsum: subscript {} has size {} for operand {}, which does not broadcast with "
                  "size {} earlier in '{}'. Hint: sizes of one subscript must match or be 1",
                  label_name(in_labels[i][d]), here, i, s, eq);
      if (s == -1 || s == 1) s = here;
    }
  }

  // ---- Contract left to right ----
  // A label is still needed after step i if the output or a later operand has it.
  auto needed_after = [&](size_t i) {
    Labels keep = out;
    for (size_t j = i + 1; j < in_labels.size(); ++j)
      keep.insert(keep.end(), in_labels[j].begin(), in_labels[j].end());
    return keep;
  };
  Labelled acc = inputs[0];
  {
    const Labels keep = needed_after(0);
    acc = sum_labels(acc, [&](int id) { return !contains(keep, id); });
  }
  for (size_t i = 1; i < operands.size(); ++i) {
    Labelled next = inputs[i];
    const Labels keep = needed_after(i);
    next =
        sum_labels(next, [&](int id) { return !contains(keep, id) && !contains(acc.labels, id); });
    acc = contract(acc, next, keep);
  }

  // Into the output's order; a label that never met its full size (size 1 here) broadcasts.
  DimVector perm, shape;
  for (int id : out) {
    perm.push_back(std::find(acc.labels.begin(), acc.labels.end(), id) - acc.labels.begin());
    shape.push_back(sizes[static_cast<size_t>(id)]);
  }
  Tensor result = acc.t.permute(perm);
  return result.sizes() == IntArrayRef(shape) ? result : result.expand(shape).contiguous();
}

}  // namespace ember
