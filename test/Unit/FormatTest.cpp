//===- FormatTest.cpp - the artifact contract and the safetensors reader --===//
//
// Unit tests of what the compiler and the runtime share (runtime/core):
// metadata round trips and is refused when corrupt or of another version;
// the dtype table is complete; the safetensors reader accepts good headers
// and names what is wrong with bad ones. Prints one line per failure and
// "ok: N checks" at the end; exits 1 on any failure.
//
//===----------------------------------------------------------------------===//

#include "attune/artifact.h"
#include "attune/safetensors.h"
#include "runtime/core/CpuFeatures.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace attune;

static int checks = 0, failures = 0;
#define EXPECT(cond)                                                           \
  do {                                                                         \
    ++checks;                                                                  \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      std::printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);            \
    }                                                                          \
  } while (0)
#define EXPECT_CONTAINS(text, part)                                            \
  do {                                                                         \
    ++checks;                                                                  \
    if (std::string(text).find(part) == std::string::npos) {                   \
      ++failures;                                                              \
      std::printf("FAILED %s:%d: '%s' does not contain '%s'\n", __FILE__,      \
                  __LINE__, std::string(text).c_str(), part);                  \
    }                                                                          \
  } while (0)

static bool sameTensor(const artifact::TensorSpec &a,
                       const artifact::TensorSpec &b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape;
}

static artifact::Metadata sample() {
  artifact::Metadata m;
  m.hasCpu = m.hasVulkan = true;
  m.cpuName = "x86-64-v3";
  m.cpuFeatures = {"avx", "avx2", "fma"};
  m.vulkanProfile = "lavapipe";
  artifact::KernelSpec k;
  k.entry = "forward_kernel";
  k.symbol = "attune_vk_spirv_k0";
  k.where = "kernels@model.mlir:3:5";
  k.bytes = 1234;
  k.buffers = 3;
  k.pushConstants = 40;
  k.workgroup[0] = 64;
  k.subgroup = 8;
  m.kernels.push_back(k);
  k.subgroup = 0;
  k.symbol = "attune_vk_spirv_k1";
  m.kernels.push_back(k);
  m.globals.push_back({"attune_vk_global_0", 4096});
  artifact::EntrySpec e;
  e.name = "forward";
  e.inputs.push_back({"src", ATTUNE_F32, {-1, -1, 64}});
  e.inputs.push_back({"ids", ATTUNE_I64, {2, -1}});
  e.outputs.push_back({"output0", ATTUNE_BF16, {}});
  m.entries.push_back(e);
  m.weightsFile = "/tmp/w.safetensors";
  m.weights.push_back({"attune_weight_0", {"layers.0.w", ATTUNE_F16, {8, 16}}});
  return m;
}

static void testMetadataRoundTrip() {
  artifact::Metadata m = sample(), back;
  std::string text = artifact::serialize(m);
  EXPECT(artifact::parse(text.c_str(), back).empty());
  EXPECT(back.hasCpu && back.hasVulkan);
  EXPECT(back.cpuName == m.cpuName && back.cpuFeatures == m.cpuFeatures);
  EXPECT(back.vulkanProfile == m.vulkanProfile);
  EXPECT(back.kernels.size() == 2);
  if (back.kernels.size() == 2) {
    const artifact::KernelSpec &a = back.kernels[0], &b = m.kernels[0];
    EXPECT(a.entry == b.entry && a.symbol == b.symbol && a.where == b.where &&
           a.bytes == b.bytes && a.buffers == b.buffers &&
           a.pushConstants == b.pushConstants &&
           a.workgroup[0] == b.workgroup[0] && a.subgroup == 8);
    EXPECT(back.kernels[1].subgroup == 0);
  }
  EXPECT(back.globals.size() == 1 && back.globals[0].bytes == 4096);
  EXPECT(back.entries.size() == 1);
  if (back.entries.size() == 1) {
    EXPECT(back.entries[0].inputs.size() == 2 &&
           back.entries[0].outputs.size() == 1);
    EXPECT(sameTensor(back.entries[0].inputs[0], m.entries[0].inputs[0]));
    EXPECT(sameTensor(back.entries[0].inputs[1], m.entries[0].inputs[1]));
    EXPECT(sameTensor(back.entries[0].outputs[0], m.entries[0].outputs[0]));
  }
  EXPECT(back.weightsFile == m.weightsFile && back.weights.size() == 1 &&
         back.weights[0].symbol == "attune_weight_0" &&
         sameTensor(back.weights[0].tensor, m.weights[0].tensor));
  // Serializing again gives the same text.
  EXPECT(artifact::serialize(back) == text);

  // A CPU-only artifact without features.
  artifact::Metadata cpuOnly;
  cpuOnly.hasCpu = true;
  cpuOnly.cpuName = "x86-64";
  cpuOnly.entries = m.entries;
  text = artifact::serialize(cpuOnly);
  EXPECT_CONTAINS(text, "cpu x86-64 -\n");
  EXPECT(artifact::parse(text.c_str(), back).empty());
  EXPECT(back.hasCpu && !back.hasVulkan && back.cpuFeatures.empty());
}

