#include "ember/core/scalar_type.h"

#include <atomic>

namespace ember {

const char* to_string(ScalarType t) {
  switch (t) {
#define EMBER_NAME_CASE(ctype, name, short_name) \
  case ScalarType::name:                         \
    return #short_name;
    EMBER_FORALL_SCALAR_TYPES(EMBER_NAME_CASE)
#undef EMBER_NAME_CASE
    default:
      return "undefined";
  }
}

const char* type_name(ScalarType t) {
  switch (t) {
#define EMBER_NAME_CASE(ctype, name, short_name) \
  case ScalarType::name:                         \
    return #name;
    EMBER_FORALL_SCALAR_TYPES(EMBER_NAME_CASE)
#undef EMBER_NAME_CASE
    default:
      return "Undefined";
  }
}

// LibTorch prints ScalarType by its C++ name (Float, Long); Ember's error messages use to_string.
std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << type_name(t); }

namespace {
// Rank within a category, so promotion is "take the wider one" except for the mixed pairs
// uint8/int8 (-> int16) and float16/bfloat16 (-> float32), as in PyTorch.
int category(ScalarType t) {
  if (t == kBool) return 0;
  if (is_integral(t, false)) return 1;
  return 2;
}
int width_rank(ScalarType t) {
  switch (t) {
    case kByte:
      return 1;
    case kChar:
      return 1;
    case kShort:
      return 2;
    case kInt:
      return 3;
    case kLong:
      return 4;
    case kHalf:
      return 1;
    case kBFloat16:
      return 1;
    case kFloat:
      return 2;
    case kDouble:
      return 3;
    default:
      return 0;
  }
}
std::atomic<ScalarType> g_default_dtype{kFloat};
}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 1 && ((a == kByte && b == kChar) || (a == kChar && b == kByte))) return kShort;
  if (ca == 2 && is_reduced_float(a) && is_reduced_float(b)) return kFloat;
  if (ca == 1 && (a == kByte || b == kByte)) {
    // uint8 with a wider signed type: the signed type wins.
    return a == kByte ? b : a;
  }
  return width_rank(a) >= width_rank(b) ? a : b;
}

ScalarType get_default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(ScalarType t) { g_default_dtype.store(t, std::memory_order_relaxed); }

}  // namespace ember
