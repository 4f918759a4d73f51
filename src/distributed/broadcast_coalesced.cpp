#include "src/distributed/broadcast_coalesced.h"

#include <map>
#include <string>
#include <utility>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/shape.h"

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

  std::vector<Tensor> flats;
  std::vector<WorkPtr> works;
  for (const Bucket& bucket : buckets) {
    std::vector<Tensor> pieces;
    for (const Tensor& t : bucket.members) pieces.push_back(t.reshape({-1}));
    // A lone tensor travels as itself (the group stages a non-contiguous one).
    Tensor flat = pieces.size() == 1 ? bucket.members.front() : cat(pieces);
    works.push_back(group.broadcast(flat, root));
    flats.push_back(std::move(flat));
  }
  for (size_t i = 0; i < buckets.size(); ++i) {
    works[i]->wait();
    const auto& members = buckets[i].members;
    if (members.size() == 1 || group.rank() == root) continue;
    int64_t offset = 0;
    for (const Tensor& t : members) {
      t.copy_(flats[i].narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

}  // namespace distributed
}  // namespace ember
