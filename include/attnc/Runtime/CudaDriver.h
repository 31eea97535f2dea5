//===- CudaDriver.h - the CUDA driver, opened at run time -------*- C++ -*-===//
//
// The few CUDA driver types and entry points attnrt uses, declared here so
// that the runtime builds without cuda.h and links without libcuda: the
// library is opened with dlopen on first use and every entry point resolved
// with dlsym. For attnrt and its tools (attnrt-run); not a stable API.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_CUDADRIVER_H
#define ATTNC_RUNTIME_CUDADRIVER_H

#include <cstdint>
#include <string>

namespace attnc {
namespace cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

// The values of cuda.h this code needs.
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
constexpr CUresult CUDA_ERROR_DEINITIALIZED = 4;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr unsigned CU_EVENT_DEFAULT = 0;
constexpr int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;

/// cuda.h's CUlaunchAttribute: an id, padding to 8 bytes, a 64-byte value
/// (here only programmaticStreamSerializationAllowed, its first int).
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    unsigned programmaticStreamSerializationAllowed;
  } value;
};

/// cuda.h's CUlaunchConfig, for cuLaunchKernelEx.
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(CUlaunchAttribute) == 72 && sizeof(CUlaunchConfig) == 56,
              "cuda.h's launch structures on a 64-bit host "
              "(test/Unit/CudaDriverLayoutTest.cpp compares with cuda.h)");

/// The driver entry points, resolved from libcuda. Those marked optional may
/// be null (older drivers); every other one is non-null.
struct Driver {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuGetErrorString)(CUresult error, const char **str);
  CUresult (*cuGetErrorName)(CUresult error, const char **str); // optional
  CUresult (*cuCtxGetCurrent)(CUcontext *ctx);
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuCtxGetId)(CUcontext ctx,
                         unsigned long long *id); // optional (CUDA 12)
  CUresult (*cuCtxPushCurrent)(CUcontext ctx);    // optional
  CUresult (*cuCtxPopCurrent)(CUcontext *ctx);    // optional
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuCtxGetDevice)(CUdevice *device); // optional
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(
      int *blocks, CUfunction function, int blockSize,
      size_t dynamicSharedMemory); // optional
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device); // optional
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned numOptions, int *options,
                                 void **optionValues);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *config, CUfunction f,
                               void **kernelParams,
                               void **extra); // optional (CUDA 12)
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned gridX, unsigned gridY,
                             unsigned gridZ, unsigned blockX, unsigned blockY,
                             unsigned blockZ, unsigned sharedMemBytes,
                             CUstream stream, void **kernelParams,
                             void **extra);
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuMemsetD8)(CUdeviceptr dst, unsigned char value, size_t count);
  CUresult (*cuMemsetD32Async)(CUdeviceptr dst, unsigned value, size_t count,
                               CUstream stream);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
  CUresult (*cuEventDestroy)(CUevent event);
  /// Builds a TMA descriptor (CUtensorMap, 128 bytes, 64-byte aligned) into
  /// `tensorMap`; enum arguments as ints (CUtensorMapDataType, ...). For the
  /// TensorMap parameters of KernelAbi.h; no current kernel takes one.
  CUresult (*cuTensorMapEncodeTiled)(
      void *tensorMap, int dataType, unsigned rank, void *globalAddress,
      const uint64_t *globalDim, const uint64_t *globalStrides,
      const unsigned *boxDim, const unsigned *elementStrides, int interleave,
      int swizzle, int l2Promotion, int oobFill); // optional (CUDA 12)

  /// "cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (device kernel image
  /// is invalid)" for `result` of the call named `call`.
  std::string describe(const char *call, CUresult result) const;
};

/// The message of a machine without libcuda.
extern const char *const kNoDriverMessage;

/// The driver, opened (dlopen "libcuda.so.1", then "libcuda.so") and resolved
/// on the first call; later calls return the same table. Returns nullptr with
/// a message in `error` when the library or a required entry point is
/// missing. cuInit is not called here.
const Driver *getDriver(std::string &error);

} // namespace cuda
} // namespace attnc

#endif // ATTNC_RUNTIME_CUDADRIVER_H
