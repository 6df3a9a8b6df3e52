//===- Artifact.cpp - the metadata serializer and parser ------------------===//
//
// The metadata grammar, one record per line, fields separated by spaces:
//
//   attune-model VERSION
//   targets [cpu] [vulkan]
//   cpu NAME FEATURES                    FEATURES: a,b,c or - for none
//   vulkan-profile NAME
//   kernel ENTRY SYMBOL BYTES BUFFERS PUSH WX WY WZ WHERE
//   kernel-subgroup N                    (of the kernel before it)
//   vk-global SYMBOL BYTES
//   entry NAME NUM_INPUTS NUM_OUTPUTS    then that many input / output lines
//   input NAME DTYPE RANK DIMS...        (-1: dynamic)
//   state NAME DTYPE RANK DIMS...        (an input written in place)
//   context NAME DTYPE RANK DIMS...      (a step's input from the encoder)
//   output NAME DTYPE RANK DIMS...
//   generation-step                      (the entry before it is one)
//   generation-encoder                   (the entry before it is one)
//   weights-file PATH                    (- : none)
//   weight SYMBOL NAME DTYPE RANK DIMS...
//   weight-f16                           (the weight before it is rounded
//                                         to f16 by the code)
//   weight-prepared                      (only its preparation reads the
//                                         weight before it)
//   prepare-weights SYMBOLS...           (preparation N, the Nth such
//                                         record, reads these weights)
//   end
//
//===----------------------------------------------------------------------===//

#include "attune/artifact.h"

#include <cstring>
#include <sstream>

