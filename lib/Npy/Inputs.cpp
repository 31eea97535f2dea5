//===- Inputs.cpp - the --inputs .npy files of a run ----------------------===//
//
// See Inputs.h. The messages are those attnc-run and attnrt-run print.
//
//===----------------------------------------------------------------------===//

#include "harness/Inputs.h"

#include <cmath>

using namespace attnc;

std::vector<std::string> attnc::splitComma(const std::string &s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos)
      end = s.size();
    if (end > start)
      parts.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::string attnc::shapeText(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// Checks the shape of an input read from `path`.
static bool checkShape(const NpyArray &array, const std::string &path,
                       const std::vector<int64_t> &shape, const char *name,
                       std::string &error) {
  if (array.shape == shape)
    return true;
  error = std::string("expected ") + name + " (" + path + ") of shape " +
          shapeText(shape) + ", got " + shapeText(array.shape);
  return false;
}

bool attnc::loadInputs(const std::vector<std::string> &paths,
                       const AttentionSpec &spec, const InputOperands &operands,
                       AttentionProblem &problem, std::string &error,
                       NpyArray *read, std::vector<int64_t> *documentLengths) {
  if (paths.size() < 3) {
    error = "expected q.npy,k.npy,v.npy";
    return false;
  }

  // q, k and v, each read (unless it was) and checked in turn.
  NpyArray qkv[3];
  const std::vector<int64_t> shapes[3] = {{spec.b, spec.hq, spec.sq, spec.d},
                                          {spec.b, spec.hkv, spec.sk, spec.d},
                                          {spec.b, spec.hkv, spec.sk, spec.dv}};
  const char *const names[3] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) {
    if (read)
      qkv[i] = std::move(read[i]);
    else if (!readNpy(paths[i], qkv[i], error))
      return false;
    if (!checkShape(qkv[i], paths[i], shapes[i], names[i], error))
      return false;
  }
  for (NpyArray &a : qkv)
    for (double &x : a.data)
      x = roundTo(x, spec.dtype);
  problem.q = std::move(qkv[0].data);
  problem.k = std::move(qkv[1].data);
  problem.v = std::move(qkv[2].data);

  // The optional operands, in kernel-parameter order. `take` reads the next
  // file into `extra`; false when the kernel does not read the operand, no
  // file is left, or one did not read (`failed`).
  size_t next = 3;
  bool failed = false;
  NpyArray extra;
  auto take = [&](bool reads) {
    if (!reads || failed || next >= paths.size())
      return false;
    failed = !readNpy(paths[next++], extra, error);
    return !failed;
  };
  if (take(operands.seqIds)) {
    if (extra.shape != std::vector<int64_t>{spec.b, spec.sk}) {
      error = "expected seq_ids .npy of shape [b, sk]";
      return false;
    }
    problem.seqIds.assign(extra.data.begin(), extra.data.end());
  }
  if (take(operands.cuSeqlens)) {
    if (extra.shape.size() != 1 || extra.shape[0] < 2 ||
        extra.data.front() != 0 || extra.data.back() != spec.sk) {
      error = "expected cu_seqlens .npy of rank 1 from 0 to sk";
      return false;
    }
    for (size_t i = 1; i < extra.data.size(); ++i) {
      if (extra.data[i] < extra.data[i - 1]) {
        error = "expected non-decreasing cu_seqlens";
        return false;
      }
    }
    problem.cuSeqlens.assign(extra.data.begin(), extra.data.end());
    if (documentLengths) {
      documentLengths->clear();
      for (size_t i = 1; i < extra.data.size(); ++i)
        documentLengths->push_back(
            static_cast<int64_t>(extra.data[i] - extra.data[i - 1]));
    }
  }
  if (take(operands.blockMask)) {
    int64_t nq = (spec.sq + spec.mask.blockQ - 1) / spec.mask.blockQ;
    int64_t nk = (spec.sk + spec.mask.blockK - 1) / spec.mask.blockK;
    if (extra.shape.size() != 4 || extra.shape[2] != nq ||
        extra.shape[3] != nk ||
        (extra.shape[0] != 1 && extra.shape[0] != spec.b) ||
        (extra.shape[1] != 1 && extra.shape[1] != spec.hq)) {
      error = "expected block_mask .npy of shape [1 or b, 1 or hq, "
              "ceil(sq/block_q), ceil(sk/block_k)]";
      return false;
    }
    if (operands.blockMaskBatch > 0 &&
        extra.shape[0] != operands.blockMaskBatch) {
      error = "the IR's block_mask has batch " +
              std::to_string(operands.blockMaskBatch);
      return false;
    }
    if (operands.blockMaskHeads > 0 &&
        extra.shape[1] != operands.blockMaskHeads) {
      error = "the IR's block_mask has head count " +
              std::to_string(operands.blockMaskHeads);
      return false;
    }
    problem.blockMaskB = extra.shape[0];
    problem.blockMaskH = extra.shape[1];
    problem.blockMask.clear();
    for (double x : extra.data)
      problem.blockMask.push_back(x != 0);
  }
  if (take(operands.alibiSlopes)) {
    if (!checkShape(extra, paths[next - 1], {spec.hq}, "alibi_slopes", error))
      return false;
    problem.alibiSlopes = extra.data;
  }
  if (take(operands.kvLens)) {
    if (!checkShape(extra, paths[next - 1], {spec.b}, "kv_lens", error))
      return false;
    problem.kvLens.clear();
    for (double x : extra.data) {
      if (x < 0 || x > static_cast<double>(spec.sk) || x != std::floor(x)) {
        error = "expected kv_lens values that are integers in [0, sk]";
        return false;
      }
      problem.kvLens.push_back(static_cast<int32_t>(x));
    }
  }
  if (failed)
    return false;
  if (next != paths.size()) {
    error = "unexpected extra --inputs file " + paths[next];
    return false;
  }
  return true;
}
