#include "src/optim/schedulers/scheduler_archive.h"

#include "src/core/check.h"

namespace ember::optim {

int64_t sched_read_int(serialize::InputArchive& archive, const std::string& key) {
  IValue value;
  archive.read(key, value);
  EMBER_CHECK(value.isInt(), "LRScheduler::load: entry '{}' must be an integer", key);
  return value.toInt();
}

double sched_read_double(serialize::InputArchive& archive, const std::string& key) {
  IValue value;
  archive.read(key, value);
  EMBER_CHECK(value.isDouble() || value.isInt(), "LRScheduler::load: entry '{}' must be a number",
              key);
  return value.isInt() ? static_cast<double>(value.toInt()) : value.toDouble();
}

std::vector<double> sched_read_doubles(serialize::InputArchive& archive, const std::string& key,
                                       size_t expected_size) {
  IValue value;
  archive.read(key, value);
  EMBER_CHECK(value.isDoubleList(), "LRScheduler::load: entry '{}' must be a list of numbers", key);
  std::vector<double> values = value.toDoubleVector();
  EMBER_CHECK(expected_size == 0 || values.size() == expected_size,
              "LRScheduler::load: entry '{}' has {} values, expected {} (one per param group). "
              "Hint: load into a scheduler over an optimizer with the same param groups",
              key, values.size(), expected_size);
  return values;
}

}  // namespace ember::optim
