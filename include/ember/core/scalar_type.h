// The dtype list, declared once. Everything that enumerates dtypes (names, sizes, the dtype
// visitor, type promotion) is generated from EMBER_FORALL_SCALAR_TYPES.
#pragma once

#include <cstdint>
#include <ostream>

#include "ember/core/half.h"
#include "ember/core/macros.h"

namespace ember {

// _(C++ type, enum name, short name as PyTorch prints it)
#define EMBER_FORALL_SCALAR_TYPES(_) \
  _(uint8_t, Byte, uint8)            \
  _(int8_t, Char, int8)              \
  _(int16_t, Short, int16)           \
  _(int32_t, Int, int32)             \
  _(int64_t, Long, int64)            \
  _(::ember::Half, Half, float16)    \
  _(float, Float, float32)           \
  _(double, Double, float64)         \
  _(bool, Bool, bool)                \
  _(::ember::BFloat16, BFloat16, bfloat16)

enum class ScalarType : int8_t {
#define EMBER_ENUM_ENTRY(ctype, name, short_name) name,
  EMBER_FORALL_SCALAR_TYPES(EMBER_ENUM_ENTRY)
#undef EMBER_ENUM_ENTRY
      Undefined,
  NumOptions = Undefined
};

constexpr int kNumScalarTypes = static_cast<int>(ScalarType::NumOptions);

// LibTorch-style constants: kFloat, kFloat32, kLong, ...
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kUInt8 = kByte;
constexpr ScalarType kInt8 = kChar;
constexpr ScalarType kInt16 = kShort;
constexpr ScalarType kInt32 = kInt;
constexpr ScalarType kInt64 = kLong;
constexpr ScalarType kFloat16 = kHalf;
constexpr ScalarType kFloat32 = kFloat;
constexpr ScalarType kFloat64 = kDouble;

/// C++ type -> ScalarType, e.g. scalar_type_of<float>() == kFloat.
template <class T>
struct CppTypeToScalarType;
#define EMBER_CPP_TO_ENUM(ctype, name, short_name)        \
  template <>                                             \
  struct CppTypeToScalarType<ctype> {                     \
    static constexpr ScalarType value = ScalarType::name; \
  };
EMBER_FORALL_SCALAR_TYPES(EMBER_CPP_TO_ENUM)
#undef EMBER_CPP_TO_ENUM
template <class T>
constexpr ScalarType scalar_type_of() {
  return CppTypeToScalarType<T>::value;
}

/// Element size in bytes.
constexpr int64_t element_size(ScalarType t) {
  switch (t) {
#define EMBER_SIZE_CASE(ctype, name, short_name) \
  case ScalarType::name:                         \
    return sizeof(ctype);
    EMBER_FORALL_SCALAR_TYPES(EMBER_SIZE_CASE)
#undef EMBER_SIZE_CASE
    default:
      return 0;
  }
}

/// "float32", "int64", ... as PyTorch prints dtypes (without the "torch." prefix).
EMBER_API const char* to_string(ScalarType t);
/// LibTorch's name for the type in errors and printing: "Float", "Long", ...
EMBER_API const char* type_name(ScalarType t);
/// type_name(t) under LibTorch's name for it (c10::toString).
inline const char* toString(ScalarType t) { return type_name(t); }
/// Prints type_name(t) ("Float", "Long"), as LibTorch does.
EMBER_API std::ostream& operator<<(std::ostream& os, ScalarType t);

constexpr bool is_floating_point(ScalarType t) {
  return t == kHalf || t == kFloat || t == kDouble || t == kBFloat16;
}
constexpr bool is_integral(ScalarType t, bool include_bool) {
  return t == kByte || t == kChar || t == kShort || t == kInt || t == kLong ||
         (include_bool && t == kBool);
}
constexpr bool is_reduced_float(ScalarType t) { return t == kHalf || t == kBFloat16; }

/// PyTorch's promotion of two dtypes (torch.promote_types).
EMBER_API ScalarType promote_types(ScalarType a, ScalarType b);

/// The process-wide default floating dtype (float32 unless changed), used for float results of
/// integer inputs and for factories without a dtype.
EMBER_API ScalarType get_default_dtype();
EMBER_API void set_default_dtype(ScalarType t);

}  // namespace ember
