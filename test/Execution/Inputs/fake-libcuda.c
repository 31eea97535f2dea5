/*===- fake-libcuda.c - a CUDA driver stand-in on host memory -------------===*\
|*                                                                            *|
|* Lets the lit tests run `attnc-run --device=cuda` and attnrt-run end to end *|
|* on machines without a GPU (ATTNRT_LIBCUDA=<this library>): device memory   *|
|* is host memory, modules load whatever they are given, and a launch runs a  *|
|* host attention in place of the kernel, reading the kernel ABI's parameters *|
|* (docs/runtime.md). It checks the plumbing (buffers, poisoning, the launch  *|
|* arguments, the copy back, the check), not attnc's kernels.                 *|
|*                                                                            *|
|* The host "kernel": bf16 q, k, v, o; f32 lse; no mask or a bottom-right     *|
|* causal mask. The head dims and the kv-head count come from the sizes of    *|
|* the q, k and v allocations. Environment:                                   *|
|*   ATTNC_FAKE_CUDA_CC=MAJOR.MINOR  the compute capability (default 9.0)     *|
|*   ATTNC_FAKE_CUDA_MASK=causal     the mask (default none)                  *|
|*   ATTNC_FAKE_CUDA_SCALE=X         the scale (default 1/sqrt(d))            *|
|*   ATTNC_FAKE_CUDA_SKIP=1          launches write nothing                   *|
|*   ATTNC_FAKE_CUDA_OVERRUN=1       each O row one element past its end too  *|
|*   ATTNC_FAKE_CUDA_LOG=1           log the launch and leaks on stderr       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
enum { OK = 0, OUT_OF_MEMORY = 2, INVALID_VALUE = 1 };

static int logging(void) {
  const char *v = getenv("ATTNC_FAKE_CUDA_LOG");
  return v && strcmp(v, "1") == 0;
}

/* Live allocations, for the sizes of q, k and o and the leak count. */
enum { MAX_ALLOCATIONS = 64 };
static struct {
  void *ptr;
  size_t bytes;
} allocations[MAX_ALLOCATIONS];

static size_t allocationSize(const void *p) {
  for (int i = 0; i < MAX_ALLOCATIONS; ++i)
    if (allocations[i].ptr == p)
      return allocations[i].bytes;
  return 0;
}

/* Kernel launches so far (a split decode step launches the combine too). */
static int launches = 0;

static void reportLeaks(void) {
  int live = 0;
  for (int i = 0; i < MAX_ALLOCATIONS; ++i)
    live += allocations[i].ptr != 0;
  fprintf(stderr, "fake-libcuda: %d launches\n", launches);
  fprintf(stderr, "fake-libcuda: %d device buffers not freed\n", live);
}

CUresult cuInit(unsigned flags) {
  static int once = 0;
  if (!once++ && logging())
    atexit(reportLeaks);
  return OK;
}
CUresult cuGetErrorString(CUresult e, const char **s) {
  *s = "fake-libcuda error";
  return OK;
}
CUresult cuGetErrorName(CUresult e, const char **s) {
  *s = "CUDA_ERROR_FAKE";
  return OK;
}

static int context;
static void *current = 0;
CUresult cuCtxGetCurrent(void **c) {
  *c = current;
  return OK;
}
CUresult cuCtxSetCurrent(void *c) {
  current = c;
  return OK;
}
CUresult cuCtxGetId(void *c, unsigned long long *id) {
  *id = 1;
  return OK;
}
CUresult cuCtxPushCurrent_v2(void *c) { return OK; }
CUresult cuCtxPopCurrent_v2(void **c) { return OK; }
CUresult cuCtxSynchronize(void) { return OK; }
CUresult cuDevicePrimaryCtxRetain(void **c, int device) {
  *c = &context;
  return OK;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) { return OK; }

CUresult cuDeviceGet(int *device, int ordinal) {
  *device = 0;
  return ordinal == 0 ? OK : INVALID_VALUE;
}
CUresult cuDeviceGetName(char *name, int len, int device) {
  snprintf(name, (size_t)len, "Fake GPU");
  return OK;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  int major = 9, minor = 0;
  const char *cc = getenv("ATTNC_FAKE_CUDA_CC");
  if (cc)
    sscanf(cc, "%d.%d", &major, &minor);
  /* 75, 76: compute capability; 16: multiprocessors (a small device, so
   * that decode launches split their keys); otherwise shared memory. */
  *value = attribute == 75   ? major
           : attribute == 76 ? minor
           : attribute == 16 ? 4
                             : 232448;
  return OK;
}
CUresult cuCtxGetDevice(int *device) {
  *device = 0;
  return OK;
}
/* Two blocks of any kernel per multiprocessor. */
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *f,
                                                     int blockSize,
                                                     size_t sharedBytes) {
  *blocks = 2;
  return OK;
}

