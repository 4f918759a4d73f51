// Typed reads of a scheduler's counters from an archive, with errors that name the key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/serialize/archive.h"

namespace ember::optim {

/// The integer under `key`; Error naming the key when it is missing or not an integer.
int64_t sched_read_int(serialize::InputArchive& archive, const std::string& key);
/// The number under `key` (an integer entry reads as its value).
double sched_read_double(serialize::InputArchive& archive, const std::string& key);
/// The list of `expected_size` numbers under `key` (expected_size 0: any length).
std::vector<double> sched_read_doubles(serialize::InputArchive& archive, const std::string& key,
                                       size_t expected_size);

}  // namespace ember::optim
