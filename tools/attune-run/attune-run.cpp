//===- attune-run.cpp - run a compiled model on .npy inputs ---------------===//
//
//   attune-run MODEL.so --input NAME=FILE.npy ... [--output-dir DIR]
//              [--entry NAME] [--bench N] [--expect NAME=FILE.npy ...]
//              [--atol X] [--rtol X] [--info]
//
// Uses only the runtime's C++ wrapper: no MLIR, no LLVM.
//
//===----------------------------------------------------------------------===//

#include "attune/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "attune-run: error: %s\n", message.c_str());
  return 1;
}

void usage() {
  std::printf(
      "usage: attune-run MODEL.so [options]\n"
      "  --input NAME=FILE.npy   an input of the entry point (repeat for each)\n"
      "  --output-dir DIR        write each output as DIR/NAME.npy\n"
      "  --entry NAME            the entry point (default: the first)\n"
      "  --weights FILE          weights of a model compiled with --weights-external\n"
      "                          (default: the file recorded at compile time)\n"
      "  --bench N               warm up, then time N runs; print min/median\n"
      "  --threads N             worker threads for the kernels (default: OpenMP's,\n"
      "                          i.e. OMP_NUM_THREADS or every core)\n"
      "  --expect NAME=FILE.npy  compare an output with reference data\n"
      "  --atol X, --rtol X      tolerance for --expect: |a - e| <= atol + rtol*|e|\n"
      "                          (default atol 1e-4, rtol 0)\n"
      "  --info                  print the entry points and their signatures\n");
}

std::string shapeString(const int64_t *shape, size_t rank) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i)
    s += (i ? ", " : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return s + "]";
}

std::string signature(const attune_tensor_info &info) {
  return std::string(info.name) + ": " + attune_dtype_name(info.dtype) +
         shapeString(info.shape, info.rank);
}

float halfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  float value;
  if (exp == 0)
    value = std::ldexp(static_cast<float>(frac), -24);
  else if (exp == 31)
    value = frac ? NAN : INFINITY;
  else
    value = std::ldexp(static_cast<float>(frac | 0x400), static_cast<int>(exp) - 25);
  return sign ? -value : value;
}

