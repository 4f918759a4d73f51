// See module_errors.h.
#include "src/nn/modules/module_errors.h"

#include <cstring>

namespace ember::nn::detail {

void rethrow_named(const char* module, const Error& error) {
  const char* what = error.what();
  const size_t n = std::strlen(module);
  if (std::strncmp(what, module, n) == 0 && what[n] == ':') throw;
  std::string msg = std::string(module) + ": " + what;
  // The most derived type first, so a caller catching IndexError still catches it.
  if (dynamic_cast<const IndexError*>(&error)) throw IndexError(msg);
  if (dynamic_cast<const TypeError*>(&error)) throw TypeError(msg);
  if (dynamic_cast<const ValueError*>(&error)) throw ValueError(msg);
  if (dynamic_cast<const NotImplementedError*>(&error)) throw NotImplementedError(msg);
  throw Error(msg);
}

}  // namespace ember::nn::detail
