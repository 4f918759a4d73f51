// Writing safetensors byte for byte as Python's safetensors (Rust `prepare`/`serialize`) does:
// tensors ordered by dtype rank (largest first, so each stays aligned), then by name; compact
// JSON with "__metadata__" first; the header padded with spaces to a multiple of 8.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "src/core/check.h"
#include "src/serialize/json.h"
#include "src/serialize/safetensors_dtype.h"
#include "src/serialize/safetensors_format.h"

namespace ember::serialize::detail {

void write_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata, const ByteSink& sink,
                       const char* op) {
  for (const auto& [name, t] : tensors) {
    EMBER_CHECK(t.defined(), "{}: tensor '{}' is undefined", op, name);
    EMBER_CHECK(is_valid_utf8(name), "{}: tensor name '{}' is not valid UTF-8", op, name);
    EMBER_CHECK(name != "__metadata__",
                "{}: the tensor name '__metadata__' is reserved for the file's metadata", op);
  }
  for (const auto& [k, v] : metadata)
    EMBER_CHECK(is_valid_utf8(k) && is_valid_utf8(v),
                "{}: metadata entry '{}' is not valid UTF-8 (JSON holds UTF-8 only)", op, k);

  std::vector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const int ra = safetensors_dtype_of(tensors[a].second.scalar_type()).rank;
    const int rb = safetensors_dtype_of(tensors[b].second.scalar_type()).rank;
    return ra != rb ? ra > rb : tensors[a].first < tensors[b].first;
  });

  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata) {
      if (!first) header += ',';
      first = false;
      append_json_string(header, k);
      header += ':';
      append_json_string(header, v);
    }
    header += '}';
  }
  uint64_t offset = 0;
  for (size_t i : order) {
    const auto& [name, t] = tensors[i];
    if (header.size() > 1) header += ',';
    append_json_string(header, name);
    header += fmt::format(":{{\"dtype\":\"{}\",\"shape\":[{}],\"data_offsets\":[{},{}]}}",
                          safetensors_dtype_of(t.scalar_type()).name, fmt::join(t.sizes(), ","),
                          offset, offset + t.nbytes());
    offset += t.nbytes();
  }
  header += '}';
  header.append((8 - header.size() % 8) % 8, ' ');

  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(uint64_t{header.size()} >> (8 * i));
  sink(len, 8);
  sink(header.data(), header.size());
  // One host copy at a time: saving never holds more than the largest tensor twice.
  for (size_t i : order) {
    const Tensor& t = tensors[i].second;
    if (t.numel() == 0) continue;
    const Tensor host = t.cpu().contiguous();
    sink(host.data_ptr(), host.nbytes());
  }
}

}  // namespace ember::serialize::detail
