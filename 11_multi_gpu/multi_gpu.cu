// 11_multi_gpu: shards over k GPUs, 09's reduce on each, then an all-reduce of the k totals.
//
// What changes since 09: nothing inside a GPU: each runs 09's copy unit as it is, on its shard and its own stream.
// What is new is the step between GPUs: ncclAllGather gives every GPU every GPU's total, and one thread per GPU
// combines them with 09's operator in rank order (not ncclAllReduce: its ncclMax and ncclMin use fmaxf and fminf,
// which drop a NaN). So every GPU computes the same bits, on every run.
//
// Build and run:  cmake --build --preset release --target 11_multi_gpu
//                 build/release/bin/11_multi_gpu --gpus 2 --n 2^30 --type float
#include "multi_gpu.cuh"

namespace multi_gpu {

Shard shard_of(std::size_t n, int parts, int index) {
  const std::size_t base = n / parts, extra = n % parts, i = index;  // the first `extra` shards get one more
  return Shard{i * base + (i < extra ? i : extra), base + (i < extra ? 1 : 0)};
}

std::string Status::message() const {
  if (cuda != cudaSuccess) return std::string("CUDA error ") + cudaGetErrorName(cuda) + ": " + cudaGetErrorString(cuda);
  return nccl != ncclSuccess ? std::string("NCCL error: ") + ncclGetErrorString(nccl) : std::string();
}

namespace {

// Every call leaves the caller's current device as it found it: OnDevice switches, then switches back.
struct OnDevice {
  int saved = -1;
  cudaError_t error = cudaGetDevice(&saved);
  ~OnDevice() { if (saved >= 0) cudaSetDevice(saved); }
  cudaError_t set(int device) const { return error != cudaSuccess ? error : cudaSetDevice(device); }
};

// ncclInProgress is not an error: a non-blocking communicator returns it while it is still enqueuing.
ncclResult_t nccl_ok(ncclResult_t result) { return result == ncclInProgress ? ncclSuccess : result; }

}  // namespace

template <typename T>
cudaError_t prepare(int device, int ranks, std::size_t count, Part<T>* part, int block, int grid) {
  OnDevice on;
  part->device = device;
  part->ranks = ranks;
  cudaError_t e = on.set(device);
  if (e == cudaSuccess && ranks < 1) e = cudaErrorInvalidValue;
  if (e == cudaSuccess && !block && !grid) e = single_pass::default_shape(count, &block, &grid);
  if (e == cudaSuccess && !block) block = single_pass::kDefaultBlock;
  if (e == cudaSuccess && !grid) e = single_pass::default_grid(count, block, &grid);
  part->block = block;
  part->grid = grid;
  const std::size_t bytes = part->scratch_bytes = single_pass::scratch_bytes(count, block, grid);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&part->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaMalloc(&part->scratch, bytes);
  if (e == cudaSuccess) e = cudaMalloc(&part->totals, ranks * sizeof(T));
  if (e == cudaSuccess) e = cudaMalloc(&part->total, sizeof(T));
  if (e == cudaSuccess) e = cudaMemsetAsync(part->scratch, 0, bytes, part->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(part->stream);
  return e;
}

template <typename T>
cudaError_t read_total(const Part<T>& part, T* value) {
  OnDevice on;
  cudaError_t e = on.set(part.device);
  if (e == cudaSuccess) e = cudaMemcpyAsync(value, part.total, sizeof(T), cudaMemcpyDeviceToHost, part.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(part.stream);
  return e;
}

template <typename T>
cudaError_t release(Part<T>* part) {
  OnDevice on;
  cudaError_t e = on.set(part->device);
  if (e == cudaSuccess) {  // free all of it, and return the first error
    const cudaError_t each[] = {part->stream ? cudaStreamDestroy(part->stream) : cudaSuccess, cudaFree(part->scratch),
                                cudaFree(part->totals), cudaFree(part->total)};
    for (cudaError_t one : each) e = e == cudaSuccess ? one : e;
  }
  *part = Part<T>();
  return e;
}

// [snippet:allreduce]
template <typename T, typename Op>
Status gather_all(const T* const* shards, const std::size_t* counts, const Part<T>* parts, const ncclComm_t* comms,
                  int k) {
  OnDevice on;
  Status s{on.error, nccl_ok(ncclGroupStart())};
  for (int d = 0; d < k && s.ok(); ++d) {
    const Part<T>& part = parts[d];
    int ranks = 0;  // part.totals has room for part.ranks totals: refuse a communicator of another size
    s.nccl = nccl_ok(ncclCommCount(comms[d], &ranks));
    if (s.ok() && ranks != part.ranks) s.nccl = ncclInvalidArgument;
    if (s.ok()) s.cuda = on.set(part.device);
    if (s.ok()) {  // 09, unchanged: the shard's total into part.total
      s.cuda = single_pass::reduce<T, Op>(shards[d], counts[d], part.total, part.scratch, part.scratch_bytes,
                                          part.block, part.grid, part.stream);
    }
    if (s.ok()) {  // every rank's total (sizeof(T) bytes) into part.totals[rank], on every GPU
      s.nccl = nccl_ok(ncclAllGather(part.total, part.totals, sizeof(T), ncclUint8, comms[d], part.stream));
    }
  }
  const ncclResult_t ended = nccl_ok(ncclGroupEnd());  // always close the group
  if (s.ok()) s.nccl = ended;
  return s;
}

// Rank r's total is totals[r] on every GPU: combined in rank order, every GPU computes the same bits, and a
// NaN in any total reaches the result (ncclMax and ncclMin would return the other operand).
template <typename T, typename Op>
__global__ void combine_totals(const T* totals, int ranks, T* total) {
  T value = totals[0];
  for (int r = 1; r < ranks; ++r) value = Op()(value, totals[r]);
  *total = value;
}

template <typename T, typename Op>
cudaError_t combine_all(const Part<T>* parts, int k) {
  OnDevice on;
  cudaError_t e = on.error;
  for (int d = 0; d < k && e == cudaSuccess; ++d) {
    e = on.set(parts[d].device);
    if (e == cudaSuccess) combine_totals<T, Op><<<1, 1, 0, parts[d].stream>>>(parts[d].totals, parts[d].ranks,
                                                                              parts[d].total);
    if (e == cudaSuccess) e = cudaGetLastError();
  }
  return e;
}

template <typename T, typename Op>
Status reduce_all(const T* const* shards, const std::size_t* counts, const Part<T>* parts, const ncclComm_t* comms,
                  int k) {
  Status s = gather_all<T, Op>(shards, counts, parts, comms, k);
  if (s.ok()) s.cuda = combine_all<T, Op>(parts, k);
  return s;
}
// [/snippet:allreduce]

}  // namespace multi_gpu

// Every function for element type T and 09's three operators (09's SINGLE_PASS_INSTANTIATE(T) too).
#define MULTI_GPU_INSTANTIATE_OP(T, Op)                                                                          \
  template Status gather_all<T, Op>(const T* const*, const std::size_t*, const Part<T>*, const ncclComm_t*, int); \
  template cudaError_t combine_all<T, Op>(const Part<T>*, int);                                                  \
  template Status reduce_all<T, Op>(const T* const*, const std::size_t*, const Part<T>*, const ncclComm_t*, int);
#define MULTI_GPU_INSTANTIATE(T)                                                                                 \
  namespace multi_gpu {                                                                                          \
  MULTI_GPU_INSTANTIATE_OP(T, single_pass::Sum) MULTI_GPU_INSTANTIATE_OP(T, single_pass::Max)                    \
  MULTI_GPU_INSTANTIATE_OP(T, single_pass::Min)                                                                  \
  template cudaError_t prepare<T>(int, int, std::size_t, Part<T>*, int, int);                                    \
  template cudaError_t read_total<T>(const Part<T>&, T*);                                                        \
  template cudaError_t release<T>(Part<T>*);                                                                     \
  }
MULTI_GPU_INSTANTIATE(int)
MULTI_GPU_INSTANTIATE(float)
MULTI_GPU_INSTANTIATE(double)
