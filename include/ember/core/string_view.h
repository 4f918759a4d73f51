// LibTorch's c10::string_view as std::string_view (LibTorch's own class has the same interface and
// converts to and from std::string_view), so `c10::string_view mode = "reduced"` builds against
// Ember. Ember's own signatures take std::string_view.
#pragma once

#include <string_view>

namespace ember {

using std::string_view;

}  // namespace ember