static void testMetadataRefused() {
  artifact::Metadata m;
  std::string problem = artifact::parse(
      "attune-model 1\ntargets cpu\nentry f 0 1\noutput o f32 0\nend\n", m);
  EXPECT_CONTAINS(problem, "format version 1");
  EXPECT_CONTAINS(problem, "recompile");
  EXPECT_CONTAINS(artifact::parse("hello", m), "not Attune model metadata");
  EXPECT_CONTAINS(artifact::parse("", m), "not Attune model metadata");
  EXPECT_CONTAINS(artifact::parse(nullptr, m), "no metadata");
  std::string v = "attune-model " + std::to_string(artifact::kFormatVersion);
  EXPECT_CONTAINS(artifact::parse((v + "\ntargets tpu\nend\n").c_str(), m),
                  "target 'tpu'");
  EXPECT_CONTAINS(artifact::parse((v + "\nentry f 1 0\ninput x f99 1 3\nend\n")
                                      .c_str(),
                                  m),
                  "corrupt metadata");
  EXPECT_CONTAINS(
      artifact::parse((v + "\nentry f 1 0\ninput x f32 100 1\nend\n").c_str(),
                      m),
      "corrupt metadata");
  EXPECT_CONTAINS(
      artifact::parse((v + "\nentry f 1 0\ninput x f32 1 -7\nend\n").c_str(),
                      m),
      "corrupt metadata");
  EXPECT_CONTAINS(artifact::parse((v + "\nkernel-subgroup 8\nend\n").c_str(), m),
                  "corrupt metadata");
  EXPECT_CONTAINS(artifact::parse((v + "\nbogus 1\nend\n").c_str(), m),
                  "unknown record 'bogus'");
  EXPECT_CONTAINS(artifact::parse((v + "\ntargets cpu\n").c_str(), m),
                  "no 'end'");
  // Found by fuzzing: a vulkan target without its profile.
  EXPECT_CONTAINS(artifact::parse((v + "\ntargets cpu vulkan\nend\n").c_str(), m),
                  "a vulkan target without a 'vulkan-profile' record");
  EXPECT_CONTAINS(
      artifact::parse((v + "\nentry f 99999999999 0\nend\n").c_str(), m),
      "corrupt metadata");
}

static void testDtypes() {
  for (attune_dtype d : {ATTUNE_F32, ATTUNE_F16, ATTUNE_BF16, ATTUNE_I32,
                         ATTUNE_I64}) {
    const artifact::DtypeInfo *info = artifact::dtypeInfo(d);
    EXPECT(info != nullptr);
    if (!info)
      continue;
    EXPECT(artifact::dtypeNamed(info->name) == info);
    EXPECT(artifact::dtypeOfSafetensors(info->safetensors) == info);
    EXPECT(artifact::safetensorsElementSize(info->safetensors) == info->size);
  }
  EXPECT(artifact::dtypeInfo(static_cast<attune_dtype>(99)) == nullptr);
  EXPECT(artifact::dtypeNamed("f64") == nullptr);
  EXPECT(artifact::safetensorsElementSize("F64") == 8);
  EXPECT(artifact::safetensorsElementSize("F13") == 0);
}

static void testCpuFeatures() {
  // The runtime can test every extension an artifact may record.
  for (const char *feature : artifact::kX86IsaFeatures) {
    ++checks;
    if (!runtime::knowsCpuFeature(feature)) {
      ++failures;
      std::printf("FAILED: the runtime cannot test CPU feature '%s'\n",
                  feature);
    }
  }
  // Every x86-64 CPU has SSE2; no CPU has an unknown feature.
  EXPECT(runtime::hostHasCpuFeature("sse2"));
  EXPECT(runtime::missingCpuFeatures({"sse", "sse2"}).empty());
  EXPECT_CONTAINS(runtime::missingCpuFeatures({"sse2", "warp-drive"}),
                  "warp-drive (unknown to this runtime)");
}

