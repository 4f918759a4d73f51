// ska::flat_hash_map and ska::flat_hash_set, the hash tables LibTorch ships in c10/util (Malte
// Skarupke's open-addressing tables), as names of std::unordered_map and std::unordered_set.
//
// Programs use them through the interface the std containers share with them (find, emplace,
// operator[], erase, iteration in unspecified order), which is all the alias has to provide; the
// std tables are slower on lookups but bring no third-party code into Ember for a compat name.
// Ember's own code uses the std names.
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace ska {

template <class K, class V, class Hash = std::hash<K>, class Equal = std::equal_to<K>,
          class Allocator = std::allocator<std::pair<const K, V>>>
using flat_hash_map = std::unordered_map<K, V, Hash, Equal, Allocator>;

template <class T, class Hash = std::hash<T>, class Equal = std::equal_to<T>,
          class Allocator = std::allocator<T>>
using flat_hash_set = std::unordered_set<T, Hash, Equal, Allocator>;

}  // namespace ska
