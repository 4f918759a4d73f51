#include "ember/core/storage.h"

#include "ember/autograd/grad_mode.h"

#include "check.h"

namespace ember {

Allocator* cpu_allocator();

namespace {
Allocator* g_allocators[kNumDeviceTypes] = {nullptr, nullptr};
}

Allocator* get_allocator(DeviceType t) {
  Allocator* a = g_allocators[static_cast<int>(t)];
  if (EMBER_LIKELY(a != nullptr)) return a;
  if (t == kCPU) return g_allocators[0] = cpu_allocator();
  EMBER_FAIL(
      "allocate: CUDA is not available: no allocator for device type {}. Hint: this build of "
      "Ember has no CUDA support; use the CPU or build with EMBER_USE_CUDA=ON",
      t);
}

void set_allocator(DeviceType t, Allocator* a) { g_allocators[static_cast<int>(t)] = a; }

intrusive_ptr<StorageImpl> make_storage(size_t nbytes, Device device) {
  DataPtr p = get_allocator(device.type())->allocate(nbytes);
  auto storage = make_intrusive<StorageImpl>(nbytes, p, device);
  if (EMBER_UNLIKELY(InferenceMode::is_enabled())) storage->set_inference(true);
  return storage;
}

}  // namespace ember
