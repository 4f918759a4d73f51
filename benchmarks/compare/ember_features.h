// Which optional Ember features the library being benchmarked has, found at compile time so the
// compare programs build against any stage of Ember and print `NA ...` for what is missing rather
// than failing to build. Only the public API is touched.
//
// The trick for a class that may not exist yet: qualified lookup of `ember::NoGradGuard` finds
// Ember's own class when it is declared in namespace ember (directly or by a using-declaration),
// and only otherwise looks into the namespace we nominate below, whose stand-ins carry a marker
// type.
#pragma once

#include <ember/ember.h>

#include <type_traits>
#include <utility>

namespace ember_bench_missing {
struct NoGradGuard {
  using ember_bench_missing_tag = void;
};
struct InferenceMode {
  using ember_bench_missing_tag = void;
};
}  // namespace ember_bench_missing

namespace ember {
using namespace ::ember_bench_missing;  // consulted only for names Ember does not declare
}  // namespace ember

namespace ember_bench {

template <class T, class = void>
struct is_present : std::true_type {};
template <class T>
struct is_present<T, std::void_t<typename T::ember_bench_missing_tag>> : std::false_type {};

/// Tensor::backward(), grad() and mutable_grad() as in LibTorch.
template <class T, class = void>
struct has_autograd : std::false_type {};
template <class T>
struct has_autograd<T, std::void_t<decltype(std::declval<const T&>().backward()),
                                   decltype(std::declval<const T&>().grad()),
                                   decltype(std::declval<const T&>().mutable_grad().reset())>>
    : std::true_type {};

constexpr bool kHasNoGradGuard = is_present<ember::NoGradGuard>::value;
constexpr bool kHasInferenceMode = is_present<ember::InferenceMode>::value;
constexpr bool kHasAutograd = has_autograd<ember::Tensor>::value;

/// Runs `fn` under guard G when Ember has G; otherwise plainly (Ember without autograd records
/// nothing, which is what a no-grad guard would give).
template <class G, class Fn>
void maybe_guarded(Fn&& fn) {
  if constexpr (is_present<G>::value) {
    G guard;
    fn();
  } else {
    fn();
  }
}

}  // namespace ember_bench
