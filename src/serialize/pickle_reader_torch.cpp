// The PyTorch-specific half of the unpickler: the globals a state_dict may name, persistent ids
// of storages, and the tensors rebuilt over them. Nothing here calls anything a pickle names.
#include <memory>
#include <vector>

#include "ember/core/tensor_impl.h"
#include "src/core/check.h"
#include "src/core/checked_math.h"
#include "src/serialize/pickle_opcodes.h"
#include "src/serialize/pickle_unpickler.h"

namespace ember::serialize::detail {

PickleItem TorchUnpickler::resolve_global(const std::string& module, const std::string& name) {
  PickleItem g;
  g.kind = PickleItem::Kind::Global;
  g.name = module + "." + name;
  if (module == "collections" && name == "OrderedDict") {
    g.global = PickleGlobal::OrderedDict;
  } else if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
    g.global = PickleGlobal::RebuildTensorV2;
  } else if (module == "torch._utils" && name == "_rebuild_parameter") {
    g.global = PickleGlobal::RebuildParameter;
  } else if (module == "torch" && pickle_storage_dtype(name) != ScalarType::Undefined) {
    g.global = PickleGlobal::StorageClass;
    g.dtype = pickle_storage_dtype(name);
  } else {
    fail(
        fmt::format("global '{}' is not allowed: a state_dict only uses "
                    "collections.OrderedDict, torch._utils._rebuild_tensor_v2, "
                    "torch._utils._rebuild_parameter and torch.<Type>Storage",
                    pickle_quote(g.name)));
  }
  return g;
}

PickleItem TorchUnpickler::persistent_load(PickleItem pid) {
  const std::vector<PickleItem>* t =
      pid.kind == PickleItem::Kind::RawTuple ? pid.raw.get() : nullptr;
  auto is_string = [](const PickleItem& i) {
    return i.kind == PickleItem::Kind::Value && i.value.isString();
  };
  if (t == nullptr || t->size() != 5 || !is_string((*t)[0]) ||
      (*t)[0].value.toStringRef() != "storage" || (*t)[1].kind != PickleItem::Kind::Global ||
      (*t)[1].global != PickleGlobal::StorageClass || !is_string((*t)[2]) || !is_string((*t)[3]) ||
      (*t)[4].kind != PickleItem::Kind::Value || !(*t)[4].value.isInt())
    fail("the persistent id is not ('storage', torch.<Type>Storage, key, location, numel)");
  PickleStorageRequest req{(*t)[2].value.toStringRef(), (*t)[1].dtype, (*t)[4].value.toInt(),
                           (*t)[3].value.toStringRef()};
  if (req.numel < 0)
    fail(fmt::format("storage '{}' has {} elements", pickle_quote(req.key), req.numel));
  auto it = storages_.find(req.key);
  if (it == storages_.end()) {
    const auto nbytes = static_cast<size_t>(ember::detail::checked_mul(
        req.numel, element_size(req.dtype), "pickle: storage", "the byte size"));
    intrusive_ptr<StorageImpl> s = load_(req);
    EMBER_CHECK(s && s->nbytes() >= nbytes,
                "pickle: {}: storage '{}' holds {} bytes, fewer than its {} elements of {} "
                "need ({})",
                source_, pickle_quote(req.key), s ? s->nbytes() : 0, req.numel, req.dtype, nbytes);
    it = storages_.emplace(req.key, LoadedStorage{std::move(s), req.dtype, req.numel}).first;
  } else if (it->second.dtype != req.dtype || it->second.numel != req.numel) {
    fail(fmt::format("storage '{}' is named again as {} elements of {}, first as {} of {}",
                     pickle_quote(req.key), req.numel, req.dtype, it->second.numel,
                     it->second.dtype));
  }
  PickleItem out;
  out.kind = PickleItem::Kind::Storage;
  out.storage = it->second.storage;
  out.dtype = it->second.dtype;
  out.numel = it->second.numel;
  return out;
}

std::vector<int64_t> TorchUnpickler::int_tuple(const PickleItem& item, const char* what) {
  if (item.kind != PickleItem::Kind::Value || !item.value.isTuple())
    fail(fmt::format("the tensor's {} are not a tuple", what));
  const auto& el = item.value.toTuple()->elements();
  if (el.size() > static_cast<size_t>(kPickleMaxRank))
    fail(fmt::format("the tensor has {} {}, more than {}", el.size(), what, kPickleMaxRank));
  std::vector<int64_t> out;
  for (const IValue& v : el) {
    if (!v.isInt() || v.toInt() < 0)
      fail(fmt::format("the tensor's {} must be non-negative ints", what));
    out.push_back(v.toInt());
  }
  return out;
}

