// Public elementwise functions and Tensor methods generated from the rows of op_table.h.
#include "ember/ops/elementwise.h"

#include "src/ops/elementwise_impl.h"

namespace ember {

#define EMBER_DEFINE_UNARY(name, Name, policy)                                                \
  Tensor name(const Tensor& self) { return unary_op(OpId::name, UnaryPolicy::policy, self); } \
  const Tensor& name##_(const Tensor& self) {                                                 \
    unary_op(OpId::name, UnaryPolicy::policy, self, {}, &self);                               \
    return self;                                                                              \
  }                                                                                           \
  const Tensor& name##_out(const Tensor& out, const Tensor& self) {                           \
    unary_op(OpId::name, UnaryPolicy::policy, self, {}, &out);                                \
    return out;                                                                               \
  }                                                                                           \
  Tensor Tensor::name() const { return ember::name(*this); }                                  \
  const Tensor& Tensor::name##_() const { return ember::name##_(*this); }
EMBER_UNARY_OPS(EMBER_DEFINE_UNARY)
#undef EMBER_DEFINE_UNARY

#define EMBER_DEFINE_BINARY(name, Name, policy)                                          \
  Tensor name(const Tensor& self, const Tensor& other) {                                 \
    return binary_op(OpId::name, BinaryPolicy::policy, self, other);                     \
  }                                                                                      \
  Tensor name(const Tensor& self, const Scalar& other) {                                 \
    return binary_op(OpId::name, BinaryPolicy::policy, self, other);                     \
  }                                                                                      \
  Tensor name(const Scalar& self, const Tensor& other) {                                 \
    return binary_op(OpId::name, BinaryPolicy::policy, self, other);                     \
  }                                                                                      \
  const Tensor& name##_out(const Tensor& out, const Tensor& self, const Tensor& other) { \
    binary_op(OpId::name, BinaryPolicy::policy, self, other, {}, &out);                  \
    return out;                                                                          \
  }                                                                                      \
  Tensor Tensor::name(const Tensor& other) const { return ember::name(*this, other); }   \
  Tensor Tensor::name(const Scalar& other) const { return ember::name(*this, other); }   \
  const Tensor& Tensor::name##_(const Tensor& other) const {                             \
    binary_op(OpId::name, BinaryPolicy::policy, *this, other, {}, this);                 \
    return *this;                                                                        \
  }                                                                                      \
  const Tensor& Tensor::name##_(const Scalar& other) const {                             \
    binary_op(OpId::name, BinaryPolicy::policy, *this, other, {}, this);                 \
    return *this;                                                                        \
  }
EMBER_BINARY_OPS(EMBER_DEFINE_BINARY)
#undef EMBER_DEFINE_BINARY

}  // namespace ember
