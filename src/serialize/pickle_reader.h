// A restricted unpickler: the pickle opcodes (protocols 2 to 5) and the globals a PyTorch
// state_dict uses, nothing else. It runs no code: the only callables it accepts are
// collections.OrderedDict, torch._utils._rebuild_tensor_v2 / _rebuild_parameter and the
// torch.<Type>Storage classes of persistent ids, each rebuilt by Ember's own code. Every length is
// checked against the bytes left before anything is allocated for it; the stack, the memo and
// the nesting of containers are bounded, so a hostile pickle is an Error, never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "ember/core/ivalue.h"
#include "ember/core/macros.h"
#include "ember/core/storage.h"

namespace ember::serialize::detail {

/// What a persistent id ('storage', torch.<Type>Storage, key, location, numel) asks for.
struct PickleStorageRequest {
  std::string key;       // the record name under `<archive>/data/`
  ScalarType dtype;      // from the storage class
  int64_t numel;         // elements of dtype
  std::string location;  // "cpu", "cuda:0", ...: where PyTorch had it
};

/// Returns the storage for a request: at least numel * itemsize bytes (Error otherwise). Called
/// once per key; tensors naming the same key share the storage it returns.
using PickleStorageLoader = std::function<intrusive_ptr<StorageImpl>(const PickleStorageRequest&)>;

/// Limits on what a pickle may build.
constexpr size_t kPickleMaxStack = 1 << 20;  // stack items
constexpr size_t kPickleMaxMemo = 1 << 20;   // memo entries
constexpr int kPickleMaxNesting = 256;       // containers inside containers
constexpr int kPickleMaxRank = 64;           // dims of a rebuilt tensor

/// Unpickles `data`. `source` names the pickle in errors (e.g. "'m.pt' record 'm/data.pkl'").
EMBER_API IValue unpickle(const uint8_t* data, size_t size, const std::string& source,
                          const PickleStorageLoader& load_storage);

/// The dtype of a storage class name ("FloatStorage" -> float32), or Undefined.
EMBER_API ScalarType pickle_storage_dtype(const std::string& class_name);
/// The storage class name of a dtype ("FloatStorage"); Error for a dtype PyTorch has no class for.
EMBER_API const char* pickle_storage_class(ScalarType dtype);

}  // namespace ember::serialize::detail
