#include <cstring>

#include "ember/core/error.h"
#include "ember/serialize/pickle.h"
#include "src/core/check.h"
#include "src/serialize/pickle_reader.h"
#include "src/serialize/torch_format_internal.h"

namespace ember::serialize::detail {

void fuzz_torch_pt_input(const uint8_t* data, size_t size) {
  IValue v;
  try {
    v = load_torch_zip(data, size, "<fuzz>", nullptr);
  } catch (const Error&) {
    return;
  }
  // What loads must write back and load again (the writer sees hostile shapes too).
  std::vector<char> bytes;
  try {
    bytes = pickle_save(v);
  } catch (const Error&) {
    return;  // e.g. two dtypes over one storage: PyTorch's format cannot say that
  }
  pickle_load(bytes);
}

void fuzz_pickle_input(const uint8_t* data, size_t size) {
  // Storages come from nowhere: zeros of the asked size, up to a bound.
  PickleStorageLoader zeros = [](const PickleStorageRequest& req) {
    const int64_t nbytes = req.numel * element_size(req.dtype);  // numel*8 checked by the reader
    EMBER_CHECK(nbytes <= (1 << 20), "fuzz: storage of {} bytes is too big", nbytes);
    intrusive_ptr<StorageImpl> s = make_storage(static_cast<size_t>(nbytes), Device(kCPU));
    if (nbytes > 0) std::memset(s->data(), 0, static_cast<size_t>(nbytes));
    return s;
  };
  try {
    unpickle(data, size, "<fuzz>", zeros);
  } catch (const Error&) {
  }
}

}  // namespace ember::serialize::detail
