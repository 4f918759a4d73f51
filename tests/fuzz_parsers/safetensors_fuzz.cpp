// libFuzzer target for the safetensors reader (tools/fuzz-parsers.sh safetensors). Any input must
// load or throw ember::Error; one that loads must survive a save and load unchanged. The gtest
// tests/serialize/safetensors_fuzz_replay_test.cpp replays the seed corpus through this same
// function (renamed by EMBER_FUZZ_SAFETENSORS_ENTRY).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ember/core/error.h"
#include "ember/serialize/safetensors.h"

#ifndef EMBER_FUZZ_SAFETENSORS_ENTRY
#define EMBER_FUZZ_SAFETENSORS_ENTRY LLVMFuzzerTestOneInput
#endif

namespace {

// Aborts (a finding for libFuzzer, a crash for the replay test) when two loads differ.
void safetensors_fuzz_require(bool ok) {
  if (!ok) std::abort();
}

bool safetensors_fuzz_same(const ember::Tensor& a, const ember::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || !a.sizes().equals(b.sizes())) return false;
  const ember::Tensor ca = a.contiguous(), cb = b.contiguous();
  return ca.nbytes() == cb.nbytes() &&
         (ca.nbytes() == 0 || std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0);
}

}  // namespace

extern "C" int EMBER_FUZZ_SAFETENSORS_ENTRY(const uint8_t* data, size_t size) {
  namespace ser = ember::serialize;
  ember::OrderedDict<std::string, ember::Tensor> loaded;
  std::map<std::string, std::string> metadata;
  try {
    loaded = ser::load_safetensors_from_bytes(data, size);
    metadata = ser::load_safetensors_metadata_from_bytes(data, size);
  } catch (const ember::Error&) {
    return 0;  // refused cleanly
  }
  const std::vector<char> again = ser::save_safetensors_to_bytes(loaded, metadata);
  const auto reloaded = ser::load_safetensors_from_bytes(again.data(), again.size());
  safetensors_fuzz_require(ser::load_safetensors_metadata_from_bytes(again.data(), again.size()) ==
                           metadata);
  safetensors_fuzz_require(reloaded.size() == loaded.size());
  for (const auto& item : loaded) {
    const ember::Tensor* other = reloaded.find(item.key());
    safetensors_fuzz_require(other != nullptr && safetensors_fuzz_same(item.value(), *other));
  }
  return 0;
}
