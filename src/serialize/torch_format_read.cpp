#include <cstring>

#include "ember/serialize/pickle.h"
#include "ember/serialize/torch_format.h"
#include "src/core/check.h"
#include "src/core/checked_math.h"
#include "src/serialize/pickle_reader.h"
#include "src/serialize/torch_format_internal.h"
#include "src/serialize/zip_reader.h"

namespace ember::serialize::detail {

namespace {

// Mapped pages are used in place when the record's data is this aligned (torch.save aligns
// records to 64 bytes, and a vectorised kernel wants no less); otherwise the bytes are copied.
constexpr uintptr_t kTorchShareAlign = 64;

// The `<archive>` prefix: the folder of the first `<archive>/data.pkl` record.
std::string torch_archive_prefix(const ZipReader& zip) {
  for (const ZipRecord& r : zip.records()) {
    const size_t slash = r.name.find('/');
    if (slash != std::string::npos && r.name.compare(slash, std::string::npos, "/data.pkl") == 0)
      return r.name.substr(0, slash);
  }
  EMBER_FAIL(
      "load: '{}' has no '<archive>/data.pkl' record: not a file torch.save wrote (a TorchScript "
      "archive or the legacy pre-1.6 format are not supported)",
      zip.source());
}

struct TorchStorageKeepAlive {
  std::shared_ptr<MappedFile> file;
};

}  // namespace

IValue load_torch_zip(const uint8_t* data, size_t size, const std::string& source,
                      const std::shared_ptr<MappedFile>& file) {
  ZipReader zip(data, size, source);
  const std::string prefix = torch_archive_prefix(zip);
  if (const ZipRecord* bo = zip.find(prefix + "/byteorder")) {
    const char* p = reinterpret_cast<const char*>(zip.read(*bo));
    EMBER_CHECK(std::string(p, bo->size) == "little",
                "load: '{}' record '{}' says the byte order is '{}': only little-endian files "
                "are supported",
                source, bo->name, std::string(p, std::min<uint64_t>(bo->size, 16)));
  }
  const ZipRecord& pkl = *zip.find(prefix + "/data.pkl");
  const uint8_t* pkl_data = zip.read(pkl);

  PickleStorageLoader loader = [&](const PickleStorageRequest& req) {
    const std::string name = prefix + "/data/" + req.key;
    const ZipRecord* rec = zip.find(name);
    EMBER_CHECK(rec != nullptr, "load: '{}': storage record '{}' is missing", source, name);
    const int64_t itemsize = element_size(req.dtype);
    const auto nbytes = static_cast<uint64_t>(
        ember::detail::checked_mul(req.numel, itemsize, "load", "a storage's byte size"));
    EMBER_CHECK(rec->size >= nbytes,
                "load: '{}': storage record '{}' holds {} bytes, but its {} elements of {} need "
                "{} (a truncated or corrupt file)",
                source, name, rec->size, req.numel, req.dtype, nbytes);
    const uint8_t* bytes = zip.read(*rec);
    if (file != nullptr && nbytes > 0 &&
        reinterpret_cast<uintptr_t>(bytes) % kTorchShareAlign == 0) {
      // Share the mapped pages: the storage keeps the map alive through its deleter's context.
      DataPtr ptr;
      ptr.ptr = file->data() + (bytes - data);
      ptr.ctx = new TorchStorageKeepAlive{file};
      ptr.deleter = [](void*, void* ctx) { delete static_cast<TorchStorageKeepAlive*>(ctx); };
      return make_intrusive<StorageImpl>(static_cast<size_t>(nbytes), ptr, Device(kCPU));
    }
    intrusive_ptr<StorageImpl> s = make_storage(static_cast<size_t>(nbytes), Device(kCPU));
    if (nbytes > 0) std::memcpy(s->data(), bytes, nbytes);
    return s;
  };
  return unpickle(pkl_data, pkl.size, "'" + source + "' record '" + pkl.name + "'", loader);
}

}  // namespace ember::serialize::detail

namespace ember {

IValue pickle_load(const std::vector<char>& data) {
  return serialize::detail::load_torch_zip(reinterpret_cast<const uint8_t*>(data.data()),
                                           data.size(), "<memory>", nullptr);
}

}  // namespace ember

namespace ember::serialize {

namespace {

OrderedDict<std::string, Tensor> torch_state_dict_of(const IValue& root, const std::string& source,
                                                     std::optional<Device> device) {
  EMBER_CHECK(root.isGenericDict(),
              "load_torch_state_dict: '{}' holds a {}, not a state_dict (a dict of string -> "
              "tensor)",
              source, root.tagKind());
  OrderedDict<std::string, Tensor> out;
  for (const auto& e : root.toGenericDict()) {
    EMBER_CHECK(e.key().isString(),
                "load_torch_state_dict: '{}' has a {} key; a state_dict's keys are strings", source,
                e.key().tagKind());
    EMBER_CHECK(e.value().isTensor(),
                "load_torch_state_dict: '{}' entry '{}' is a {}, not a tensor", source,
                e.key().toStringRef(), e.value().tagKind());
    const Tensor& t = e.value().toTensor();
    out.insert(e.key().toStringRef(), device ? t.to(*device) : t);
  }
  return out;
}

}  // namespace

OrderedDict<std::string, Tensor> detail::torch_state_dict_from_zip(
    const uint8_t* data, size_t size, const std::string& source,
    const std::shared_ptr<MappedFile>& file, std::optional<Device> device) {
  return torch_state_dict_of(load_torch_zip(data, size, source, file), source, device);
}

OrderedDict<std::string, Tensor> load_torch_state_dict(const std::string& path,
                                                       std::optional<Device> device) {
  std::shared_ptr<detail::MappedFile> file = detail::MappedFile::open(path);
  return detail::torch_state_dict_from_zip(file->data(), file->size(), path, file, device);
}

OrderedDict<std::string, Tensor> load_torch_state_dict(const char* data, size_t size,
                                                       std::optional<Device> device,
                                                       const std::string& source) {
  return detail::torch_state_dict_from_zip(reinterpret_cast<const uint8_t*>(data), size, source,
                                           nullptr, device);
}

}  // namespace ember::serialize
