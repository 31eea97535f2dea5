# -*- Python -*-
# lit configuration for attnc: FileCheck tests over attnc's tools.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "attnc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.attnc_obj_root, "test")
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Lowering to PTX reads libdevice and ptxas from the CUDA toolkit.
config.environment["CUDA_ROOT"] = os.environ.get("CUDA_ROOT", "/usr/local/cuda")

tool_dirs = [config.attnc_tools_dir, config.llvm_tools_dir]
tools = ["attnc-opt", "attnc", "attnc-run", "attnrt-run", "FileCheck", "not",
         "count"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# A CUDA driver stand-in on host memory (test/Execution/Inputs/fake-libcuda.c),
# for ATTNRT_LIBCUDA.
config.substitutions.append(
    ("%fake_libcuda", os.path.join(config.attnc_obj_root, "test",
                                   "libattnc-fake-libcuda.so")))

# The C layout of the runtime's launch struct, and the Python wrapper.
config.substitutions.append(
    ("%abi_layout", os.path.join(config.attnc_obj_root, "test", "attnc-abi-layout")))
config.substitutions.append(("%attnc_src", config.attnc_src_root))
# The build tree (scripts take it as their build dir: BUILD/bin/attnc).
config.substitutions.append(("%attnc_build", config.attnc_obj_root))
config.substitutions.append(
    ("%capi_test", os.path.join(config.attnc_obj_root, "test", "attnc-capi-test")))
config.substitutions.append(
    ("%attnc_bin", os.path.join(config.attnc_tools_dir, "attnc")))

# Debian's python3 carries numpy (python3-numpy, installed by setup.sh).
config.substitutions.append(("%python", "/usr/bin/python3"))

# GPU code generation tests need ptxas and libdevice from the CUDA toolkit.
if os.path.exists(os.path.join(config.environment["CUDA_ROOT"], "bin", "ptxas")):
    config.available_features.add("ptxas")
    config.substitutions.append(
        ("%ptxas", os.path.join(config.environment["CUDA_ROOT"], "bin", "ptxas")))
else:
    lit_config.note("no CUDA toolkit at " + config.environment["CUDA_ROOT"] +
                    ": PTX tests are skipped (UNSUPPORTED)")
