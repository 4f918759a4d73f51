// Where a tensor lives.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "ember/core/macros.h"

namespace ember {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1, NumTypes = 2 };
constexpr int kNumDeviceTypes = static_cast<int>(DeviceType::NumTypes);
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;

/// A device type plus an index (-1 = "the current one"), e.g. Device(kCUDA, 0) or Device("cuda:1").
struct EMBER_API Device {
  Device(DeviceType type = kCPU, int8_t index = -1) : type_(type), index_(index) {}
  /// Parses "cpu", "cuda", "cuda:1".
  Device(const std::string& spec);
  Device(const char* spec) : Device(std::string(spec)) {}

  DeviceType type() const { return type_; }
  int8_t index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == kCPU; }
  bool is_cuda() const { return type_ == kCUDA; }
  std::string str() const;

  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  DeviceType type_;
  int8_t index_;
};

EMBER_API std::ostream& operator<<(std::ostream& os, DeviceType t);
EMBER_API std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace ember
