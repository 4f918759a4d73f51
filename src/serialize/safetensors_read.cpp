// Reading safetensors: header validation (everything the reference reader checks, plus duplicate
// keys and BOOL bytes) and tensors that share the file's mapping when aligned.
#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <string_view>

#include "ember/ops/factory.h"
#include "src/core/check.h"
#include "src/serialize/json.h"
#include "src/serialize/safetensors_dtype.h"
#include "src/serialize/safetensors_format.h"

namespace ember::serialize::detail {
namespace {

SafetensorsTensorInfo safetensors_tensor_info(const std::string& name, const JsonValue& v,
                                              uint64_t buffer_size, const std::string& what) {
  EMBER_CHECK(v.kind == JsonValue::Kind::Object,
              "{}: tensor '{}': expected an object with dtype, shape and data_offsets, got {}",
              what, name, v.kind_name());
  SafetensorsTensorInfo info;
  info.name = name;

  const JsonValue* dtype = v.find("dtype");
  EMBER_CHECK(dtype && dtype->kind == JsonValue::Kind::String,
              "{}: tensor '{}': missing or non-string \"dtype\"", what, name);
  const SafetensorsDtype* d = safetensors_dtype_by_name(dtype->text);
  EMBER_CHECK(d != nullptr, "{}: tensor '{}': unknown dtype '{}'", what, name, dtype->text);
  EMBER_CHECK(d->type != ScalarType::Undefined,
              "{}: tensor '{}': dtype {} is not supported by Ember (supported: F64, F32, F16, "
              "BF16, I64, I32, I16, I8, U8, BOOL)",
              what, name, d->name);
  info.dtype = d->type;

  const JsonValue* shape = v.find("shape");
  EMBER_CHECK(shape && shape->kind == JsonValue::Kind::Array,
              "{}: tensor '{}': missing or non-array \"shape\"", what, name);
  EMBER_CHECK(shape->items.size() <= 64, "{}: tensor '{}': {} dimensions (at most 64)", what, name,
              shape->items.size());
  uint64_t numel = 1;
  bool overflow = false;
  for (const JsonValue& s : shape->items) {
    uint64_t n = 0;
    EMBER_CHECK(json_to_uint64(s, n) && n <= static_cast<uint64_t>(INT64_MAX),
                "{}: tensor '{}': shape entry {} is not a non-negative 64-bit integer", what, name,
                s.kind == JsonValue::Kind::Number ? s.text : s.kind_name());
    info.shape.push_back(static_cast<int64_t>(n));
    if (n != 0 && numel > std::numeric_limits<uint64_t>::max() / n) overflow = true;
    numel *= n;
  }
  const uint64_t elsize = static_cast<uint64_t>(element_size(info.dtype));
  // A zero in the shape makes the product 0 whatever overflowed before it.
  const bool has_zero = std::find(info.shape.begin(), info.shape.end(), 0) != info.shape.end();
  if (has_zero) numel = 0, overflow = false;
  EMBER_CHECK(!overflow && numel <= static_cast<uint64_t>(INT64_MAX) / elsize,
              "{}: tensor '{}': shape {} has too many elements (the byte size overflows)", what,
              name, fmt::join(info.shape, ","));

  const JsonValue* offs = v.find("data_offsets");
  EMBER_CHECK(offs && offs->kind == JsonValue::Kind::Array && offs->items.size() == 2 &&
                  json_to_uint64(offs->items[0], info.begin) &&
                  json_to_uint64(offs->items[1], info.end),
              "{}: tensor '{}': \"data_offsets\" must be [begin, end] of non-negative integers",
              what, name);
  EMBER_CHECK(info.begin <= info.end && info.end <= buffer_size,
              "{}: tensor '{}': data_offsets [{}, {}] are outside the data buffer ({} bytes)", what,
              name, info.begin, info.end, buffer_size);
  EMBER_CHECK(info.end - info.begin == numel * elsize,
              "{}: tensor '{}': shape [{}] of {} needs {} bytes, data_offsets [{}, {}] hold {}",
              what, name, fmt::join(info.shape, ", "), d->name, numel * elsize, info.begin,
              info.end, info.end - info.begin);
  return info;
}

}  // namespace

SafetensorsHeader parse_safetensors(const uint8_t* data, size_t size, const std::string& what) {
  EMBER_CHECK(size >= 8,
              "{}: {} bytes are too short for a safetensors file (8-byte header "
              "length first)",
              what, size);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | data[i];
  EMBER_CHECK(n <= kSafetensorsMaxHeader,
              "{}: header length {} is larger than the {} bytes allowed", what, n,
              kSafetensorsMaxHeader);
  EMBER_CHECK(n <= size - 8, "{}: header length {} runs past the end of the file ({} bytes)", what,
              n, size);
  const std::string_view text(reinterpret_cast<const char*>(data + 8), static_cast<size_t>(n));
  EMBER_CHECK(!text.empty() && text[0] == '{', "{}: the header does not start with '{{'", what);
  const JsonValue root = parse_json(text, what + ": header");
  EMBER_CHECK(root.kind == JsonValue::Kind::Object, "{}: the header is a JSON {}, not an object",
              what, root.kind_name());

  SafetensorsHeader h;
  h.data_start = 8 + n;
  const uint64_t buffer_size = size - h.data_start;
  for (const auto& [key, value] : root.members) {
    if (key == "__metadata__") {
      EMBER_CHECK(value.kind == JsonValue::Kind::Object,
                  "{}: \"__metadata__\" must be an object of strings, got {}", what,
                  value.kind_name());
      for (const auto& [mk, mv] : value.members) {
        EMBER_CHECK(mv.kind == JsonValue::Kind::String,
                    "{}: \"__metadata__\" entry '{}' is a {}, not a string", what, mk,
                    mv.kind_name());
        h.metadata.emplace(mk, mv.text);
      }
      continue;
    }
    h.tensors.push_back(safetensors_tensor_info(key, value, buffer_size, what));
  }

  // Sorted by range, the tensors must tile the buffer exactly: each starts where the previous
  // ended (an earlier start overlaps, a later one leaves a gap) and the last ends at the file's
  // end.
  std::vector<size_t> order(h.tensors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& x = h.tensors[a];
    const auto& y = h.tensors[b];
    return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
  });
  uint64_t covered = 0;
  const SafetensorsTensorInfo* prev = nullptr;
  for (size_t i : order) {
    const SafetensorsTensorInfo& t = h.tensors[i];
    EMBER_CHECK(t.begin >= covered, "{}: tensor '{}' (bytes [{}, {}]) overlaps tensor '{}'", what,
                t.name, t.begin, t.end, prev ? prev->name : "");
    EMBER_CHECK(t.begin == covered,
                "{}: {} bytes at [{}, {}] of the data buffer belong to no tensor (before '{}')",
                what, t.begin - covered, covered, t.begin, t.name);
    covered = t.end;
    prev = &t;
  }
  EMBER_CHECK(covered == buffer_size,
              "{}: the tensors cover {} bytes of the {}-byte data buffer (the rest belongs to no "
              "tensor)",
              what, covered, buffer_size);
  return h;
}

