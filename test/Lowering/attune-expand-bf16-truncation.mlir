// Without AVX512-BF16 (an AVX2 level; Sapphire Rapids with the feature
// taken away) the rounding to bf16 is integer code, scalar and vector; with
// it (Sapphire Rapids) the truncf stays for LLVM's vcvtneps2bf16. A NaN
// becomes the quiet NaN 0x7FC0 (32704), as in PyTorch. An
// unknown CPU is an error naming it.
// RUN: attune-opt %s --attune-expand-bf16-truncation=cpu=x86-64-v3 | FileCheck %s --check-prefix=SOFT
// RUN: attune-opt %s --attune-expand-bf16-truncation="cpu=sapphirerapids features=-avx512bf16" | FileCheck %s --check-prefix=SOFT
// RUN: attune-opt %s --attune-expand-bf16-truncation=cpu=sapphirerapids | FileCheck %s --check-prefix=NATIVE
// RUN: not attune-opt %s --attune-expand-bf16-truncation=cpu=pentium9 2>&1 | FileCheck %s --check-prefix=BAD

// SOFT-LABEL: func @scalar
// SOFT-NOT: arith.truncf
// SOFT: arith.bitcast %{{.*}} : f32 to i32
// SOFT: arith.shrui
// SOFT: arith.trunci %{{.*}} : i32 to i16
// SOFT: arith.select %{{.*}}, %c32704_i16
// SOFT: arith.bitcast %{{.*}} : i16 to bf16
// NATIVE-LABEL: func @scalar
// NATIVE: arith.truncf %{{.*}} : f32 to bf16
func.func @scalar(%x: f32) -> bf16 {
  %b = arith.truncf %x : f32 to bf16
  return %b : bf16
}

// SOFT-LABEL: func @vector
// SOFT-NOT: arith.truncf
// SOFT: arith.cmpf une
// SOFT: arith.bitcast %{{.*}} : vector<16xf32> to vector<16xi32>
// SOFT: arith.trunci %{{.*}} : vector<16xi32> to vector<16xi16>
// SOFT: arith.select %{{.*}} : vector<16xi1>, vector<16xi16>
// SOFT: arith.bitcast %{{.*}} : vector<16xi16> to vector<16xbf16>
// NATIVE-LABEL: func @vector
// NATIVE: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
func.func @vector(%x: vector<16xf32>) -> vector<16xbf16> {
  %b = arith.truncf %x : vector<16xf32> to vector<16xbf16>
  return %b : vector<16xbf16>
}

// f16 is not touched (F16C converts it on every x86-64-v3 CPU).
// SOFT-LABEL: func @half
// SOFT: arith.truncf %{{.*}} : f32 to f16
func.func @half(%x: f32) -> f16 {
  %h = arith.truncf %x : f32 to f16
  return %h : f16
}

// BAD: error: {{.*}}pentium9
