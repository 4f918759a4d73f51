#include "ember/core/scalar.h"

namespace ember {

ScalarType Scalar::type() const {
  switch (kind_) {
    case Kind::Float:
      return kDouble;
    case Kind::Int:
      return kLong;
    default:
      return kBool;
  }
}

Scalar Scalar::operator-() const {
  if (kind_ == Kind::Float) return Scalar(-v_.d);
  return Scalar(-v_.i);
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Float:
      return os << s.toDouble();
    case Scalar::Kind::Int:
      return os << s.toLong();
    default:
      return os << (s.toBool() ? "true" : "false");
  }
}

}  // namespace ember
