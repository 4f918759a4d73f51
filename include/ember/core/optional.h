// LibTorch's c10::optional names, as the std ones (LibTorch 2.x does the same; 1.13's own class has
// std::optional's interface), so `c10::optional<int64_t> dim = c10::nullopt;` builds against Ember.
// Not covered: 1.13's optional<T&>, which std::optional does not allow.
#pragma once

#include <optional>

namespace ember {

using std::bad_optional_access;
using std::make_optional;
using std::nullopt;
using std::nullopt_t;
using std::optional;

}  // namespace ember
