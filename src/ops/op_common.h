// Helpers every op family shares: dim wrapping, broadcasting, type promotion, output handling and
// the call into an elementwise kernel. Private to the library.
#pragma once

#include <initializer_list>
#include <optional>

#include "ember/core/tensor.h"
#include "kernels/common/elementwise_loop.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"

namespace ember {

/// Maps a possibly negative dim into [0, ndim); IndexError naming the op when out of range.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);

/// The broadcast shape of a and b; Error naming the op and both shapes when incompatible.
DimVector broadcast_shape(IntArrayRef a, IntArrayRef b, const char* op);

/// PyTorch's result_type over tensors and wrapped scalars (dimensioned tensors first, then
/// 0-dim tensors, then scalars, each class only raising the category). Null entries are skipped.
ScalarType result_type_of(std::initializer_list<const Tensor*> tensors,
                          std::initializer_list<const Scalar*> scalars);

/// Whether a value of dtype `from` may be written into a tensor of dtype `to` by an in-place or
/// out= op (no float -> integer, no non-bool -> bool).
bool can_cast(ScalarType from, ScalarType to);

/// A tensor of `dtype` with the same values (self when it already has that dtype).
Tensor cast_to(const Tensor& self, ScalarType dtype);

/// A 0-dim tensor holding `s` as `dtype` on `device`.
Tensor scalar_to_tensor(const Scalar& s, ScalarType dtype, Device device);

/// Checks that a tensor handle is defined, naming the op and the argument.
void check_defined(const Tensor& t, const char* op, const char* arg = "self");

/// Checks that a tensor about to be written has no two elements at one memory location (a dim of
/// size > 1 with stride 0, as expand() makes), as LibTorch's assert_no_internal_overlap.
void check_no_internal_overlap(const Tensor& t, const char* op);

/// Checks that all defined tensors share one device.
void check_same_device(std::initializer_list<const Tensor*> tensors, const char* op);

/// Builds the coalesced loop for `out` and `inputs` (each broadcastable to out's shape). A null
/// input is the one value at `scalar` (host memory, compute dtype), broadcast everywhere: how CPU
/// ops take a wrapped scalar without making a 0-dim tensor for it.
ElementwiseLoop make_elementwise_loop(const Tensor& out,
                                      std::initializer_list<const Tensor*> inputs,
                                      const OpScalars& scalars, ScalarType compute_dtype,
                                      const void* scalar = nullptr);

/// Runs elementwise kernel `op` over out and inputs (inputs already in `compute_dtype`; a null
/// input reads `scalar`, as in make_elementwise_loop).
void run_elementwise(OpId op, const Tensor& out, std::initializer_list<const Tensor*> inputs,
                     ScalarType compute_dtype, const OpScalars& scalars = {},
                     const void* scalar = nullptr);

/// Holds a Scalar converted to a dtype, in host memory, converted as fill_ converts it
/// (integers from the exact int64, floats from the double).
struct ScalarBuffer {
  ScalarBuffer(const Scalar& s, ScalarType dtype);
  alignas(16) unsigned char bytes[16];
};

/// Makes `out` hold `sizes`, as out= ops do (LibTorch's rule: any out is resized, with a
/// warning through the warning channel when it held elements).
void resize_output(const Tensor& out, IntArrayRef sizes, const char* op);

/// Gives t the contiguous shape `sizes`, keeping its storage when it is large enough (the
/// elements are then whatever the storage held) and allocating a new one otherwise.
void set_shape_keeping_storage(const Tensor& t, IntArrayRef sizes, const char* op);

/// Checks that `result` may be written into `out` (named `name` in messages): the same device
/// and a dtype result can be cast to.
void check_out_like(const Tensor& out, const Tensor& result, const char* op,
                    const char* name = "out");

/// Writes `result` into `out` (resizing and casting), for out= forms: check_out_like, then
/// resize_output, then one copy (which bumps out's version once).
const Tensor& assign_out(const Tensor& out, const Tensor& result, const char* op,
                         const char* name = "out");

/// A view of self's storage with the given geometry and no autograd history, whose view base is
/// self's base (self when self is not a view): what every view op builds before recording.
Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset);

/// The copy behind every clone (row-major or channels-last): copies self into `out`, freshly
/// allocated with self's sizes and options and any strides, recording clone's derivative.
Tensor clone_into(const Tensor& self, const Tensor& out);

/// Throws unless InferenceMode is on (t is an inference tensor).
void check_inference_write(const Tensor& t, const char* op);
/// Refuses a write into an inference tensor (made under InferenceMode) outside InferenceMode, as
/// LibTorch does: such tensors keep no version counter, so autograd could not see the change.
/// In-place ops call it before writing; bump_version calls it too, as a backstop.
inline void check_writable(const Tensor& t, const char* op) {
  if (EMBER_UNLIKELY(t.unsafeGetTensorImpl()->storage()->is_inference()))
    check_inference_write(t, op);
}

/// Records a write into `t` for autograd's saved-tensor checks.
inline void bump_version(const Tensor& t) {
  check_writable(t, "an in-place operation");
  t.unsafeGetTensorImpl()->bump_version();
}

}  // namespace ember
