#include "src/data/samplers/archive_index.h"

#include "ember/ops/factory.h"
#include "src/core/check.h"

namespace ember::data::samplers::detail {

void write_index(serialize::OutputArchive& archive, const std::string& key, size_t value) {
  archive.write(key, tensor(static_cast<int64_t>(value)), /*is_buffer=*/true);
}

size_t read_index(serialize::InputArchive& archive, const std::string& key, const char* who) {
  Tensor t;
  archive.read(key, t, /*is_buffer=*/true);
  EMBER_CHECK(t.numel() == 1 && is_integral(t.scalar_type(), /*include_bool=*/false),
              "{}::load: '{}' holds a {} tensor of sizes {}; expected one integer", who, key,
              t.scalar_type(), t.sizes());
  const int64_t v = t.item<int64_t>();
  EMBER_CHECK(v >= 0, "{}::load: '{}' is {}; expected a non-negative position", who, key, v);
  return static_cast<size_t>(v);
}

}  // namespace ember::data::samplers::detail
