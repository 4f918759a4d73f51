// Safetensors dtype names <-> Ember dtypes, and the order Python's safetensors writes tensors in.
#pragma once

#include <string_view>

#include "ember/core/scalar_type.h"

namespace ember::serialize::detail {

struct SafetensorsDtype {
  const char* name;
  ScalarType type;  // Undefined: a safetensors dtype Ember lacks
  int rank;         // position in safetensors' Dtype enum: files list larger ranks first
};

// Every dtype of the safetensors spec, in its enum order (F4/F6/F8_E8M0/C64 came later).
inline constexpr SafetensorsDtype kSafetensorsDtypes[] = {
    {"BOOL", kBool, 0},
    {"U8", kByte, 1},
    {"I8", kChar, 2},
    {"F8_E5M2", ScalarType::Undefined, 3},
    {"F8_E4M3", ScalarType::Undefined, 4},
    {"I16", kShort, 5},
    {"U16", ScalarType::Undefined, 6},
    {"F16", kHalf, 7},
    {"BF16", kBFloat16, 8},
    {"I32", kInt, 9},
    {"U32", ScalarType::Undefined, 10},
    {"F32", kFloat, 11},
    {"F64", kDouble, 12},
    {"I64", kLong, 13},
    {"U64", ScalarType::Undefined, 14},
    {"F4", ScalarType::Undefined, -1},
    {"F6_E2M3", ScalarType::Undefined, -1},
    {"F6_E3M2", ScalarType::Undefined, -1},
    {"F8_E8M0", ScalarType::Undefined, -1},
    {"C64", ScalarType::Undefined, -1},
};

/// The entry named `name`, or nullptr when the spec has no such dtype.
inline const SafetensorsDtype* safetensors_dtype_by_name(std::string_view name) {
  for (const auto& d : kSafetensorsDtypes)
    if (name == d.name) return &d;
  return nullptr;
}

/// The entry for an Ember dtype (every Ember dtype has one).
inline const SafetensorsDtype& safetensors_dtype_of(ScalarType t) {
  for (const auto& d : kSafetensorsDtypes)
    if (d.type == t && t != ScalarType::Undefined) return d;
  return kSafetensorsDtypes[0];  // unreachable: the table covers every ScalarType
}

}  // namespace ember::serialize::detail
