// BENCHMARKS.md §9, data loading, Ember side: data_loading_torch.cpp unchanged, built against
// Ember's compat headers (<torch/torch.h> -> Ember), so both sides run the very same code.
//
// Build: g++ -O2 -std=c++17 data_loading_ember.cpp -I<repo>/include -I<repo>/include/ember/compat
//          -L<build> -lember -o data_loading_ember
#define BENCH_LIB "ember"
#include "data_loading_torch.cpp"
