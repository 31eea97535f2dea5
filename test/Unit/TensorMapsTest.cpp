//===- TensorMapsTest.cpp - the TMA tensor maps of a launch ---------------===//
//
// The shapes the runtime asks cuTensorMapEncodeTiled for (lib/Runtime/
// TensorMaps.h): contiguous, paged and fp8 caches, empty tensors, and the
// error for strides TMA cannot take. No GPU needed.
//
//===----------------------------------------------------------------------===//

#include "lib/Runtime/TensorMaps.h"

#include "attnc/Artifact/KernelAbi.h"

#include <gtest/gtest.h>

#include <array>
#include <string>

using namespace attnc;
using attnc::rt::TensorMapShape;

namespace {
/// A decode launch: B = 3, Hq = 8, Hkv = 2, Sq = 1, Sk = 1000, D = 128,
/// dense [B, H, S, D] tensors at 16-byte aligned (never read) addresses.
struct Launch {
  alignas(16) unsigned char storage[64];
  KernelManifest m;
  attnrt_attention_args a{};
  Launch() {
    m.dtype = "bf16";
    m.blockQ = 16;
    m.blockK = 128;
    a.batch = 3;
    a.num_q_heads = 8;
    a.num_kv_heads = 2;
    a.seq_q = 1;
    a.seq_k = 1000;
    a.head_dim = a.value_head_dim = 128;
    a.q = a.k = a.v = storage;
    dense(a.q_strides, a.num_q_heads, a.seq_q);
    dense(a.k_strides, a.num_kv_heads, a.seq_k);
    dense(a.v_strides, a.num_kv_heads, a.seq_k);
  }
  void dense(int64_t *strides, int64_t heads, int64_t length) {
    strides[0] = heads * length * 128;
    strides[1] = length * 128;
    strides[2] = 128;
    strides[3] = 1;
  }
  /// K and V as 50 pages [50, 16, Hkv, D]: strides {page, head, row}.
  void pages() {
    m.pageSize = 16;
    a.num_pages = 50;
    for (int64_t *st : {a.k_strides, a.v_strides}) {
      st[0] = 16 * 2 * 128;
      st[1] = 128;
      st[2] = 2 * 128;
    }
  }
  std::vector<TensorMapShape> shapes() {
    std::vector<TensorMapShape> out;
    EXPECT_EQ(rt::tensorMapShapes(m, a, out), ATTNRT_OK) << attnrt_last_error();
    return out;
  }
};

void expectShape(const TensorMapShape &t, unsigned param, int dataType,
                 std::array<uint64_t, 4> dims, std::array<uint64_t, 3> strides,
                 std::array<unsigned, 4> box) {
  EXPECT_EQ(t.param, param) << t.name;
  EXPECT_EQ(t.dataType, dataType) << t.name;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(t.dims[i], dims[i]) << t.name << " dim " << i;
    EXPECT_EQ(t.box[i], box[i]) << t.name << " box " << i;
  }
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(t.strides[i], strides[i]) << t.name << " stride " << i;
}
} // namespace

TEST(TensorMapsTest, ContiguousBf16) {
  Launch l;
  std::vector<TensorMapShape> s = l.shapes();
  ASSERT_EQ(s.size(), 3u);
  // q: {D, Sq, Hq, B}; Sq = 1 takes the placeholder stride 16.
  expectShape(s[0], attnc::abi::QMap, 9, {128, 1, 8, 3}, {16, 256, 8 * 256},
              {64, 16, 1, 1});
  expectShape(s[1], attnc::abi::KMap, 9, {128, 1000, 2, 3},
              {256, 1000 * 256, 2 * 1000 * 256}, {64, 128, 1, 1});
  expectShape(s[2], attnc::abi::VMap, 9, {128, 1000, 2, 3},
              {256, 1000 * 256, 2 * 1000 * 256}, {64, 128, 1, 1});
  l.m.dtype = "f16";
  EXPECT_EQ(l.shapes()[1].dataType, 6);
}

TEST(TensorMapsTest, PagedCache) {
  // Pages [num_pages = 50, 16, Hkv, D]: strides {page, head, row}.
  Launch l;
  l.pages();
  std::vector<TensorMapShape> s = l.shapes();
  ASSERT_EQ(s.size(), 3u);
  // A box is a page: {D, page_size, Hkv, num_pages}, 16 rows.
  expectShape(s[1], attnc::abi::KMap, 9, {128, 16, 2, 50},
              {2 * 256, 256, 16 * 2 * 256}, {64, 16, 1, 1});
  // Pages larger than a key tile: a box is the tile's rows of its page.
  l.m.pageSize = 256;
  expectShape(l.shapes()[2], attnc::abi::VMap, 9, {128, 256, 2, 50},
              {2 * 256, 256, 16 * 2 * 256}, {64, 128, 1, 1});
}

TEST(TensorMapsTest, Fp8CacheIsBytes) {
  // fp8 codes: one byte an element, boxes of 128 codes; q stays bf16.
  Launch l;
  l.m.readsKvScales = true;
  std::vector<TensorMapShape> s = l.shapes();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].dataType, 9);
  EXPECT_EQ(s[0].box[0], 64u);
  expectShape(s[1], attnc::abi::KMap, 0, {128, 1000, 2, 3},
              {128, 1000 * 128, 2 * 1000 * 128}, {128, 128, 1, 1});
}

TEST(TensorMapsTest, PagedFp8Cache) {
  // fp8 pages on 64-key tiles: a box is a page of 16 rows of 128 codes.
  Launch l;
  l.m.readsKvScales = true;
  l.m.blockK = 64;
  l.pages();
  std::vector<TensorMapShape> s = l.shapes();
  ASSERT_EQ(s.size(), 3u);
  expectShape(s[1], attnc::abi::KMap, 0, {128, 16, 2, 50},
              {2 * 128, 128, 16 * 2 * 128}, {128, 16, 1, 1});
  expectShape(s[2], attnc::abi::VMap, 0, {128, 16, 2, 50},
              {2 * 128, 128, 16 * 2 * 128}, {128, 16, 1, 1});
  // Pages larger than the 64-key tile: boxes of the tile's 64 rows.
  l.m.pageSize = 256;
  EXPECT_EQ(l.shapes()[1].box[1], 64u);
}

TEST(TensorMapsTest, EmptyKeysHaveNoMap) {
  Launch l;
  l.a.seq_k = 0;
  std::vector<TensorMapShape> s = l.shapes();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].param, static_cast<unsigned>(attnc::abi::QMap));
}

TEST(TensorMapsTest, StridesTmaCannotTake) {
  // An fp8 cache whose rows are 8 codes apart: 8 bytes, not 16.
  Launch l;
  l.m.readsKvScales = true;
  l.a.k_strides[2] = 8;
  std::vector<TensorMapShape> out;
  EXPECT_EQ(rt::tensorMapShapes(l.m, l.a, out), ATTNRT_ERROR_INVALID_ARGUMENT);
  std::string error = attnrt_last_error();
  EXPECT_NE(error.find("expected k at a 16-byte aligned address with strides "
                       "that are multiples of 16 bytes for this artifact's "
                       "TMA kernel"),
            std::string::npos)
      << error;
  // A misaligned base address.
  Launch m;
  m.a.v = m.storage + 8;
  EXPECT_EQ(rt::tensorMapShapes(m.m, m.a, out), ATTNRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attnrt_last_error()).find("expected v at a 16-byte"),
            std::string::npos);
}
