// libFuzzer target for the archive reader (InputArchive::load_from over bytes; tools/
// fuzz-parsers.sh archive). Any input must load or throw ember::Error; an archive that loads must
// survive save_to and load_from unchanged (same keys, kinds, values, tensor bits). The gtest
// tests/serialize/archive_fuzz_replay_test.cpp replays the seed corpus through this function.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "ember/core/error.h"
#include "ember/serialize/archive.h"

#ifndef EMBER_FUZZ_ARCHIVE_ENTRY
#define EMBER_FUZZ_ARCHIVE_ENTRY LLVMFuzzerTestOneInput
#endif

namespace {

void archive_fuzz_require(bool ok) {
  if (!ok) std::abort();
}

bool archive_fuzz_same_tensor(const ember::Tensor& a, const ember::Tensor& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined()) return true;
  if (a.scalar_type() != b.scalar_type() || !a.sizes().equals(b.sizes())) return false;
  const ember::Tensor ca = a.contiguous(), cb = b.contiguous();
  return ca.nbytes() == 0 || std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}

bool archive_fuzz_same_value(const ember::IValue& a, const ember::IValue& b) {
  if (std::strcmp(a.tagKind(), b.tagKind()) != 0) return false;
  if (a.isTensor()) return archive_fuzz_same_tensor(a.toTensor(), b.toTensor());
  if (a.isInt()) return a.toInt() == b.toInt();
  if (a.isBool()) return a.toBool() == b.toBool();
  if (a.isString()) return a.toStringRef() == b.toStringRef();
  if (a.isIntList()) return a.toIntVector() == b.toIntVector();
  if (a.isDouble()) {
    const double x = a.toDouble(), y = b.toDouble();
    return std::memcmp(&x, &y, sizeof x) == 0;  // bits: NaN payloads and -0.0 too
  }
  if (a.isDoubleList()) {
    const auto x = a.toDoubleVector(), y = b.toDoubleVector();
    return x.size() == y.size() &&
           (x.empty() || std::memcmp(x.data(), y.data(), x.size() * 8) == 0);
  }
  if (a.isTensorList()) {
    const auto &x = a.toTensorList(), &y = b.toTensorList();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!archive_fuzz_same_tensor(x[i], y[i])) return false;
    return true;
  }
  if (a.isGenericList() || a.isTuple()) {
    const auto& x = a.isTuple() ? a.toTuple()->elements() : a.toList()->vec();
    const auto& y = b.isTuple() ? b.toTuple()->elements() : b.toList()->vec();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!archive_fuzz_same_value(x[i], y[i])) return false;
    return true;
  }
  if (a.isGenericDict()) {
    const auto &x = a.toGenericDict(), &y = b.toGenericDict();
    if (x.size() != y.size()) return false;
    for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j)
      if (!archive_fuzz_same_value(i->key(), j->key()) ||
          !archive_fuzz_same_value(i->value(), j->value()))
        return false;
    return true;
  }
  return a.isNone() && b.isNone();
}

bool archive_fuzz_same_node(const ember::serialize::ArchiveNode& a,
                            const ember::serialize::ArchiveNode& b) {
  if (a.entries.size() != b.entries.size()) return false;
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const auto &x = a.entries[i], &y = b.entries[i];
    if (x.key != y.key || (x.nested == nullptr) != (y.nested == nullptr)) return false;
    if (x.nested) {
      if (!archive_fuzz_same_node(*x.nested, *y.nested)) return false;
    } else if (!archive_fuzz_same_value(x.value, y.value) ||
               (x.value.isTensor() && x.is_buffer_known && x.is_buffer != y.is_buffer)) {
      return false;
    }
  }
  return true;
}

// Copies a loaded tree into an OutputArchive (what a program saving it again would do).
void archive_fuzz_copy(const ember::serialize::ArchiveNode& from,
                       ember::serialize::OutputArchive& to) {
  for (const auto& e : from.entries) {
    if (e.nested) {
      ember::serialize::OutputArchive nested;
      archive_fuzz_copy(*e.nested, nested);
      to.write(e.key, nested);
    } else if (e.value.isTensor()) {
      to.write(e.key, e.value.toTensor(), e.is_buffer);
    } else {
      to.write(e.key, e.value);
    }
  }
}

}  // namespace

extern "C" int EMBER_FUZZ_ARCHIVE_ENTRY(const uint8_t* data, size_t size) {
  ember::serialize::InputArchive in;
  try {
    in.load_from(reinterpret_cast<const char*>(data), size);
  } catch (const ember::Error&) {
    return 0;  // refused cleanly
  }
  ember::serialize::OutputArchive out;
  archive_fuzz_copy(in.root(), out);
  std::ostringstream saved;
  out.save_to(saved);
  const std::string bytes = saved.str();
  ember::serialize::InputArchive again;
  again.load_from(bytes.data(), bytes.size());
  archive_fuzz_require(archive_fuzz_same_node(in.root(), again.root()));
  return 0;
}
