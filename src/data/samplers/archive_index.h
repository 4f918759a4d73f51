// The samplers keep their counters in archives as LibTorch does (an int64 scalar tensor written as
// a buffer), so a checkpoint's keys read the same in both.
#pragma once

#include <cstddef>
#include <string>

#include "ember/serialize/archive.h"

namespace ember::data::samplers::detail {

/// Writes `value` under `key` as an int64 buffer.
void write_index(serialize::OutputArchive& archive, const std::string& key, size_t value);
/// Reads what write_index wrote; Error naming `who` and `key` when it is not a single
/// non-negative integer.
size_t read_index(serialize::InputArchive& archive, const std::string& key, const char* who);

}  // namespace ember::data::samplers::detail
