#include "ember/core/device.h"

#include "ember/core/tensor_options.h"

#include "check.h"

namespace ember {

Device::Device(const std::string& spec) : type_(kCPU), index_(-1) {
  std::string kind = spec.substr(0, spec.find(':'));
  if (kind == "cpu") {
    type_ = kCPU;
  } else if (kind == "cuda") {
    type_ = kCUDA;
  } else {
    EMBER_FAIL("Device: unknown device type in '{}'. Hint: use \"cpu\", \"cuda\" or \"cuda:N\"",
               spec);
  }
  if (kind.size() != spec.size()) {
    std::string idx = spec.substr(kind.size() + 1);
    EMBER_CHECK(
        !idx.empty() && idx.find_first_not_of("0123456789") == std::string::npos && idx.size() < 4,
        "Device: bad device index in '{}'. Hint: use \"cuda:N\" with N >= 0", spec);
    // The index is an int8_t: "cuda:200" would wrap to -56, which means "the current device".
    const int value = std::stoi(idx);
    EMBER_CHECK(value <= 127,
                "Device: device index {} in '{}' is out of range. Hint: use an index below 128",
                value, spec);
    index_ = static_cast<int8_t>(value);
  }
}

std::string Device::str() const {
  std::string s = type_ == kCPU ? "cpu" : "cuda";
  if (index_ >= 0) s += ":" + std::to_string(index_);
  return s;
}

std::ostream& operator<<(std::ostream& os, DeviceType t) {
  return os << (t == kCPU ? "cpu" : "cuda");
}
std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }
std::ostream& operator<<(std::ostream& os, Layout layout) {
  static const char* const names[] = {"Strided",   "Sparse",    "SparseCsr", "SparseCsc",
                                      "SparseBsr", "SparseBsc", "Mkldnn"};
  return os << names[static_cast<int>(layout)];
}

std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}

}  // namespace ember