static int module, function;
CUresult cuModuleLoadData(void **m, const void *image) {
  *m = &module;
  return OK;
}
CUresult cuModuleLoadDataEx(void **m, const void *image, unsigned n,
                            int *options, void **values) {
  *m = &module;
  return OK;
}
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
  *f = &function;
  return OK;
}
CUresult cuModuleUnload(void *m) { return OK; }
CUresult cuFuncSetAttribute(void *f, int attribute, int value) { return OK; }

/* TMA descriptors: the fake kernel reads q, k and v through their pointer
 * parameters, so a map only records that it was built. */
CUresult cuTensorMapEncodeTiled(void *map, int dataType, unsigned rank,
                                void *global, const uint64_t *dims,
                                const uint64_t *strides, const unsigned *box,
                                const unsigned *elementStrides, int interleave,
                                int swizzle, int l2, int oob) {
  memset(map, 0, 128);
  memcpy(map, &global, sizeof global);
  if (logging() && rank == 4)
    fprintf(stderr,
            "fake-libcuda: tensor map type %d dims (%llu, %llu, %llu, %llu) "
            "byte strides (%llu, %llu, %llu) box (%u, %u, %u, %u) swizzle %d "
            "oob %d\n",
            dataType, (unsigned long long)dims[0], (unsigned long long)dims[1],
            (unsigned long long)dims[2], (unsigned long long)dims[3],
            (unsigned long long)strides[0], (unsigned long long)strides[1],
            (unsigned long long)strides[2], box[0], box[1], box[2], box[3],
            swizzle, oob);
  return OK;
}

CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes) {
  for (int i = 0; i < MAX_ALLOCATIONS; ++i)
    if (!allocations[i].ptr) {
      void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
      if (!p)
        return OUT_OF_MEMORY;
      memset(p, 0x5A, bytes); /* garbage until written */
      allocations[i].ptr = p;
      allocations[i].bytes = bytes;
      *ptr = (unsigned long long)(uintptr_t)p;
      return OK;
    }
  return OUT_OF_MEMORY;
}
CUresult cuMemFree_v2(unsigned long long ptr) {
  for (int i = 0; i < MAX_ALLOCATIONS; ++i)
    if (allocations[i].ptr == (void *)(uintptr_t)ptr) {
      free(allocations[i].ptr);
      allocations[i].ptr = 0;
      return OK;
    }
  return INVALID_VALUE;
}
CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src,
                         size_t bytes) {
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return OK;
}
CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes) {
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return OK;
}
CUresult cuMemsetD8_v2(unsigned long long dst, unsigned char value,
                       size_t count) {
  memset((void *)(uintptr_t)dst, value, count);
  return OK;
}
CUresult cuMemsetD32Async(unsigned long long dst, unsigned value, size_t count,
                          void *stream) {
  if (logging())
    fprintf(stderr,
            "fake-libcuda: memset32 of %zu words to %u in a buffer of %zu "
            "bytes\n",
            count, value, allocationSize((const void *)(uintptr_t)dst));
  if (4 * count > allocationSize((const void *)(uintptr_t)dst))
    return INVALID_VALUE;
  for (size_t i = 0; i < count; ++i)
    ((unsigned *)(uintptr_t)dst)[i] = value;
  return OK;
}

static int event;
CUresult cuEventCreate(void **e, unsigned flags) {
  *e = &event;
  return OK;
}
CUresult cuEventRecord(void *e, void *stream) { return OK; }
CUresult cuEventSynchronize(void *e) { return OK; }
CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  *ms = 0.25f;
  return OK;
}
CUresult cuEventDestroy_v2(void *e) { return OK; }

