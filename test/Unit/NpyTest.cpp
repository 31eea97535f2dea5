//===- NpyTest.cpp - .npy reading and writing -----------------------------===//
//
// Write-then-read round trips, hand-made files of every supported dtype and
// both header versions, and the error messages.
//
//===----------------------------------------------------------------------===//

#include "harness/Npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <unistd.h>

using namespace attnc;

namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "attnc-npy-" + std::to_string(::getpid()) +
         "-" + name;
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
}

std::string readBytes(const std::string &path) {
  std::string bytes;
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return bytes;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    bytes.append(buf, n);
  std::fclose(f);
  return bytes;
}

/// A .npy file: version 1.0 (or 2.0), the dict padded to a 64-byte boundary
/// as numpy pads it, then `data`.
std::string npyFile(const std::string &dict, const std::string &data,
                    int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  size_t len = header.size();
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (major != 1) {
    out += static_cast<char>((len >> 16) & 0xff);
    out += static_cast<char>((len >> 24) & 0xff);
  }
  return out + header + data;
}

template <typename T> std::string le(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    // Store little-endian whatever the host is.
    uint16_t one = 1;
    bool little = *reinterpret_cast<unsigned char *>(&one) == 1;
    for (size_t i = 0; i < sizeof(T); ++i)
      out += static_cast<char>(b[little ? i : sizeof(T) - 1 - i]);
  }
  return out;
}

std::string readError(const std::string &path) {
  NpyArray a;
  std::string error;
  EXPECT_FALSE(readNpy(path, a, error)) << path;
  return error;
}

TEST(NpyTest, WriteThenRead) {
  std::string path = tempPath("roundtrip.npy");
  std::vector<double> data;
  for (int i = 0; i < 2 * 3 * 4; ++i)
    data.push_back(i * 0.25 - 3);
  data[5] = -std::numeric_limits<double>::infinity();
  data[6] = 1.0 / 3.0; // not exact in f32
  std::string error;
  ASSERT_TRUE(writeNpyF32(path, {2, 3, 4}, data, error)) << error;

  // The file is what numpy writes: v1.0, '<f4', data 64-byte aligned.
  std::string bytes = readBytes(path);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t headerLen = static_cast<unsigned char>(bytes[8]) |
                     (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + headerLen) % 64, 0u);
  EXPECT_EQ(bytes.size(), 10 + headerLen + 4 * data.size());
  std::string header = bytes.substr(10, headerLen);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, "
                         "'shape': (2, 3, 4), }",
                         0),
            0u)
      << header;
  EXPECT_EQ(header.back(), '\n');

  NpyArray a;
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  EXPECT_EQ(a.dtype, "<f4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3, 4}));
  ASSERT_EQ(a.data.size(), data.size());
  for (size_t i = 0; i < data.size(); ++i)
    EXPECT_EQ(a.data[i], static_cast<double>(static_cast<float>(data[i]))) << i;
  EXPECT_NE(a.data[6], data[6]); // written as float32
  std::remove(path.c_str());
}

TEST(NpyTest, WriteShapes) {
  std::string path = tempPath("shapes.npy");
  std::string error;
  NpyArray a;
  // 1-D: "(5,)".
  ASSERT_TRUE(writeNpyF32(path, {5}, {1, 2, 3, 4, 5}, error)) << error;
  EXPECT_NE(readBytes(path).find("'shape': (5,)"), std::string::npos);
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{5}));
  EXPECT_EQ(a.data, (std::vector<double>{1, 2, 3, 4, 5}));
  // 0-D: "()" holds one value.
  ASSERT_TRUE(writeNpyF32(path, {}, {7.5}, error)) << error;
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(a.data, (std::vector<double>{7.5}));
  // Empty arrays.
  ASSERT_TRUE(writeNpyF32(path, {0, 3}, {}, error)) << error;
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(a.data.empty());
  std::remove(path.c_str());
}

TEST(NpyTest, WriteErrors) {
  std::string error;
  EXPECT_FALSE(writeNpyF32(tempPath("bad.npy"), {2, 2}, {1, 2, 3}, error));
  EXPECT_NE(error.find("shape holds 4 elements but 3 values were given"),
            std::string::npos)
      << error;
  EXPECT_FALSE(writeNpyF32(tempPath("bad.npy"), {-1}, {}, error));
  EXPECT_NE(error.find("negative dimension -1"), std::string::npos) << error;
  EXPECT_FALSE(writeNpyF32("/nonexistent-dir/x.npy", {1}, {1}, error));
  EXPECT_NE(error.find("cannot open '/nonexistent-dir/x.npy' for writing"),
            std::string::npos)
      << error;
}

TEST(NpyTest, HandMadeInt32V1) {
  std::string path = tempPath("i4.npy");
  writeBytes(path,
             npyFile("{'descr': '<i4', 'fortran_order': False, "
                     "'shape': (2, 3), }",
                     le<int32_t>({1, -2, 3, 2147483647, -2147483647 - 1, 0})));
  NpyArray a;
  std::string error;
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  EXPECT_EQ(a.dtype, "<i4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.data,
            (std::vector<double>{1, -2, 3, 2147483647.0, -2147483648.0, 0}));
  std::remove(path.c_str());
}

