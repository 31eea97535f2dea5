//===- CudaDriver.cpp - opening libcuda at run time -----------------------===//

#include "attnc/Runtime/CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <type_traits>

using namespace attnc;
using namespace attnc::cuda;

const char *const cuda::kNoDriverMessage =
    "libcuda.so.1 not found: no NVIDIA driver on this machine";

std::string Driver::describe(const char *call, CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (cuGetErrorString && cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string out = std::string(call) + " failed: ";
  out += name ? name : "CUDA error " + std::to_string(result);
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

namespace {
/// The outcome of opening the driver, computed once per process.
struct LoadedDriver {
  Driver driver = {};
  bool ok = false;
  std::string error;

  LoadedDriver() {
    // ATTNRT_LIBCUDA names another library (tests use it to act as a machine
    // without a driver).
    void *handle = nullptr;
    if (const char *path = std::getenv("ATTNRT_LIBCUDA")) {
      handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    } else {
      handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!handle)
        handle = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    }
    if (!handle) {
      error = kNoDriverMessage;
      return;
    }
    std::string missing;
    auto resolve = [&](auto &fn, const char *name, const char *fallback,
                       bool required) {
      void *sym = dlsym(handle, name);
      if (!sym && fallback)
        sym = dlsym(handle, fallback);
      if (!sym && required && missing.empty())
        missing = name;
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(sym);
    };
    Driver &d = driver;
    resolve(d.cuInit, "cuInit", nullptr, true);
    resolve(d.cuGetErrorString, "cuGetErrorString", nullptr, true);
    resolve(d.cuGetErrorName, "cuGetErrorName", nullptr, false);
    resolve(d.cuCtxGetCurrent, "cuCtxGetCurrent", nullptr, true);
    resolve(d.cuCtxSetCurrent, "cuCtxSetCurrent", nullptr, true);
    resolve(d.cuCtxGetId, "cuCtxGetId", nullptr, false);
    resolve(d.cuCtxPushCurrent, "cuCtxPushCurrent_v2", nullptr, false);
    resolve(d.cuCtxPopCurrent, "cuCtxPopCurrent_v2", nullptr, false);
    resolve(d.cuCtxSynchronize, "cuCtxSynchronize", nullptr, true);
    resolve(d.cuDeviceGet, "cuDeviceGet", nullptr, true);
    resolve(d.cuCtxGetDevice, "cuCtxGetDevice", nullptr, false);
    resolve(d.cuOccupancyMaxActiveBlocksPerMultiprocessor,
            "cuOccupancyMaxActiveBlocksPerMultiprocessor", nullptr, false);
    resolve(d.cuDeviceGetAttribute, "cuDeviceGetAttribute", nullptr, true);
    resolve(d.cuDeviceGetName, "cuDeviceGetName", nullptr, true);
    resolve(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", nullptr,
            true);
    resolve(d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",
            "cuDevicePrimaryCtxRelease", false);
    resolve(d.cuModuleLoadData, "cuModuleLoadData", nullptr, true);
    resolve(d.cuModuleLoadDataEx, "cuModuleLoadDataEx", nullptr, true);
    resolve(d.cuModuleGetFunction, "cuModuleGetFunction", nullptr, true);
    resolve(d.cuModuleUnload, "cuModuleUnload", nullptr, true);
    resolve(d.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", nullptr,
            false);
    resolve(d.cuFuncSetAttribute, "cuFuncSetAttribute", nullptr, true);
    resolve(d.cuLaunchKernel, "cuLaunchKernel", nullptr, true);
    resolve(d.cuLaunchKernelEx, "cuLaunchKernelEx", nullptr, false);
    resolve(d.cuMemAlloc, "cuMemAlloc_v2", nullptr, true);
    resolve(d.cuMemFree, "cuMemFree_v2", nullptr, true);
    resolve(d.cuMemcpyHtoD, "cuMemcpyHtoD_v2", nullptr, true);
    resolve(d.cuMemcpyDtoH, "cuMemcpyDtoH_v2", nullptr, true);
    resolve(d.cuMemsetD8, "cuMemsetD8_v2", nullptr, true);
    resolve(d.cuMemsetD32Async, "cuMemsetD32Async", nullptr, true);
    resolve(d.cuEventCreate, "cuEventCreate", nullptr, true);
    resolve(d.cuEventRecord, "cuEventRecord", nullptr, true);
    resolve(d.cuEventSynchronize, "cuEventSynchronize", nullptr, true);
    resolve(d.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime",
            true);
    resolve(d.cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy", true);
    if (!missing.empty()) {
      error =
          "the NVIDIA driver's libcuda lacks " + missing + " (driver too old?)";
      // The handle stays open: harmless, and other users may share it.
      return;
    }
    ok = true;
  }
};
} // namespace

const Driver *cuda::getDriver(std::string &error) {
  static LoadedDriver loaded; // thread-safe one-time initialisation
  if (!loaded.ok) {
    error = loaded.error;
    return nullptr;
  }
  return &loaded.driver;
}
