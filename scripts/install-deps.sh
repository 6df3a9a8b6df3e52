#!/usr/bin/env bash
# Installs what Attune needs from Debian 12 packages; idempotent, and a no-op when all is present.
# Runs `apt-get update` at most once, and only when something is missing.
set -euo pipefail

packages=(
  # Toolchain and MLIR 22 (lit and FileCheck come with llvm-22-tools).
  cmake ninja-build ccache g++ make time
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  # OpenMP runtime for the parallel loops of compiled models.
  libomp-22-dev
  # lit's own dependencies.
  python3-yaml python3-pygments
  # Vulkan: loader, lavapipe, validation layer, spirv-val.
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers spirv-tools valgrind
  # Reference data.
  python3-torch python3-numpy
)

# `install-deps.sh --bench` adds what bench/ needs (not needed for tests).
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(libbenchmark-dev libopenblas-dev)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
