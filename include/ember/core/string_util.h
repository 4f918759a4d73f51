// String building for messages (LibTorch's c10::str and c10::Join).
#pragma once

#include <sstream>
#include <string>

namespace ember {

/// Streams every argument into one string: `str("expected ", 3, " dims, got ", sizes)`.
template <class... Args>
std::string str(const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return std::string();
  } else {
    std::ostringstream out;
    (out << ... << args);
    return out.str();
  }
}

/// The elements of a container streamed one after another, `delimiter` between them:
/// `Join(", ", std::vector<int>{1, 2})` is "1, 2".
template <class Container>
std::string Join(const std::string& delimiter, const Container& values) {
  std::ostringstream out;
  bool first = true;
  for (const auto& value : values) {
    if (!first) out << delimiter;
    out << value;
    first = false;
  }
  return out.str();
}

}  // namespace ember
