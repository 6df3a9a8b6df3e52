#!/usr/bin/env bash
# Installs what Attune needs from Debian 12 packages; idempotent, and a no-op when all is present.
# Runs `apt-get update` at most once, and only when something is missing.
set -euo pipefail

packages=(
  # Toolchain and MLIR 22 (lit and FileCheck come with llvm-22-tools).
  cmake ninja-build ccache g++ make time
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  # lld links the artifacts (a model's weights in seconds less than GNU ld).
  lld-22
  # OpenMP runtime for the parallel loops of compiled models.
  libomp-22-dev
  # lit's own dependencies.
  python3-yaml python3-pygments
  # Vulkan: loader, lavapipe, validation layer, spirv-val.
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers spirv-tools valgrind
  # An emulated older CPU (qemu-x86_64 -cpu Haswell) for the tests of
  # artifacts that must refuse to load, or must run, without AVX-512.
  qemu-user
  # Reference data.
  python3-torch python3-numpy
  # Attention heatmaps (attune-run --attention-maps: scripts/attention_heatmap.py).
  python3-matplotlib
  # The ONNX front end: the ONNX protobuf messages (libonnx-dev, with the
  # generated onnx-ml.pb.h) and protobuf; python3-onnx builds the malformed
  # models of the importer's tests.
  libonnx-dev libprotobuf-dev python3-onnx
)

# `install-deps.sh --bench` adds what bench/ needs (not needed for tests):
# Google Benchmark, OpenBLAS, and the ONNX Runtime anchor (npm package
# onnxruntime-node, whose CPU library ships inside the package, installed
# under build/ort with the machine's Node.js and npm).
bench=0
if [[ "${1:-}" == "--bench" ]]; then
  bench=1
  packages+=(libbenchmark-dev libopenblas-dev)
fi
# `install-deps.sh --fuzz` adds clang and its libFuzzer runtime for
# scripts/fuzz.sh (`make fuzz`).
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang-22 libclang-rt-22-dev)
fi
root=$(cd "$(dirname "$0")/.." && pwd)
install_ort() {
  [[ $bench -eq 1 ]] || return 0
  [[ -f "$root/build/ort/node_modules/onnxruntime-node/package.json" ]] && return 0
  if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
    echo "install-deps: no Node.js/npm: the benchmarks run without the ONNX Runtime anchor" >&2
    return 0
  fi
  echo "install-deps: installing onnxruntime-node@1.30.0 under build/ort"
  npm install --prefix "$root/build/ort" --ignore-scripts --no-audit --no-fund \
    onnxruntime-node@1.30.0 >/dev/null
}

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  install_ort
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
install_ort
echo "install-deps: done"
