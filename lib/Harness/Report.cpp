//===- Report.cpp - what an attention costs -------------------------------===//

#include "harness/Report.h"

#include <algorithm>
#include <cstdio>

using namespace attnc;
using attnc::mask::DocumentSource;
using attnc::mask::MaskKind;
using attnc::mask::TileClass;

bool attnc::lookupGpu(const std::string &name, GpuModel &gpu) {
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), ::tolower);
  // NVIDIA datasheets (SXM parts), dense.
  if (n == "h200") {
    gpu = {"H200", 989.4, 66.9, 4.8};
    return true;
  }
  if (n == "h100") {
    gpu = {"H100", 989.4, 66.9, 3.35};
    return true;
  }
  if (n == "a100") {
    gpu = {"A100", 312.0, 19.5, 2.039};
    return true;
  }
  return false;
}

AttentionReport attnc::computeReport(const AttentionSpec &spec,
                                     const AttentionProblem &p, int64_t bq,
                                     int64_t bk, const GpuModel &gpu) {
  AttentionReport r;
  r.gpu = gpu;
  const mask::MaskSpec &m = p.mask;
  r.elementwise = m.kind == MaskKind::Custom ||
                  (m.kind == MaskKind::Document &&
                   m.documentSource == DocumentSource::SegmentIds);
  // Masks that read no (b, h)-dependent data are the same for every head.
  bool uniform = mask::hasIntervalForm(m.kind) ||
                 (m.kind == MaskKind::Document &&
                  m.documentSource == DocumentSource::CuSeqlens);
  int64_t nq = (p.sq + bq - 1) / bq, nk = (p.sk + bk - 1) / bk;
  double elt = spec.dtype == ElementType::F32 ? 4 : 2;
  double keyBytes = 0; // K/V bytes the tiled kernel reads, all heads

  r.visiblePairs = static_cast<int64_t>(visiblePairs(p));
  int64_t classes = uniform ? 1 : p.b * p.hq;
  double weight = uniform ? static_cast<double>(p.b * p.hq) : 1.0;
  for (int64_t c = 0; c < classes; ++c) {
    int64_t bi = uniform ? 0 : c / p.hq, h = uniform ? 0 : c % p.hq;
    for (int64_t tq = 0; tq < nq; ++tq)
      for (int64_t tk = 0; tk < nk; ++tk) {
        int64_t k0 = tk * bk, k1 = std::min(k0 + bk, p.sk);
        TileClass cls = TileClass::Partial;
        if (!r.elementwise) {
          // Classify by the visible pairs of the tile (exact for every
          // mask the kernel classifies).
          int64_t q0 = tq * bq, q1 = std::min(q0 + bq, p.sq);
          if (mask::hasIntervalForm(m.kind)) {
            cls = mask::classifyTile(m, q0, q1, k0, k1, p.sq, p.sk);
          } else {
            int64_t seen = 0;
            for (int64_t i = q0; i < q1; ++i)
              for (int64_t j = k0; j < k1; ++j)
                seen += p.visible(bi, h, i, j);
            cls = seen == 0                       ? TileClass::Empty
                  : seen == (q1 - q0) * (k1 - k0) ? TileClass::Full
                                                  : TileClass::Partial;
          }
        }
        int64_t w = static_cast<int64_t>(weight);
        r.tilesTotal += w;
        if (cls == TileClass::Empty) {
          r.tilesSkipped += w;
          continue;
        }
        (cls == TileClass::Full ? r.tilesFull : r.tilesPartial) += w;
        keyBytes += weight * (k1 - k0) * (p.d + p.dv) * elt;
      }
  }

  double heads = static_cast<double>(p.b * p.hq);
  r.flops = 2.0 * r.visiblePairs * (p.d + p.dv);
  double qo = heads * (p.sq * p.d + p.sq * p.dv) * elt;
  double kv = static_cast<double>(p.b * p.hkv) * p.sk * (p.d + p.dv) * elt;
  double scores = heads * static_cast<double>(p.sq) * p.sk * elt;
  // Naive: inputs and output once, the score matrix written and read as S
  // and again as P.
  r.naiveHbmBytes = qo + kv + 4 * scores;
  double lseBytes = spec.lse ? heads * p.sq * 4 : 0;
  r.naiveHbmBytes += lseBytes;
  r.tiledHbmBytes = qo + keyBytes + lseBytes;
  r.naiveScoreBytes = scores;
  r.tiledWorkingSetBytes = bq * p.d * elt + bk * (p.d + p.dv) * elt +
                           bq * bk * 4.0 + bq * p.dv * 4.0 + 2.0 * bq * 4;
  r.arithmeticIntensity = r.tiledHbmBytes > 0 ? r.flops / r.tiledHbmBytes : 0;
  double peak =
      spec.dtype == ElementType::F32 ? gpu.fp32Tflops : gpu.tensorTflops;
  r.rooflineTflops =
      std::min(peak, r.arithmeticIntensity * gpu.hbmTBs); // TB/s * F/B = TF/s
  r.boundMicroseconds =
      r.rooflineTflops > 0 ? r.flops / (r.rooflineTflops * 1e12) * 1e6 : 0;
  return r;
}

std::string attnc::formatReport(const AttentionSpec &spec,
                                const AttentionReport &r, int64_t bq,
                                int64_t bk) {
  char buf[2048];
  double ratio = r.tiledHbmBytes > 0 ? r.naiveHbmBytes / r.tiledHbmBytes : 0;
  std::snprintf(
      buf, sizeof(buf),
      "attention %s\n"
      "  tiles %lld x %lld (block_q x block_k)\n"
      "  unmasked pairs:        %lld\n"
      "  FLOPs:                 %.0f (2 * pairs * (d + dv))\n"
      "  tiles:                 %lld total, %lld skipped, %lld full, %lld "
      "partial%s\n"
      "  HBM bytes, naive:      %.0f\n"
      "  HBM bytes, tiled:      %.0f (naive / tiled = %.3f; 2*block_q/d = "
      "%.3f)\n"
      "  held memory, naive:    %.0f bytes of scores\n"
      "  held memory, tiled:    %.0f bytes per query tile\n"
      "  arithmetic intensity:  %.2f FLOP/byte\n"
      "  roofline on %s:      %.1f TFLOP/s (%s peak %.1f, HBM %.2f TB/s), "
      "at least %.3f us\n",
      printSpec(spec).c_str(), static_cast<long long>(bq),
      static_cast<long long>(bk), static_cast<long long>(r.visiblePairs),
      r.flops, static_cast<long long>(r.tilesTotal),
      static_cast<long long>(r.tilesSkipped),
      static_cast<long long>(r.tilesFull),
      static_cast<long long>(r.tilesPartial),
      r.elementwise ? " (element-wise mask: no tile is classified)" : "",
      r.naiveHbmBytes, r.tiledHbmBytes, ratio, 2.0 * bq / spec.d,
      r.naiveScoreBytes, r.tiledWorkingSetBytes, r.arithmeticIntensity,
      r.gpu.name.c_str(), r.rooflineTflops,
      spec.dtype == ElementType::F32 ? "fp32" : "tensor-core",
      spec.dtype == ElementType::F32 ? r.gpu.fp32Tflops : r.gpu.tensorTflops,
      r.gpu.hbmTBs, r.boundMicroseconds);
  return buf;
}
