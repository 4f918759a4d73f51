#include "src/distributed/broadcast_coalesced.h"

#include <map>
#include <string>
#include <utility>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/utils/convert_parameters.h"

namespace ember {
namespace distributed {

void broadcast_coalesced(ProcessGroup& group, const std::vector<Tensor>& tensors, int root,
                         size_t bucket_bytes) {
  NoGradGuard no_grad;
  struct Bucket {
    std::vector<Tensor> members;
    size_t bytes = 0;
  };
  std::vector<Bucket> buckets;
  // The bucket still open for each (dtype, device): tensors join it in order until it is full.
  std::map<std::pair<ScalarType, std::string>, size_t> open;
  for (const Tensor& t : tensors) {
    if (t.numel() == 0) continue;
    const size_t bytes = static_cast<size_t>(t.numel()) * static_cast<size_t>(t.element_size());
    const auto key = std::make_pair(t.scalar_type(), t.device().str());
    auto it = open.find(key);
    if (it == open.end() || buckets[it->second].bytes + bytes > bucket_bytes) {
      buckets.emplace_back();
      it = open.insert_or_assign(key, buckets.size() - 1).first;
    }
    Bucket& bucket = buckets[it->second];
    bucket.members.push_back(t);
    bucket.bytes += bytes;
  }

  // At most two buckets in flight (as PyTorch's): the flat copies never hold more than two
  // buckets' worth, whatever the model's size. Every rank, the root too, writes the values
  // back the same way, so the tensors' version counters move alike on all of them.
  struct InFlight {
    const Bucket* bucket;
    Tensor flat;
    WorkPtr work;
  };
  std::vector<InFlight> in_flight;
  const auto finish_oldest = [&] {
    InFlight done = std::move(in_flight.front());
    in_flight.erase(in_flight.begin());
    done.work->wait();
    if (done.bucket->members.size() == 1) return;  // broadcast in place
    nn::utils::vector_to_parameters(done.flat, done.bucket->members);
  };
  for (const Bucket& bucket : buckets) {
    if (in_flight.size() == 2) finish_oldest();
    // A lone tensor travels as itself (staged if strided).
    Tensor flat = bucket.members.size() == 1 ? bucket.members.front()
                                             : nn::utils::parameters_to_vector(bucket.members);
    WorkPtr work = group.broadcast(flat, root);
    in_flight.push_back({&bucket, std::move(flat), std::move(work)});
  }
  while (!in_flight.empty()) finish_oldest();
}

}  // namespace distributed
}  // namespace ember
