#include <unordered_map>

#include "ember/core/tensor_impl.h"
#include "ember/serialize/pickle.h"
#include "ember/serialize/torch_format.h"
#include "src/core/check.h"
#include "src/serialize/pickle_writer.h"
#include "src/serialize/torch_format_internal.h"
#include "src/serialize/zip_writer.h"

namespace ember::serialize::detail {

namespace {

// What torch.save's reader checks: format version 3 (1.6 and later), little-endian data.
constexpr char kTorchVersionRecord[] = "3\n";
constexpr char kTorchByteOrder[] = "little";
// A fixed archive name, so the same tensors give the same bytes whatever the file is called.
constexpr char kTorchArchive[] = "archive";

struct TorchStorageOut {
  intrusive_ptr<StorageImpl> storage;
  ScalarType dtype;
  int64_t numel;
};

}  // namespace

void write_torch_zip(const IValue& value, bool ordered_dicts,
                     const std::function<void(const void*, size_t)>& sink, const char* op) {
  std::vector<TorchStorageOut> storages;
  std::unordered_map<const StorageImpl*, size_t> index;
  PickleTensorSink tensor_sink = [&](const Tensor& t) {
    const intrusive_ptr<StorageImpl>& s = t.impl()->storage();
    auto [it, fresh] = index.emplace(s.get(), storages.size());
    if (fresh) {
      const int64_t numel = static_cast<int64_t>(s->nbytes()) / t.element_size();
      storages.push_back(TorchStorageOut{s, t.scalar_type(), numel});
    }
    const TorchStorageOut& out = storages[it->second];
    // PyTorch types each storage: views of one buffer as different dtypes cannot be expressed.
    EMBER_CHECK(out.dtype == t.scalar_type(),
                "{}: two tensors share one storage as {} and as {}; PyTorch's format gives a "
                "storage one dtype (clone one of them)",
                op, out.dtype, t.scalar_type());
    return PickleStorageRef{std::to_string(it->second), out.numel};
  };
  const std::vector<char> pkl = pickle_value(value, ordered_dicts, tensor_sink, op);

  const std::string prefix = std::string(kTorchArchive) + "/";
  ZipWriter zip(sink);
  zip.add(prefix + "data.pkl", pkl.data(), pkl.size());
  zip.add(prefix + "byteorder", kTorchByteOrder, sizeof(kTorchByteOrder) - 1);
  for (size_t i = 0; i < storages.size(); ++i) {
    const TorchStorageOut& s = storages[i];
    const int64_t nbytes = s.numel * element_size(s.dtype);
    // The whole storage as bytes, brought to the host when it lives elsewhere.
    Tensor bytes(make_intrusive<TensorImpl>(s.storage, kByte, std::vector<int64_t>{nbytes}));
    if (!bytes.device().is_cpu()) bytes = bytes.to(kCPU);
    zip.add(prefix + "data/" + std::to_string(i), bytes.data_ptr(), static_cast<size_t>(nbytes));
  }
  zip.add(prefix + "version", kTorchVersionRecord, sizeof(kTorchVersionRecord) - 1);
  zip.finish();
}

}  // namespace ember::serialize::detail

namespace ember {

std::vector<char> pickle_save(const IValue& value) {
  std::vector<char> out;
  serialize::detail::write_torch_zip(
      value, /*ordered_dicts=*/false,
      [&](const void* p, size_t n) {
        out.insert(out.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
      },
      "pickle_save");
  return out;
}

}  // namespace ember

namespace ember::serialize {

void save_torch_state_dict(const OrderedDict<std::string, Tensor>& state_dict,
                           const std::string& path) {
  auto dict = std::make_shared<GenericDict>();
  for (const auto& item : state_dict) {
    EMBER_CHECK(item.value().defined(), "save_torch_state_dict: entry '{}' is an undefined tensor",
                item.key());
    dict->insert_or_assign(IValue(item.key()), IValue(item.value()));
  }
  detail::AtomicFileWriter file(path);
  detail::write_torch_zip(
      IValue(dict), /*ordered_dicts=*/true, [&](const void* p, size_t n) { file.write(p, n); },
      "save_torch_state_dict");
  file.commit();
}

}  // namespace ember::serialize