/// A safetensors file: the header's length, the header, then `data`.
static std::string safetensors(const std::string &header,
                               const std::string &data) {
  std::string bytes(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return bytes + header + data;
}

static std::string readError(const std::string &bytes) {
  std::string problem;
  std::unique_ptr<SafetensorsFile> f =
      SafetensorsFile::fromBytes(bytes.data(), bytes.size(), "t", problem);
  return f ? "" : problem;
}

static void testSafetensors() {
  std::string data(24, '\x01');
  std::string good = safetensors(
      R"({"__metadata__": {"format": "pt", "n": [1, {"x": null}]},)"
      R"( "a.w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},)"
      R"( "b\u00e9\n": {"dtype": "F16", "shape": [4], "data_offsets": [16, 24]},)"
      R"( "s": {"dtype": "I64", "shape": [0], "data_offsets": [24, 24]}})",
      data);
  std::string problem;
  std::unique_ptr<SafetensorsFile> f =
      SafetensorsFile::fromBytes(good.data(), good.size(), "t", problem);
  EXPECT(f != nullptr);
  if (f) {
    EXPECT(f->names().size() == 3);
    const SafetensorsTensor *a = f->find("a.w");
    EXPECT(a && a->dtype == "F32" && a->shape == std::vector<int64_t>({2, 2}) &&
           a->bytes == 16 && a->data == good.data() + good.size() - 24);
    EXPECT(f->find("b\xc3\xa9\n") != nullptr);
    EXPECT(f->find("s") && f->find("s")->bytes == 0);
    EXPECT(f->find("missing") == nullptr);
  }
  EXPECT_CONTAINS(readError("abc"), "not a safetensors file");
  EXPECT_CONTAINS(readError(safetensors("{}", "").substr(0, 8) + "{"),
                  "truncated");
  EXPECT_CONTAINS(readError(safetensors("{\"a\": 1}", "")),
                  "entry is not an object");
  EXPECT_CONTAINS(readError(safetensors("[]", "")), "not valid JSON");
  EXPECT_CONTAINS(readError(safetensors("{} x", "")), "trailing");
  EXPECT_CONTAINS(
      readError(safetensors(
          R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},)"
          R"( "a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})",
          std::string(16, '\0'))),
      "appears twice");
  EXPECT_CONTAINS(
      readError(safetensors(
          R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})",
          std::string(8, '\0'))),
      "lie outside the 8-byte data section");
  EXPECT_CONTAINS(
      readError(safetensors(
          R"({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 16]}})",
          std::string(16, '\0'))),
      "16 bytes of data, expected 12");
  EXPECT_CONTAINS(
      readError(safetensors(
          R"({"a": {"dtype": "Q4", "shape": [4], "data_offsets": [0, 2]}})",
          std::string(2, '\0'))),
      "unknown dtype 'Q4'");
  EXPECT_CONTAINS(
      readError(safetensors(R"({"a": {"dtype": "F32", "shape": [4]}})", "")),
      "expected dtype, shape and two data_offsets");
  EXPECT_CONTAINS(
      readError(safetensors(
          R"({"a": {"dtype": "F32", "shape": [-4], "data_offsets": [0, 0]}})",
          "")),
      "invalid shape");
  EXPECT_CONTAINS(
      readError(safetensors(R"({"a": {"dtype": "F32", "shape": )"
                            R"([4611686018427387904, 4611686018427387904],)"
                            R"( "data_offsets": [0, 0]}})",
                            "")),
      "invalid shape");
  EXPECT_CONTAINS(
      readError(safetensors(
          R"({"a": {"dtype": "F32", "shape": [99999999999999999999]}})", "")),
      "not valid JSON");
  // Deep nesting is refused, not a stack overflow.
  std::string deep = "{\"__metadata__\": " + std::string(100000, '[') +
                     std::string(100000, ']') + "}";
  EXPECT_CONTAINS(readError(safetensors(deep, "")), "not valid JSON");
  EXPECT_CONTAINS(readError(safetensors("{\"a\\q\": {}}", "")),
                  "not valid JSON");
  std::string problemOpen;
  EXPECT(!SafetensorsFile::open("/nonexistent/w.safetensors", problemOpen));
  EXPECT_CONTAINS(problemOpen, "cannot read");
}

int main() {
  testMetadataRoundTrip();
  testMetadataRefused();
  testDtypes();
  testCpuFeatures();
  testSafetensors();
  if (failures) {
    std::printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  std::printf("ok: %d checks\n", checks);
  return 0;
}