/// Element `i` of `t` as double.
double element(const attune::Tensor &t, size_t i) {
  switch (t.dtype()) {
  case ATTUNE_F32:
    return t.data<float>()[i];
  case ATTUNE_F16:
    return halfToFloat(t.data<uint16_t>()[i]);
  case ATTUNE_BF16: {
    uint32_t bits = static_cast<uint32_t>(t.data<uint16_t>()[i]) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case ATTUNE_I32:
    return t.data<int32_t>()[i];
  case ATTUNE_I64:
    return static_cast<double>(t.data<int64_t>()[i]);
  }
  return 0;
}

std::string summary(const std::string &name, const attune::Tensor &t) {
  std::vector<int64_t> shape = t.shape();
  char buffer[256];
  size_t n = t.size();
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  size_t nonFinite = 0;
  for (size_t i = 0; i < n; ++i) {
    double v = element(t, i);
    if (!std::isfinite(v)) {
      ++nonFinite;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  std::string s = name + ": " + attune_dtype_name(t.dtype()) +
                  shapeString(shape.data(), shape.size());
  if (n > nonFinite) {
    std::snprintf(buffer, sizeof(buffer), " min=%.6g max=%.6g mean=%.6g", lo,
                  hi, sum / static_cast<double>(n - nonFinite));
    s += buffer;
  }
  if (nonFinite)
    s += " non-finite=" + std::to_string(nonFinite);
  return s;
}

bool splitAssignment(const std::string &arg, std::string &name,
                     std::string &path) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    return false;
  name = arg.substr(0, eq);
  path = arg.substr(eq + 1);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::string modelPath, outputDir, entryName, weightsPath;
  std::vector<std::pair<std::string, std::string>> inputArgs, expectArgs;
  long benchRuns = 0, threads = 0;
  double atol = 1e-4, rtol = 0.0;
  bool info = false;

  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "attune-run: error: %s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++i];
    };
    auto number = [&](const char *flag, double &out) {
      const char *v = value(flag);
      char *end;
      out = std::strtod(v, &end);
      if (*end || end == v || !(out >= 0)) {
        std::fprintf(stderr, "attune-run: error: %s expects a non-negative "
                             "number, got '%s'\n", flag, v);
        std::exit(2);
      }
    };
    std::string name, path;
    if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (a == "--input" || a == "--expect") {
      const char *v = value(a.c_str());
      if (!splitAssignment(v, name, path))
        return fail(a + " expects NAME=FILE.npy, got '" + v + "'");
      (a == "--input" ? inputArgs : expectArgs).push_back({name, path});
    } else if (a == "--output-dir") {
      outputDir = value("--output-dir");
    } else if (a == "--weights") {
      weightsPath = value("--weights");
    } else if (a == "--entry") {
      entryName = value("--entry");
    } else if (a == "--bench") {
      const char *v = value("--bench");
      char *end;
      benchRuns = std::strtol(v, &end, 10);
      if (*end || benchRuns < 1)
        return fail(std::string("--bench expects a positive count, got '") + v + "'");
    } else if (a == "--threads") {
      const char *v = value("--threads");
      char *end;
      threads = std::strtol(v, &end, 10);
      if (*end || threads < 1 || threads > 1024)
        return fail(std::string("--threads expects a count in [1, 1024], got '") + v + "'");
    } else if (a == "--atol") {
      number("--atol", atol);
    } else if (a == "--rtol") {
      number("--rtol", rtol);
    } else if (a == "--info") {
      info = true;
    } else if (!a.empty() && a[0] == '-') {
      usage();
      return fail("unknown option '" + a + "'");
    } else if (modelPath.empty()) {
      modelPath = a;
    } else {
      return fail("unexpected argument '" + a + "' (one model per run)");
    }
  }
  if (modelPath.empty()) {
    usage();
    return fail("no model given");
  }

  attune::Model model;
  if (attune::Status s = attune::Model::open(modelPath, model, weightsPath); !s)
    return fail(s.message());
  if (threads > 0)
    if (attune::Status s = model.setNumThreads(static_cast<int>(threads)); !s)
      return fail(s.message());
  size_t entry = 0;
  if (!entryName.empty())
    if (attune::Status s = model.findEntry(entryName, entry); !s)
      return fail(s.message());
  if (info) {
    for (size_t e = 0; e < model.numEntries(); ++e) {
      std::printf("entry %s\n", model.entryName(e).c_str());
      for (const attune_tensor_info &t : model.inputs(e))
        std::printf("  input  %s\n", signature(t).c_str());
      for (const attune_tensor_info &t : model.outputs(e))
        std::printf("  output %s\n", signature(t).c_str());
    }
    if (inputArgs.empty())
      return 0;
  }

  // Inputs, by name, in the entry's order.
  std::vector<attune_tensor_info> specs = model.inputs(entry);
  std::map<std::string, std::string> given;
  for (auto &[name, path] : inputArgs) {
    bool known = std::any_of(specs.begin(), specs.end(), [&](auto &s) {
      return name == s.name;
    });
    if (!known) {
      std::string names;
      for (auto &s : specs)
        names += (names.empty() ? "" : ", ") + signature(s);
      return fail("unknown input '" + name + "'; the entry '" +
                  model.entryName(entry) + "' takes " + names);
    }
    if (!given.emplace(name, path).second)
      return fail("input '" + name + "' given twice");
  }
  std::vector<attune::Tensor> inputs(specs.size());
  std::vector<const attune::Tensor *> inputPtrs;
  for (size_t i = 0; i < specs.size(); ++i) {
    auto it = given.find(specs[i].name);
    if (it == given.end())
      return fail("missing input '" + signature(specs[i]) + "' (--input " +
                  specs[i].name + "=FILE.npy)");
    if (attune::Status s = attune::Tensor::readNpy(it->second, inputs[i]); !s)
      return fail("input '" + std::string(specs[i].name) + "': " + s.message());
    inputPtrs.push_back(&inputs[i]);
  }

  std::vector<attune::Tensor> outputs;
  if (attune::Status s = model.run(inputPtrs, outputs, entry); !s)
    return fail(s.message());

  std::vector<attune_tensor_info> outSpecs = model.outputs(entry);
  for (size_t o = 0; o < outputs.size(); ++o) {
    std::printf("%s\n", summary(outSpecs[o].name, outputs[o]).c_str());
    if (!outputDir.empty()) {
      std::string path = outputDir + "/" + outSpecs[o].name + ".npy";
      if (attune::Status s = outputs[o].writeNpy(path); !s)
        return fail(s.message());
    }
  }

  // Comparison with reference data.
  bool mismatch = false;
  for (auto &[name, path] : expectArgs) {
    size_t o = 0;
    while (o < outSpecs.size() && name != outSpecs[o].name)
      ++o;
    if (o == outSpecs.size())
      return fail("--expect names unknown output '" + name + "'");
    attune::Tensor expected;
    if (attune::Status s = attune::Tensor::readNpy(path, expected); !s)
      return fail("expected '" + name + "': " + s.message());
    std::vector<int64_t> es = expected.shape(), as = outputs[o].shape();
    if (es != as) {
      std::printf("%s: FAIL shape %s, expected %s\n", name.c_str(),
                  shapeString(as.data(), as.size()).c_str(),
                  shapeString(es.data(), es.size()).c_str());
      mismatch = true;
      continue;
    }
    double worst = 0, worstExcess = -INFINITY;
    size_t bad = 0, worstAt = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      double a = element(outputs[o], i), e = element(expected, i);
      double err = std::fabs(a - e);
      bool same = (std::isnan(a) && std::isnan(e)) || a == e;
      if (!same && !(err <= atol + rtol * std::fabs(e))) {
        ++bad;
        if (std::isnan(err) || err - (atol + rtol * std::fabs(e)) > worstExcess) {
          worstExcess = std::isnan(err) ? INFINITY : err - (atol + rtol * std::fabs(e));
          worstAt = i;
        }
      }
      if (!same)
        worst = std::max(worst, std::isnan(err) ? INFINITY : err);
    }
    std::printf("%s: max |err| = %.3g (atol %.1e, rtol %.1e) %s", name.c_str(),
                worst, atol, rtol, bad ? "FAIL" : "ok");
    if (bad)
      std::printf(": %zu element(s) outside, e.g. #%zu = %.8g, expected %.8g",
                  bad, worstAt, element(outputs[o], worstAt),
                  element(expected, worstAt));
    std::printf("\n");
    mismatch |= bad != 0;
  }

  if (benchRuns > 0) {
    using Clock = std::chrono::steady_clock;
    std::vector<double> times;
    long warmup = std::max(2L, benchRuns / 10);
    for (long r = 0; r < warmup + benchRuns; ++r) {
      auto start = Clock::now();
      if (attune::Status s = model.run(inputPtrs, outputs, entry); !s)
        return fail(s.message());
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      if (r >= warmup)
        times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    std::printf("latency: min %.4f ms, median %.4f ms over %ld runs (%ld warm-up)%s\n",
                times.front(), times[times.size() / 2], benchRuns, warmup,
                threads > 0 ? (", " + std::to_string(threads) + " thread(s)").c_str() : "");
  }
  return mismatch ? 1 : 0;
}
