#!/usr/bin/env bash
# Installs what attnc needs to build and test, with apt, on Debian 12.
# Does nothing when everything is present. Run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ python3
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libgtest-dev googletest libbenchmark-dev
  python3-numpy
  clang libclang-rt-14-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
else
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      SUDO="sudo"
    else
      echo "setup: error: need root (or sudo) to install: ${missing[*]}" >&2
      exit 1
    fi
  fi
  if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; then
    echo "setup: apt-get install failed; refreshing the package lists and retrying" >&2
    if ! { $SUDO apt-get update && $SUDO env DEBIAN_FRONTEND=noninteractive \
           apt-get install -y --no-install-recommends "${missing[@]}"; }; then
      echo "setup: error: could not install ${missing[*]} with apt-get." >&2
      echo "setup: attnc needs Debian 12 with LLVM/MLIR 22 packages available to apt." >&2
      exit 1
    fi
  fi
fi

# The CUDA toolkit (ptxas, libdevice) is not a Debian package here; the GPU
# lowering tests need it and skip, saying so, when it is absent.
if [ ! -x "${CUDA_ROOT:-/usr/local/cuda}/bin/ptxas" ]; then
  echo "setup: note: no CUDA toolkit at ${CUDA_ROOT:-/usr/local/cuda}; PTX tests will be skipped"
fi