std::vector<std::pair<std::string, Tensor>> safetensors_tensors(
    const SafetensorsHeader& header, const uint8_t* data, const std::shared_ptr<void>& keepalive,
    std::optional<Device> device, const std::string& what) {
  std::vector<std::pair<std::string, Tensor>> out;
  out.reserve(header.tensors.size());
  for (const SafetensorsTensorInfo& info : header.tensors) {
    const uint8_t* bytes = data + header.data_start + info.begin;
    const size_t nbytes = static_cast<size_t>(info.end - info.begin);
    if (info.dtype == kBool) {
      const void* bad = std::find_if(bytes, bytes + nbytes, [](uint8_t b) { return b > 1; });
      EMBER_CHECK(bad == bytes + nbytes,
                  "{}: tensor '{}' (BOOL) holds byte {} at element {}: a bool must be 0 or 1", what,
                  info.name, *static_cast<const uint8_t*>(bad),
                  static_cast<const uint8_t*>(bad) - bytes);
    }
    const TensorOptions options = TensorOptions().dtype(info.dtype);
    const size_t elsize = static_cast<size_t>(element_size(info.dtype));
    Tensor t;
    if (keepalive && nbytes > 0 && reinterpret_cast<uintptr_t>(bytes) % elsize == 0) {
      // The mapping is copy-on-write: the tensor may be written to, the file never changes.
      t = from_blob(
          const_cast<uint8_t*>(bytes), info.shape,
          [keep = keepalive](void*) mutable { keep.reset(); }, options);
    } else {
      t = empty(info.shape, options);
      if (nbytes > 0) std::memcpy(t.data_ptr(), bytes, nbytes);
    }
    if (device && *device != t.device()) t = t.to(*device);
    out.emplace_back(info.name, std::move(t));
  }
  return out;
}

}  // namespace ember::serialize::detail
