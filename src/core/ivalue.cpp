#include "ember/core/ivalue.h"

#include "src/core/check.h"

namespace ember {

const char* IValue::tagKind() const {
  static const char* kNames[] = {"None",   "Tensor",  "Double",     "Int",       "Bool",
                                 "String", "IntList", "DoubleList", "TensorList"};
  return kNames[v_.index()];
}

void IValue::throw_wrong_kind(const char* want) const {
  EMBER_CHECK_TYPE(false, "IValue: expected {} but the value holds {}", want, tagKind());
  __builtin_unreachable();
}

}  // namespace ember
