// ember::load_state_dict / save_state_dict (include/ember/serialize/state_dict_file.h): pick the
// format, then hand over to the safetensors or the torch.save reader and writer.
#include "ember/serialize/state_dict_file.h"

#include <cstdio>
#include <cstring>
#include <memory>

#include "ember/serialize/safetensors.h"
#include "ember/serialize/torch_format.h"
#include "src/core/check.h"

namespace ember {

namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

OrderedDict<std::string, Tensor> load_state_dict(const std::string& path,
                                                 std::optional<Device> device) {
  unsigned char head[4] = {0, 0, 0, 0};
  size_t got = 0;
  {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    EMBER_CHECK(f != nullptr, "load_state_dict: cannot open '{}'", path);
    got = std::fread(head, 1, sizeof head, f.get());
  }
  if (got == 4 && std::memcmp(head, "PK\x03\x04", 4) == 0)
    return serialize::load_torch_state_dict(path, device);
  // A pickle's PROTO opcode: torch.save with _use_new_zipfile_serialization=False (before 1.6).
  EMBER_CHECK(!(got >= 2 && head[0] == 0x80 && head[1] <= 5),
              "load_state_dict: '{}' is in torch.save's legacy format (a bare pickle, written "
              "before PyTorch 1.6 or with _use_new_zipfile_serialization=False); load and save it "
              "again with a current PyTorch",
              path);
  return serialize::load_safetensors(path, device);
}

void save_state_dict(const OrderedDict<std::string, Tensor>& state_dict, const std::string& path) {
  if (ends_with(path, ".safetensors")) {
    serialize::save_safetensors(state_dict, path);
  } else if (ends_with(path, ".pt") || ends_with(path, ".pth") || ends_with(path, ".bin")) {
    serialize::save_torch_state_dict(state_dict, path);
  } else {
    EMBER_CHECK(false,
                "save_state_dict: cannot tell the format from the name '{}': use .safetensors, "
                ".pt, .pth or .bin",
                path);
  }
}

}  // namespace ember
