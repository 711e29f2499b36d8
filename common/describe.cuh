// describe.cuh: turns a chapter's kernel struct (the contract in chapter.h) into a
// runtime Variant with one launcher per element type and operator. Include it from
// CUDA sources only: it names the device functors of ops.cuh.
#pragma once

#include "chapter.h"
#include "ops.cuh"

namespace reduction {

namespace detail {

template <typename K, typename T>
void launch_sum(T* data, std::size_t n, T* result, void* scratch, int block, int grid, cudaStream_t stream) {
  if constexpr (K::kHasOps) {
    K::template reduce<T, SumOp>(data, n, result, scratch, block, grid, stream);
  } else {
    K::template reduce<T>(data, n, result, scratch, block, grid, stream);
  }
}

template <typename K, typename T, typename OpT>
void launch_op(T* data, std::size_t n, T* result, void* scratch, int block, int grid, cudaStream_t stream) {
  K::template reduce<T, OpT>(data, n, result, scratch, block, grid, stream);
}

template <typename K, typename T>
std::array<Launcher<T>, 3> launchers() {
  std::array<Launcher<T>, 3> table{};
  table[static_cast<int>(Op::Sum)] = &launch_sum<K, T>;
  if constexpr (K::kHasOps) {
    table[static_cast<int>(Op::Max)] = &launch_op<K, T, MaxOp>;
    table[static_cast<int>(Op::Min)] = &launch_op<K, T, MinOp>;
  }
  return table;
}

}  // namespace detail

// Turns a chapter's kernel struct K into a Variant.
template <typename K>
Variant describe() {
  Variant v;
  v.chapter = K::kId;
  v.name = K::kVariant;
  v.summary = K::kSummary;
  v.in_place = K::kInPlace;
  v.has_ops = K::kHasOps;
  v.default_block = K::kDefaultBlock;
  v.check_shape = &K::check_shape;
  v.default_grid = &K::default_grid;
  v.scratch_bytes = &K::scratch_bytes;
  v.chain_length = &K::chain_length;
  v.int_launchers = detail::launchers<K, int>();
  v.float_launchers = detail::launchers<K, float>();
  v.double_launchers = detail::launchers<K, double>();
  return v;
}

template <typename... Ks>
Chapter make_chapter() {
  Chapter c{"", {describe<Ks>()...}};
  c.id = c.variants.front().chapter;
  return c;
}

}  // namespace reduction