TEST(NpyTest, EveryDtype) {
  std::string path = tempPath("dtypes.npy");
  struct Case {
    const char *descr;
    std::string data;
    std::vector<double> want;
  };
  Case cases[] = {
      {"<f4", le<float>({1.5f, -0.25f, 1e30f}), {1.5, -0.25, double(1e30f)}},
      {"<f8", le<double>({1.0 / 3, -1e300, 0}), {1.0 / 3, -1e300, 0}},
      {"<i4", le<int32_t>({-7, 0, 7}), {-7, 0, 7}},
      {"<i8",
       le<int64_t>({-(int64_t(1) << 40), 5, int64_t(1) << 52}),
       {-1099511627776.0, 5, 4503599627370496.0}},
      {"|u1", le<uint8_t>({0, 200, 255}), {0, 200, 255}},
      {"|i1", le<int8_t>({-128, -1, 127}), {-128, -1, 127}},
      {"|b1", le<uint8_t>({1, 0, 1}), {1, 0, 1}},
      {"<u1", le<uint8_t>({3, 4, 5}), {3, 4, 5}},
      {"<b1", le<uint8_t>({0, 0, 1}), {0, 0, 1}},
  };
  for (const Case &c : cases) {
    writeBytes(path, npyFile(std::string("{'descr': '") + c.descr +
                                 "', 'fortran_order': False, 'shape': (3,), }",
                             c.data));
    NpyArray a;
    std::string error;
    ASSERT_TRUE(readNpy(path, a, error)) << c.descr << ": " << error;
    EXPECT_EQ(a.dtype, c.descr);
    EXPECT_EQ(a.shape, (std::vector<int64_t>{3}));
    EXPECT_EQ(a.data, c.want) << c.descr;
  }
  std::remove(path.c_str());
}

TEST(NpyTest, Version2AndHeaderVariants) {
  std::string path = tempPath("v2.npy");
  NpyArray a;
  std::string error;
  writeBytes(path, npyFile("{'descr': '<f8', 'fortran_order': False, "
                           "'shape': (1, 2), }",
                           le<double>({2.5, -4}), 2));
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(a.data, (std::vector<double>{2.5, -4}));

  // Key order, double quotes, no trailing comma, extra spaces.
  writeBytes(path, npyFile("{ \"shape\" : ( 2 , ) ,'fortran_order':False,"
                           "'descr':'|u1'}",
                           le<uint8_t>({9, 8})));
  ASSERT_TRUE(readNpy(path, a, error)) << error;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(a.data, (std::vector<double>{9, 8}));
  std::remove(path.c_str());
}

TEST(NpyTest, ReadErrors) {
  std::string path = tempPath("err.npy");
  const std::string where = "'" + path + "': ";

  EXPECT_EQ(readError(tempPath("missing.npy"))
                .rfind("cannot open '" + tempPath("missing.npy") + "': ", 0),
            0u);

  writeBytes(path, "hello world, not numpy");
  EXPECT_EQ(readError(path), where + "not a .npy file (bad magic)");

  std::string v3 = npyFile("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (1,), }",
                           le<float>({1}), 2);
  v3[6] = 3;
  writeBytes(path, v3);
  EXPECT_EQ(readError(path),
            where + "unsupported .npy version 3.0 (only 1.0 and 2.0)");

  writeBytes(path, npyFile("{'descr': '>f4', 'fortran_order': False, "
                           "'shape': (1,), }",
                           le<float>({1})));
  EXPECT_EQ(readError(path),
            where + "unsupported dtype '>f4' (supported: <f4, <f8, <i4, <i8, "
                    "|u1, |i1, |b1)");
  writeBytes(path, npyFile("{'descr': '<f2', 'fortran_order': False, "
                           "'shape': (1,), }",
                           std::string(2, '\0')));
  EXPECT_NE(readError(path).find("unsupported dtype '<f2'"), std::string::npos);
  writeBytes(path, npyFile("{'descr': [('a', '<f4')], 'fortran_order': "
                           "False, 'shape': (1,), }",
                           le<float>({1})));
  EXPECT_NE(readError(path).find("structured arrays are not supported"),
            std::string::npos);

  writeBytes(path, npyFile("{'descr': '<f4', 'fortran_order': True, "
                           "'shape': (2, 2), }",
                           le<float>({1, 2, 3, 4})));
  EXPECT_EQ(readError(path),
            where + "Fortran-order arrays are not supported (save a "
                    "C-contiguous array)");

  writeBytes(path, npyFile("{'descr': '<i4', 'fortran_order': False, "
                           "'shape': (2, 3), }",
                           le<int32_t>({1, 2, 3, 4, 5})));
  EXPECT_EQ(readError(path), where + "truncated data: expected 24 bytes for 6 "
                                     "elements of <i4, found 20");

  writeBytes(path, npyFile("{'descr': '<i4', 'fortran_order': False, "
                           "'shape': (1,), }",
                           le<int32_t>({1, 2})));
  EXPECT_EQ(readError(path), where + "unexpected 4 bytes after the data");

  std::string truncated = npyFile("{'descr': '<i4', 'fortran_order': False, "
                                  "'shape': (1,), }",
                                  "");
  writeBytes(path, truncated.substr(0, 30));
  EXPECT_EQ(readError(path), where + "truncated header");

  writeBytes(path,
             npyFile("{'descr': '<i4', 'shape': (1,), }", le<int32_t>({1})));
  EXPECT_EQ(readError(path),
            where + "bad header: the header lacks 'descr', 'fortran_order' or "
                    "'shape'");
  writeBytes(path, npyFile("{'descr': '<i4', 'fortran_order': False, "
                           "'shape': (-1,), }",
                           ""));
  EXPECT_EQ(readError(path),
            where + "bad header: expected a tuple of non-negative integers "
                    "for 'shape'");
  writeBytes(path, npyFile("['descr']", ""));
  EXPECT_EQ(readError(path),
            where + "bad header: expected '{' at the start of the header");
  std::remove(path.c_str());
}

} // namespace
