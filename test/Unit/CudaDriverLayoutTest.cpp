//===- CudaDriverLayoutTest.cpp - CudaDriver.h against cuda.h -------------===//
//
// The runtime declares the few driver structures it passes (CUlaunchConfig,
// CUlaunchAttribute for cuLaunchKernelEx) instead of including cuda.h; their
// layout must be cuda.h's. Compared where the toolkit's headers are
// installed (CMake finds $CUDA_ROOT/include or /usr/local/cuda/include);
// skipped, saying so, otherwise.
//
//===----------------------------------------------------------------------===//

#include "attnc/Runtime/CudaDriver.h"

#include <gtest/gtest.h>

#include <cstddef>

#ifdef ATTNC_HAVE_CUDA_H
#include <cuda.h>
#endif

TEST(CudaDriverLayoutTest, LaunchStructuresMatchCudaH) {
#ifndef ATTNC_HAVE_CUDA_H
  GTEST_SKIP() << "no cuda.h (CUDA toolkit headers) on this machine";
#else
  using Config = attnc::cuda::CUlaunchConfig;
  using Attribute = attnc::cuda::CUlaunchAttribute;
  EXPECT_EQ(sizeof(Config), sizeof(::CUlaunchConfig));
  EXPECT_EQ(offsetof(Config, gridDimX), offsetof(::CUlaunchConfig, gridDimX));
  EXPECT_EQ(offsetof(Config, blockDimZ), offsetof(::CUlaunchConfig, blockDimZ));
  EXPECT_EQ(offsetof(Config, sharedMemBytes),
            offsetof(::CUlaunchConfig, sharedMemBytes));
  EXPECT_EQ(offsetof(Config, hStream), offsetof(::CUlaunchConfig, hStream));
  EXPECT_EQ(offsetof(Config, attrs), offsetof(::CUlaunchConfig, attrs));
  EXPECT_EQ(offsetof(Config, numAttrs), offsetof(::CUlaunchConfig, numAttrs));
  EXPECT_EQ(sizeof(Attribute), sizeof(::CUlaunchAttribute));
  EXPECT_EQ(offsetof(Attribute, id), offsetof(::CUlaunchAttribute, id));
  EXPECT_EQ(offsetof(Attribute, value), offsetof(::CUlaunchAttribute, value));
  EXPECT_EQ(offsetof(Attribute, value.programmaticStreamSerializationAllowed),
            offsetof(::CUlaunchAttribute,
                     value.programmaticStreamSerializationAllowed));
  EXPECT_EQ(attnc::cuda::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
            static_cast<int>(
                ::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION));
#endif
}