namespace attune::artifact {

const DtypeInfo *dtypeInfo(attune_dtype dtype) {
  for (const DtypeInfo &d : kDtypes)
    if (d.dtype == dtype)
      return &d;
  return nullptr;
}

const DtypeInfo *dtypeNamed(const std::string &name) {
  for (const DtypeInfo &d : kDtypes)
    if (name == d.name)
      return &d;
  return nullptr;
}

const DtypeInfo *dtypeOfSafetensors(const std::string &name) {
  for (const DtypeInfo &d : kDtypes)
    if (name == d.safetensors)
      return &d;
  return nullptr;
}

size_t safetensorsElementSize(const std::string &name) {
  if (const DtypeInfo *d = dtypeOfSafetensors(name))
    return d->size;
  static const std::pair<const char *, size_t> others[] = {
      {"F64", 8}, {"U64", 8}, {"U32", 4}, {"I16", 2}, {"U16", 2},
      {"I8", 1},  {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
  for (const auto &[n, size] : others)
    if (name == n)
      return size;
  return 0;
}

//===----------------------------------------------------------------------===//
// Serializer
//===----------------------------------------------------------------------===//

namespace {
void tensorLine(std::string &text, const std::string &kind,
                const TensorSpec &t) {
  const DtypeInfo *d = dtypeInfo(t.dtype);
  text += kind + " " + t.name + " " + (d ? d->name : "?") + " " +
          std::to_string(t.shape.size());
  for (int64_t extent : t.shape)
    text += " " + std::to_string(extent);
  text += "\n";
}
} // namespace

std::string serialize(const Metadata &m) {
  std::string text =
      "attune-model " + std::to_string(kFormatVersion) + "\ntargets";
  if (m.hasCpu)
    text += " cpu";
  if (m.hasVulkan)
    text += " vulkan";
  text += "\n";
  if (!m.cpuName.empty()) {
    text += "cpu " + m.cpuName + " ";
    if (m.cpuFeatures.empty())
      text += "-";
    for (size_t i = 0; i < m.cpuFeatures.size(); ++i)
      text += (i ? "," : "") + m.cpuFeatures[i];
    text += "\n";
  }
  if (m.hasVulkan) {
    text += "vulkan-profile " + m.vulkanProfile + "\n";
    for (const KernelSpec &k : m.kernels) {
      text += "kernel " + k.entry + " " + k.symbol + " " +
              std::to_string(k.bytes) + " " + std::to_string(k.buffers) + " " +
              std::to_string(k.pushConstants) + " " +
              std::to_string(k.workgroup[0]) + " " +
              std::to_string(k.workgroup[1]) + " " +
              std::to_string(k.workgroup[2]) + " " + k.where + "\n";
      if (k.subgroup)
        text += "kernel-subgroup " + std::to_string(k.subgroup) + "\n";
    }
    for (const GlobalSpec &g : m.globals)
      text += "vk-global " + g.symbol + " " + std::to_string(g.bytes) + "\n";
  }
  for (const EntrySpec &e : m.entries) {
    text += "entry " + e.name + " " + std::to_string(e.inputs.size()) + " " +
            std::to_string(e.outputs.size()) + "\n";
    for (const TensorSpec &t : e.inputs)
      tensorLine(text, t.state ? "state" : t.context ? "context" : "input", t);
    for (const TensorSpec &t : e.outputs)
      tensorLine(text, "output", t);
    if (e.generationStep)
      text += "generation-step\n";
    if (e.generationEncoder)
      text += "generation-encoder\n";
  }
  if (!m.weights.empty()) {
    text += "weights-file " + m.weightsFile + "\n";
    for (const WeightSpec &w : m.weights) {
      tensorLine(text, "weight " + w.symbol, w.tensor);
      if (w.f16)
        text += "weight-f16\n";
      if (w.preparedOnly)
        text += "weight-prepared\n";
    }
  }
  for (const std::vector<std::string> &symbols : m.preparations) {
    text += "prepare-weights";
    for (const std::string &symbol : symbols)
      text += " " + symbol;
    text += "\n";
  }
  return text + "end\n";
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

namespace {
/// Bounds that no real model reaches; they keep corrupt metadata from
/// asking for absurd allocations.
constexpr size_t kMaxRank = 64;
constexpr size_t kMaxTensorsPerEntry = 1 << 16;

class Parser {
public:
  explicit Parser(const char *text) : in(text) {}

  std::string run(Metadata &m) {
    std::string word;
    int version = 0;
    if (!(in >> word) || word != "attune-model")
      return "not Attune model metadata (expected 'attune-model VERSION')";
    if (!(in >> version))
      return "corrupt metadata: no format version";
    if (version != kFormatVersion)
      return "the artifact has metadata format version " +
             std::to_string(version) + "; this runtime reads version " +
             std::to_string(kFormatVersion) +
             ": recompile the model with this release's attune-compile";
    m.hasCpu = true; // unless a `targets` record says otherwise
    while (in >> word) {
      if (word == "end")
        return complete(m);
      std::string problem = record(word, m);
      if (!problem.empty())
        return problem;
    }
    return "corrupt metadata: no 'end' record";
  }

private:
  std::istringstream in;

  /// What every record together must say (found by fuzzing: a `vulkan`
  /// target without its profile parsed, and serialized to a text that did
  /// not parse back).
  static std::string complete(const Metadata &m) {
    if (m.hasVulkan && m.vulkanProfile.empty())
      return corrupt("a vulkan target without a 'vulkan-profile' record");
    return "";
  }

  static std::string corrupt(const std::string &what) {
    return "corrupt metadata: " + what;
  }

  bool readTensor(TensorSpec &t) {
    std::string dtype;
    size_t rank;
    if (!(in >> t.name >> dtype >> rank) || rank > kMaxRank)
      return false;
    const DtypeInfo *d = dtypeNamed(dtype);
    if (!d)
      return false;
    t.dtype = d->dtype;
    t.shape.resize(rank);
    for (int64_t &extent : t.shape)
      if (!(in >> extent) || extent < -1)
        return false;
    return true;
  }

  std::string record(const std::string &word, Metadata &m) {
    if (word == "targets") {
      std::string line, target;
      std::getline(in, line);
      std::istringstream targets(line);
      m.hasCpu = false;
      while (targets >> target) {
        if (target == "cpu")
          m.hasCpu = true;
        else if (target == "vulkan")
          m.hasVulkan = true;
        else
          return "the model is for target '" + target +
                 "', which this runtime does not know";
      }
      return "";
    }
    if (word == "cpu") {
      std::string features;
      if (!(in >> m.cpuName >> features))
        return corrupt("bad 'cpu' record");
      m.cpuFeatures.clear();
      if (features != "-") {
        std::istringstream list(features);
        std::string feature;
        while (std::getline(list, feature, ','))
          if (!feature.empty())
            m.cpuFeatures.push_back(feature);
      }
      return "";
    }
    if (word == "vulkan-profile")
      return in >> m.vulkanProfile ? "" : corrupt("bad 'vulkan-profile'");
    if (word == "kernel") {
      KernelSpec k;
      if (!(in >> k.entry >> k.symbol >> k.bytes >> k.buffers >>
            k.pushConstants >> k.workgroup[0] >> k.workgroup[1] >>
            k.workgroup[2] >> k.where))
        return corrupt("bad 'kernel' record");
      m.kernels.push_back(std::move(k));
      return "";
    }
    if (word == "kernel-subgroup") {
      if (m.kernels.empty() || !(in >> m.kernels.back().subgroup))
        return corrupt("bad 'kernel-subgroup' record");
      return "";
    }
    if (word == "vk-global") {
      GlobalSpec g;
      if (!(in >> g.symbol >> g.bytes))
        return corrupt("bad 'vk-global' record");
      m.globals.push_back(std::move(g));
      return "";
    }
    if (word == "entry") {
      EntrySpec e;
      size_t numIn, numOut;
      if (!(in >> e.name >> numIn >> numOut) || numIn > kMaxTensorsPerEntry ||
          numOut > kMaxTensorsPerEntry)
        return corrupt("bad 'entry' record");
      for (size_t i = 0; i < numIn + numOut; ++i) {
        std::string kind;
        TensorSpec t;
        bool isInput = i < numIn;
        if (!(in >> kind) ||
            (isInput ? kind != "input" && kind != "state" && kind != "context"
                     : kind != "output") ||
            !readTensor(t))
          return corrupt("bad tensor record for entry '" + e.name + "'");
        t.state = kind == "state";
        t.context = kind == "context";
        (i < numIn ? e.inputs : e.outputs).push_back(std::move(t));
      }
      m.entries.push_back(std::move(e));
      return "";
    }
    if (word == "generation-step" || word == "generation-encoder") {
      bool step = word == "generation-step";
      if (m.entries.empty() || m.entries.back().generationStep ||
          m.entries.back().generationEncoder)
        return corrupt("a '" + word + "' record without its entry");
      (step ? m.entries.back().generationStep
            : m.entries.back().generationEncoder) = true;
      return "";
    }
    if (word == "weights-file")
      return in >> m.weightsFile ? "" : corrupt("bad 'weights-file' record");
    if (word == "weight") {
      WeightSpec w;
      if (!(in >> w.symbol) || !readTensor(w.tensor))
        return corrupt("bad 'weight' record");
      m.weights.push_back(std::move(w));
      return "";
    }
    if (word == "weight-f16") {
      if (m.weights.empty() || m.weights.back().f16)
        return corrupt("a 'weight-f16' record without its weight");
      m.weights.back().f16 = true;
      return "";
    }
    if (word == "weight-prepared") {
      if (m.weights.empty() || m.weights.back().preparedOnly)
        return corrupt("a 'weight-prepared' record without its weight");
      m.weights.back().preparedOnly = true;
      return "";
    }
    if (word == "prepare-weights") {
      std::vector<std::string> symbols;
      std::string line, symbol;
      std::getline(in, line);
      std::istringstream list(line);
      while (list >> symbol) {
        bool known = false, taken = false;
        for (const WeightSpec &w : m.weights)
          known |= w.symbol == symbol;
        for (const std::vector<std::string> &p : m.preparations)
          for (const std::string &s : p)
            taken |= s == symbol;
        for (const std::string &s : symbols)
          taken |= s == symbol;
        if (!known || taken)
          return corrupt("a 'prepare-weights' record names " +
                         std::string(known ? "again" : "no") + " weight '" +
                         symbol + "'");
        symbols.push_back(symbol);
      }
      if (symbols.empty())
        return corrupt("a 'prepare-weights' record without weights");
      m.preparations.push_back(std::move(symbols));
      return "";
    }
    return corrupt("unknown record '" + word + "'");
  }
};
} // namespace

std::string parse(const char *text, Metadata &out) {
  if (!text)
    return "no metadata";
  out = Metadata();
  return Parser(text).run(out);
}

} // namespace attune::artifact
