// 17 on several GPUs (reproducible_on_gpus.cuh): 17's reduce_state per shard, the States
// all-gathered through NCCL, round_states once on every GPU.
#include "reproducible_on_gpus.cuh"

namespace reproducible_on_gpus {
namespace {

// Switches to another GPU, then back to the caller's when it goes out of scope.
struct OnDevice {
  int saved = -1;
  cudaError_t error = cudaGetDevice(&saved);
  ~OnDevice() {
    if (saved >= 0) cudaSetDevice(saved);
  }
  cudaError_t set(int device) const { return error != cudaSuccess ? error : cudaSetDevice(device); }
};

ncclResult_t nccl_ok(ncclResult_t result) { return result == ncclInProgress ? ncclSuccess : result; }

}  // namespace

cudaError_t prepare(int device, int ranks, std::size_t count, Part* part, int block, int grid) {
  OnDevice on;
  part->device = device;
  part->ranks = ranks;
  cudaError_t e = on.set(device);
  if (e == cudaSuccess && ranks < 1) e = cudaErrorInvalidValue;
  if (e == cudaSuccess && !block && !grid) e = reproducible_sum::default_shape(count, &block, &grid);
  if (e == cudaSuccess && !block) block = reproducible_sum::kDefaultBlock;
  if (e == cudaSuccess && !grid) e = reproducible_sum::default_grid(count, block, &grid);
  part->block = block;
  part->grid = grid;
  const std::size_t bytes = part->scratch_bytes = reproducible_sum::scratch_bytes(count, block, grid);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&part->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaMalloc(&part->scratch, bytes);
  if (e == cudaSuccess) e = cudaMalloc(&part->states, ranks * sizeof(reproducible_sum::State));
  if (e == cudaSuccess) e = cudaMalloc(&part->total, sizeof(float));
  if (e == cudaSuccess) e = cudaMemsetAsync(part->scratch, 0, bytes, part->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(part->stream);
  return e;
}

cudaError_t read_total(const Part& part, float* value) {
  OnDevice on;
  cudaError_t e = on.set(part.device);
  if (e == cudaSuccess) e = cudaMemcpyAsync(value, part.total, sizeof(float), cudaMemcpyDeviceToHost, part.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(part.stream);
  return e;
}

cudaError_t release(Part* part) {
  OnDevice on;
  cudaError_t e = on.set(part->device);
  if (e == cudaSuccess) {  // free all of it, and return the first error
    const cudaError_t each[] = {part->stream ? cudaStreamDestroy(part->stream) : cudaSuccess, cudaFree(part->scratch),
                                cudaFree(part->states), cudaFree(part->total)};
    for (cudaError_t one : each) e = e == cudaSuccess ? one : e;
  }
  *part = Part();
  return e;
}

multi_gpu::Status gather_all(const float* const* shards, const std::size_t* counts, const Part* parts,
                             const ncclComm_t* comms, int k) {
  OnDevice on;
  multi_gpu::Status s{on.error, nccl_ok(ncclGroupStart())};
  for (int d = 0; d < k && s.ok(); ++d) {
    const Part& part = parts[d];
    int ranks = 0, rank = 0;  // part.states has room for part.ranks States: refuse a communicator of another size
    s.nccl = nccl_ok(ncclCommCount(comms[d], &ranks));
    if (s.ok()) s.nccl = nccl_ok(ncclCommUserRank(comms[d], &rank));
    if (s.ok() && ranks != part.ranks) s.nccl = ncclInvalidArgument;
    if (s.ok()) s.cuda = on.set(part.device);
    if (s.ok()) {  // 17, unchanged: the shard's exact State into this rank's slot
      s.cuda = reproducible_sum::reduce_state(shards[d], counts[d], part.states + rank, part.scratch,
                                              part.scratch_bytes, part.block, part.grid, part.stream);
    }
    if (s.ok()) {  // in place: every rank's State into its slot, on every GPU
      s.nccl = nccl_ok(ncclAllGather(part.states + rank, part.states, sizeof(reproducible_sum::State), ncclUint8,
                                     comms[d], part.stream));
    }
  }
  const ncclResult_t ended = nccl_ok(ncclGroupEnd());  // always close the group
  if (s.ok()) s.nccl = ended;
  return s;
}

cudaError_t round_all(const Part* parts, int k) {
  OnDevice on;
  cudaError_t e = on.error;
  for (int d = 0; d < k && e == cudaSuccess; ++d) {
    e = on.set(parts[d].device);
    if (e == cudaSuccess) e = reproducible_sum::round_states(parts[d].states, parts[d].ranks, parts[d].total,
                                                             parts[d].stream);
  }
  return e;
}

multi_gpu::Status sum_all(const float* const* shards, const std::size_t* counts, const Part* parts,
                          const ncclComm_t* comms, int k) {
  multi_gpu::Status s = gather_all(shards, counts, parts, comms, k);
  if (s.ok()) s.cuda = round_all(parts, k);
  return s;
}

}  // namespace reproducible_on_gpus
