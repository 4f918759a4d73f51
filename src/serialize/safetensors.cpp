// The public safetensors functions (include/ember/serialize/safetensors.h) over the format code:
// files go through AtomicFileWriter and MappedFile, bytes through memory.
#include "ember/serialize/safetensors.h"

#include "src/core/check.h"
#include "src/serialize/file_io.h"
#include "src/serialize/safetensors_format.h"

namespace ember::serialize {
namespace {

std::vector<std::pair<std::string, Tensor>> safetensors_pairs(
    const OrderedDict<std::string, Tensor>& tensors) {
  std::vector<std::pair<std::string, Tensor>> out;
  out.reserve(tensors.size());
  for (const auto& item : tensors) out.emplace_back(item.key(), item.value());
  return out;
}

OrderedDict<std::string, Tensor> safetensors_dict(
    std::vector<std::pair<std::string, Tensor>> pairs) {
  OrderedDict<std::string, Tensor> out("Tensor name");
  out.reserve(pairs.size());
  for (auto& [name, t] : pairs) out.insert(std::move(name), std::move(t));
  return out;
}

const std::string kSafetensorsBytesName = "safetensors bytes";

}  // namespace

void save_safetensors(const OrderedDict<std::string, Tensor>& tensors, const std::string& path,
                      const std::map<std::string, std::string>& metadata) {
  detail::AtomicFileWriter file(path);
  detail::write_safetensors(
      safetensors_pairs(tensors), metadata, [&](const void* p, size_t n) { file.write(p, n); },
      "save_safetensors");
  file.commit();
}

std::vector<char> save_safetensors_to_bytes(const OrderedDict<std::string, Tensor>& tensors,
                                            const std::map<std::string, std::string>& metadata) {
  std::vector<char> out;
  detail::write_safetensors(
      safetensors_pairs(tensors), metadata,
      [&](const void* p, size_t n) {
        out.insert(out.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
      },
      "save_safetensors_to_bytes");
  return out;
}

OrderedDict<std::string, Tensor> load_safetensors(const std::string& path,
                                                  std::optional<Device> device) {
  std::shared_ptr<detail::MappedFile> file = detail::MappedFile::open(path);
  const std::string what = "load_safetensors('" + path + "')";
  const detail::SafetensorsHeader header =
      detail::parse_safetensors(file->data(), file->size(), what);
  return safetensors_dict(detail::safetensors_tensors(header, file->data(), file, device, what));
}

OrderedDict<std::string, Tensor> load_safetensors_from_bytes(const void* data, size_t size,
                                                             std::optional<Device> device) {
  EMBER_CHECK(data != nullptr || size == 0, "load_safetensors_from_bytes: null data of {} bytes",
              size);
  const auto* bytes = static_cast<const uint8_t*>(data);
  const detail::SafetensorsHeader header =
      detail::parse_safetensors(bytes, size, kSafetensorsBytesName);
  return safetensors_dict(
      detail::safetensors_tensors(header, bytes, nullptr, device, kSafetensorsBytesName));
}

std::map<std::string, std::string> load_safetensors_metadata(const std::string& path) {
  std::shared_ptr<detail::MappedFile> file = detail::MappedFile::open(path);
  return detail::parse_safetensors(file->data(), file->size(),
                                   "load_safetensors_metadata('" + path + "')")
      .metadata;
}

std::map<std::string, std::string> load_safetensors_metadata_from_bytes(const void* data,
                                                                        size_t size) {
  EMBER_CHECK(data != nullptr || size == 0,
              "load_safetensors_metadata_from_bytes: null data of {} bytes", size);
  return detail::parse_safetensors(static_cast<const uint8_t*>(data), size, kSafetensorsBytesName)
      .metadata;
}

}  // namespace ember::serialize