static float fromBF16(uint16_t bits) {
  uint32_t u = (uint32_t)bits << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint16_t toBF16(float f) { /* round to nearest even; no NaN here */
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

/* A float8 e4m3fn code (bias 7, no infinities, 0x7F / 0xFF NaN). */
static float fromE4M3(uint8_t x) {
  int e = (x >> 3) & 0xF, m = x & 7;
  float v = (e & 0xF) == 0xF && m == 7 ? NAN
            : e == 0                   ? ldexpf((float)m, -9)
                                       : ldexpf(8.0f + m, e - 10);
  return x & 0x80 ? -v : v;
}

CUresult cuLaunchKernel(void *f, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned sharedMemBytes, void *stream,
                        void **params, void **extra) {
  const uint16_t *q = *(const uint16_t **)params[0];
  const uint16_t *k = *(const uint16_t **)params[1];
  const uint16_t *v = *(const uint16_t **)params[2];
  uint16_t *o = *(uint16_t **)params[3];
  float *lse = *(float **)params[4];
  int64_t b = *(int64_t *)params[9], sq = *(int64_t *)params[10],
          sk = *(int64_t *)params[11];
  /* K/V strides of the [B, H, S] view (parameters 18-23), and the KV cache
   * (29-32): kv_lens, page_table, max_pages, num_pages. With pages, k and v
   * are [num_pages, page_size, Hkv, D] with strides {page, head, row}. */
  int64_t kStride[3], vStride[3];
  for (int i = 0; i < 3; ++i) {
    kStride[i] = *(int64_t *)params[18 + i];
    vStride[i] = *(int64_t *)params[21 + i];
  }
  const int32_t *kvLens = *(const int32_t **)params[29];
  const int32_t *pageTable = *(const int32_t **)params[30];
  int64_t maxPages = *(int64_t *)params[31], numPages = *(int64_t *)params[32];
  /* An fp8 cache: k and v hold e4m3 codes, kv_scales [2, Hkv] (33). */
  const float *kvScales = *(const float **)params[33];
  int64_t kvBytes = kvScales ? 1 : 2;
  int64_t pageSize = pageTable && maxPages > 0 ? sk / maxPages : 0;
  /* A ragged batch (34, 35): cu_seqlens_q, cu_seqlens_k; q and o then hold
   * sq packed rows in batch entry 0 (and with cu_seqlens_k, k and v sk). */
  const int32_t *cuQ = *(const int32_t **)params[34];
  const int32_t *cuK = *(const int32_t **)params[35];
  int64_t qBatches = cuQ ? 1 : b, kBatches = cuK ? 1 : b;
  /* A work list (36): its item count, then the items (attnrt_plan.h); every
   * launch with one is logged (the split kernel, then the combine). */
  const int32_t *plan = *(const int32_t **)params[36];
  if (plan && logging())
    fprintf(stderr,
            "fake-libcuda: launch %d with a work list of %d items, grid (%u, "
            "%u, %u)\n",
            launches, plan[0], gridX, gridY, gridZ);
  /* Q and O strides of the [B, H, S] view (15-17, 24-26). Query heads: q is
   * dense [B, Hq, Sq, D] here (DeviceRun), so q_stride_b / q_stride_h; the
   * grid's y counts KV groups when the decode kernel packs a group's heads,
   * and 1 for the combine; a ragged batch's grid y is Hq. */
  int64_t qStride[3], oStride[3];
  for (int i = 0; i < 3; ++i) {
    qStride[i] = *(int64_t *)params[15 + i];
    oStride[i] = *(int64_t *)params[24 + i];
  }
  int64_t hq = cuQ               ? gridY
               : qStride[1] > 0 ? qStride[0] / qStride[1]
                                : gridY;
  int64_t d = (int64_t)allocationSize(q) / (2 * qBatches * hq * sq);
  int64_t hkv = pageTable ? (int64_t)allocationSize(k) /
                                (kvBytes * numPages * pageSize * d)
                          : (int64_t)allocationSize(k) /
                                (kvBytes * kBatches * sk * d);
  /* V's rows as K's (O's may be padded: attnrt-run --o-row-stride). */
  int64_t dv =
      hkv <= 0 ? 0
      : pageTable
          ? (int64_t)allocationSize(v) / (kvBytes * numPages * pageSize * hkv)
          : (int64_t)allocationSize(v) / (kvBytes * kBatches * sk * hkv);
  if (d <= 0 || dv <= 0 || hkv <= 0 || hq % hkv != 0)
    return INVALID_VALUE;
  const char *maskName = getenv("ATTNC_FAKE_CUDA_MASK");
  int causal = maskName && strcmp(maskName, "causal") == 0;
  const char *scaleText = getenv("ATTNC_FAKE_CUDA_SCALE");
  float scale = scaleText ? (float)atof(scaleText) : 1.0f / sqrtf((float)d);
  if (launches++ == 0 && logging()) {
    int poisoned = 1;
    for (int64_t i = 0; i < qBatches * hq * sq * dv; ++i)
      poisoned &= o[i] == 0xFFFF;
    fprintf(stderr,
            "fake-libcuda: launch grid (%u, %u, %u) block (%u, %u, %u), "
            "b=%lld hq=%lld hkv=%lld sq=%lld sk=%lld d=%lld dv=%lld, "
            "lse %s, o %s, num_splits %lld, scratch of %zu bytes\n",
            gridX, gridY, gridZ, blockX, blockY, blockZ, (long long)b,
            (long long)hq, (long long)hkv, (long long)sq, (long long)sk,
            (long long)d, (long long)dv, lse ? "given" : "null",
            poisoned ? "poisoned" : "not poisoned",
            (long long)*(int64_t *)params[27],
            allocationSize(*(const void **)params[28]));
    if (kvLens || pageTable || kvScales)
      fprintf(stderr,
              "fake-libcuda: kv_lens %s, page_table %s, max_pages %lld, "
              "num_pages %lld, k strides (%lld, %lld, %lld), kv_scales %s\n",
              kvLens ? "given" : "null", pageTable ? "given" : "null",
              (long long)maxPages, (long long)numPages, (long long)kStride[0],
              (long long)kStride[1], (long long)kStride[2],
              kvScales ? "given" : "null");
    if (cuQ)
      fprintf(stderr,
              "fake-libcuda: ragged batch of %lld sequences, %lld query rows, "
              "keys %s, q strides (%lld, %lld, %lld)\n",
              (long long)b, (long long)sq, cuK ? "packed" : "in a cache",
              (long long)qStride[0], (long long)qStride[1],
              (long long)qStride[2]);
    if (!cuQ && oStride[2] != dv)
      fprintf(stderr, "fake-libcuda: o strides (%lld, %lld, %lld)\n",
              (long long)oStride[0], (long long)oStride[1],
              (long long)oStride[2]);
  }
  const char *overrunText = getenv("ATTNC_FAKE_CUDA_OVERRUN");
  int overrun = overrunText && strcmp(overrunText, "1") == 0;
  const char *skip = getenv("ATTNC_FAKE_CUDA_SKIP");
  if (skip && strcmp(skip, "1") == 0)
    return OK;
  float *p = malloc((size_t)sk * sizeof(float));
  if (!p)
    return OUT_OF_MEMORY;
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t h = 0; h < hq; ++h) {
      int64_t kh = h / (hq / hkv);
      /* This sequence's query rows [q0, q0 + rows) of batch entry qb, keys
       * [k0, k0 + len) of kb, and the element offset of key j's row. */
      int64_t qb = cuQ ? 0 : bi, kb = cuK ? 0 : bi, q0 = 0, rows = sq, k0 = 0;
#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))
      if (cuQ) {
        q0 = CLAMP(cuQ[bi], 0, sq);
        rows = CLAMP(cuQ[bi + 1], q0, sq) - q0;
      }
      int64_t len = sk;
      if (kvLens)
        len = CLAMP(kvLens[bi], 0, sk);
      if (cuK) {
        k0 = CLAMP(cuK[bi], 0, sk);
        len = CLAMP(cuK[bi + 1], k0, sk) - k0;
      }
#undef CLAMP
#define ROW(stride, j)                                                         \
  (pageTable ? pageTable[bi * maxPages + (j) / pageSize] * (stride)[0] +       \
                   ((j) % pageSize) * (stride)[2] + kh * (stride)[1]           \
             : kb * (stride)[0] + kh * (stride)[1] + (k0 + (j)) * (stride)[2])
#define QROW(stride, i)                                                        \
  (qb * (stride)[0] + h * (stride)[1] + (q0 + (i)) * (stride)[2])
#define KV(base, at, scaleRow)                                                 \
  (kvScales                                                                    \
       ? fromE4M3(((const uint8_t *)(base))[at]) * kvScales[(scaleRow) + kh]   \
       : fromBF16((base)[at]))
      for (int64_t i = 0; i < rows; ++i) {
        float m = -INFINITY, l = 0;
        for (int64_t j = 0; j < len; ++j) {
          p[j] = -INFINITY;
          if (causal && j > i + len - rows)
            continue;
          float s = 0;
          for (int64_t c = 0; c < d; ++c)
            s += fromBF16(q[QROW(qStride, i) + c]) *
                 KV(k, ROW(kStride, j) + c, 0);
          p[j] = s * scale;
          m = p[j] > m ? p[j] : m;
        }
        for (int64_t j = 0; j < len; ++j) {
          p[j] = p[j] == -INFINITY ? 0 : expf(p[j] - m);
          l += p[j];
        }
        for (int64_t c = 0; c < dv; ++c) {
          float acc = 0;
          for (int64_t j = 0; j < len; ++j)
            acc += p[j] * KV(v, ROW(vStride, j) + c, hkv);
          o[QROW(oStride, i) + c] = toBF16(l > 0 ? acc / l : 0);
        }
        if (overrun)
          o[QROW(oStride, i) + dv] = 0;
        if (lse)
          lse[(qb * hq + h) * sq + q0 + i] = l > 0 ? m + logf(l) : -INFINITY;
      }
    }
#undef ROW
#undef QROW
#undef KV
  free(p);
  return OK;
}
