// 18_split_rows: the other way to combine a row's blocks, measured against the copy unit's
// ticket by `18_split_rows --method cluster` (the chapter's table; docs/tuning.md). Not part
// of the copy unit: this file includes split_rows.cu for its building blocks and adds one
// kernel. A row's blocks form one thread-block cluster (compute capability 9.0): each block
// reduces its piece as in split_rows.cu, and block 0 of the cluster reads the others' states
// from their shared memory (distributed shared memory), with no scratch and no ticket. A
// cluster holds at most 8 blocks (16 where the GPU allows more), so rows get at most that.
#include "split_rows.cu"

#include <cooperative_groups.h>

namespace split_rows {

template <typename In, typename Op>
cudaError_t reduce_rows_in_clusters(const In* input, std::size_t rows, std::size_t cols,
                                    typename Op::Result* output, unsigned blocks_per_row, cudaStream_t stream);

namespace {

// Cluster c: row c (then it jumps by the number of clusters); its block r reduces piece r.
template <typename In, typename Op>
__global__ void __launch_bounds__(kBlock)
    rows_by_clusters(const In* __restrict__ input, std::size_t rows, std::size_t cols,
                     typename Op::Result* __restrict__ output) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  using R = Reducer<Op>;
  __shared__ StateOf<Op> block_state;  // read by block 0 of the cluster
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned parts = cluster.num_blocks(), part = cluster.block_rank();
  for (std::size_t row = blockIdx.x / parts; row < rows; row += gridDim.x / parts) {
    const StateOf<Op> state =
        block_reduce<Op>(lane_reduce_row<In, Op>(input + row * cols, cols, part, parts, threadIdx.x, kBlock));
    if (threadIdx.x == 0) block_state = state;
    cluster.sync();  // every block's state is written (and visible across the cluster)
    if (part == 0 && threadIdx.x == 0) {  // the states in a fixed order: block 0, 1, ...
      StateOf<Op> total = R::identity();
      for (unsigned p = 0; p < parts; ++p) total = R::combine(total, *cluster.map_shared_rank(&block_state, p));
      output[row] = R::result(total);
    }
    cluster.sync();  // block 0 is done reading before any block writes its next state, or exits
  }
#endif
}

}  // namespace

// Blocks per row: the plan's, at most the largest cluster this kernel may have on this GPU.
// cudaErrorNotSupported where the GPU (or the binary built for it) has no clusters.
template <typename In, typename Op>
cudaError_t reduce_rows_in_clusters(const In* input, std::size_t rows, std::size_t cols,
                                    typename Op::Result* output, unsigned blocks_per_row, cudaStream_t stream) {
  if (blocks_per_row == 0 || output == nullptr || (cols != 0 && input == nullptr) ||
      reinterpret_cast<std::uintptr_t>(input) % alignof(In) != 0) {
    return cudaErrorInvalidValue;
  }
  if (!std::is_same_v<Op, Sum> && !std::is_same_v<Op, Max> && cols > std::size_t(INT_MAX)) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  const auto kernel = rows_by_clusters<In, Op>;
  cudaFuncAttributes attributes{};
  cudaError_t status = cudaFuncGetAttributes(&attributes, kernel);
  if (status == cudaSuccess && attributes.binaryVersion < 90) return cudaErrorNotSupported;
  if (status == cudaSuccess) status = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cudaLaunchConfig_t config{};
  config.blockDim = dim3(kBlock);
  config.stream = stream;
  config.gridDim = dim3(16 * 16);  // for the query (no cluster attribute yet): any grid will do
  int largest = 0;
  if (status == cudaSuccess) status = cudaOccupancyMaxPotentialClusterSize(&largest, kernel, &config);
  if (status != cudaSuccess) return status;
  const unsigned parts = blocks_per_row < unsigned(largest) ? blocks_per_row : unsigned(largest < 1 ? 1 : largest);
  const std::size_t most_clusters = INT_MAX / parts, clusters = rows < most_clusters ? rows : most_clusters;
  config.gridDim = dim3(unsigned(clusters * parts));
  cluster.val.clusterDim.x = parts, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, input, rows, cols, output);
}

#define INSTANTIATE_CLUSTERS(In, Op)                                                                         \
  template cudaError_t reduce_rows_in_clusters<In, Op>(const In*, std::size_t, std::size_t, Op::Result*, \
                                                       unsigned, cudaStream_t);
#define INSTANTIATE_CLUSTER_OPS(In)                                                                        \
  INSTANTIATE_CLUSTERS(In, Sum) INSTANTIATE_CLUSTERS(In, Max) INSTANTIATE_CLUSTERS(In, ArgMax) \
  INSTANTIATE_CLUSTERS(In, MeanVar)
INSTANTIATE_CLUSTER_OPS(float)
INSTANTIATE_CLUSTER_OPS(__half)
INSTANTIATE_CLUSTER_OPS(__nv_bfloat16)

}  // namespace split_rows