Tensor TorchUnpickler::rebuild_tensor(const std::vector<PickleItem>& a) {
  if (a.size() != 6 && a.size() != 7)
    fail(fmt::format("_rebuild_tensor_v2 takes 6 or 7 arguments, not {}", a.size()));
  if (a[0].kind != PickleItem::Kind::Storage)
    fail("_rebuild_tensor_v2's first argument is not a storage");
  const bool ok = a[1].kind == PickleItem::Kind::Value && a[1].value.isInt() &&
                  a[4].kind == PickleItem::Kind::Value && a[4].value.isBool() &&
                  a[5].kind == PickleItem::Kind::Value &&
                  (a[5].value.isGenericDict() || a[5].value.isNone()) &&
                  (a.size() == 6 || (a[6].kind == PickleItem::Kind::Value &&
                                     (a[6].value.isGenericDict() || a[6].value.isNone())));
  if (!ok)
    fail(
        "_rebuild_tensor_v2 expects (storage, offset: int, sizes: tuple, strides: tuple, "
        "requires_grad: bool, backward_hooks: dict[, metadata])");
  const int64_t offset = a[1].value.toInt();
  const std::vector<int64_t> sizes = int_tuple(a[2], "sizes");
  const std::vector<int64_t> strides = int_tuple(a[3], "strides");
  if (sizes.size() != strides.size())
    fail(fmt::format("the tensor has {} sizes but {} strides", sizes.size(), strides.size()));
  const int64_t extent = ember::detail::checked_extent(sizes, strides, "pickle: tensor");
  const int64_t numel = a[0].numel;
  if (offset < 0 || offset > numel || extent > numel - offset)
    fail(
        fmt::format("a tensor of sizes {} and strides {} at offset {} needs {} elements, but "
                    "its storage has {}",
                    IntArrayRef(sizes), IntArrayRef(strides), offset,
                    extent == 0 ? offset : offset + extent, numel));
  Tensor t(make_intrusive<TensorImpl>(a[0].storage, a[0].dtype, sizes, strides, offset));
  if (a[4].value.toBool()) set_requires_grad(t);
  return t;
}

void TorchUnpickler::set_requires_grad(const Tensor& t) {
  if (!is_floating_point(t.scalar_type()))
    fail(fmt::format("requires_grad is set on a {} tensor", t.scalar_type()));
  t.set_requires_grad(true);
}

void TorchUnpickler::reduce() {
  PickleItem args = pop();
  PickleItem fn = pop();
  if (fn.kind != PickleItem::Kind::Global)
    fail("REDUCE calls something that is not an allowed global");
  const bool value_args = args.kind == PickleItem::Kind::Value && args.value.isTuple();
  switch (fn.global) {
    case PickleGlobal::OrderedDict:
      if (!value_args || !args.value.toTuple()->elements().empty())
        fail(
            "collections.OrderedDict is called with arguments (only OrderedDict() is "
            "supported)");
      push(new_container(std::make_shared<GenericDict>(), 1));
      return;
    case PickleGlobal::RebuildTensorV2:
      if (args.kind != PickleItem::Kind::RawTuple)
        fail("_rebuild_tensor_v2 has no storage argument");
      push(IValue(rebuild_tensor(*args.raw)));
      return;
    case PickleGlobal::RebuildParameter: {
      const std::vector<IValue>* el = value_args ? &args.value.toTuple()->elements() : nullptr;
      if (el == nullptr || el->size() != 3 || !(*el)[0].isTensor() || !(*el)[1].isBool())
        fail("_rebuild_parameter expects (tensor, requires_grad: bool, backward_hooks)");
      const Tensor& t = (*el)[0].toTensor();
      if ((*el)[1].toBool()) set_requires_grad(t);
      push(IValue(t));
      return;
    }
    case PickleGlobal::StorageClass:
      break;
  }
  fail(fmt::format("REDUCE calls {}, which a state_dict never calls", fn.name));
}

void TorchUnpickler::build() {
  PickleItem state = pop();
  PickleItem& target = top();
  // torch.save sets an OrderedDict's attributes (its `_metadata`) this way; Ember keeps the
  // entries and drops the attributes.
  if (target.kind != PickleItem::Kind::Value || !target.value.isGenericDict() ||
      state.kind != PickleItem::Kind::Value ||
      !(state.value.isGenericDict() || state.value.isNone()))
    fail("BUILD is only supported as an OrderedDict's attribute dict");
}

}  // namespace ember::serialize::detail
