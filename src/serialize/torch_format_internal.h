// The torch.save format (a zip of data.pkl, data/<key> storages, version) between bytes and
// IValues; shared by ember::pickle_save / pickle_load, the state_dict functions and the fuzzers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ember/core/device.h"
#include "ember/core/ivalue.h"
#include "ember/core/macros.h"
#include "ember/core/ordered_dict.h"
#include "src/serialize/file_io.h"

namespace ember::serialize::detail {

/// Reads a torch.save zip from `data`. `source` names it in errors. With `file` (whose bytes
/// `data` are), tensors share the file's pages where alignment allows; without, they own copies.
EMBER_API IValue load_torch_zip(const uint8_t* data, size_t size, const std::string& source,
                                const std::shared_ptr<MappedFile>& file);

/// The state_dict (string -> tensor) of a torch.save zip held in `data`; `file` as for
/// load_torch_zip (tensors share its pages when given), tensors moved to `device` when given.
EMBER_API OrderedDict<std::string, Tensor> torch_state_dict_from_zip(
    const uint8_t* data, size_t size, const std::string& source,
    const std::shared_ptr<MappedFile>& file, std::optional<Device> device);

/// Writes `value` as a torch.save zip to `sink`. `ordered_dicts`: dicts as OrderedDict.
EMBER_API void write_torch_zip(const IValue& value, bool ordered_dicts,
                               const std::function<void(const void*, size_t)>& sink,
                               const char* op);

/// The fuzzers' entry points (also replayed over the seed corpora by a test): parse the bytes,
/// swallowing ember::Error, as a torch.save zip or as a bare pickle.
EMBER_API void fuzz_torch_pt_input(const uint8_t* data, size_t size);
EMBER_API void fuzz_pickle_input(const uint8_t* data, size_t size);

}  // namespace ember::serialize::detail
