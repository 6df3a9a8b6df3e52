//===- attune-run.cpp - run a compiled model on .npy inputs ---------------===//
//
//   attune-run MODEL.so --input NAME=FILE.npy ... [--output-dir DIR]
//              [--entry NAME] [--bench N] [--expect NAME=FILE.npy ...]
//              [--atol X] [--rtol X] [--info] [--device=cpu|vulkan[:N]|auto]
//              [--compare=cpu,vulkan] [--profile] [--list-devices]
//   attune-run MODEL.so --generate --input TOKENS=PROMPT.npy
//              [--input LENGTHS=FILE.npy] [--max-new-tokens N] [--eos ID]
//              [--pad ID] [--temperature T --top-k K --seed S] [--vocab FILE]
//              [--output-dir DIR] [--save-logits] [--force FILE.npy]
//   attune-run MODEL.so --input ... --attention-maps DIR [--tokens SPEC]
//              [--vocab FILE]
//
// Uses only the runtime's C++ wrapper: no MLIR, no LLVM.
//
//===----------------------------------------------------------------------===//

#include "attune/artifact.h"
#include "attune/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "attune-run: error: %s\n", message.c_str());
  return 1;
}

void usage() {
  std::printf(
      "usage: attune-run MODEL.so [options]\n"
      "  --input NAME=FILE.npy   an input of the entry point (repeat for "
      "each)\n"
      "  --output-dir DIR        write each output as DIR/NAME.npy\n"
      "  --entry NAME            the entry point (default: the first)\n"
      "  --weights FILE          weights of a model compiled with "
      "--weights-external\n"
      "                          (default: the file recorded at compile time)\n"
      "  --bench N               warm up, then time N runs; print min/median\n"
      "                          (with --generate: N more generations)\n"
      "  --threads N             worker threads for the kernels (default: "
      "OpenMP's,\n"
      "                          i.e. OMP_NUM_THREADS or every core)\n"
      "  --expect NAME=FILE.npy  compare an output with reference data\n"
      "  --atol X, --rtol X      tolerance for --expect: |a - e| <= atol + "
      "rtol*|e|\n"
      "                          (default atol 1e-4, rtol 0)\n"
      "  --info                  print what the model was compiled for "
      "(targets,\n"
      "                          CPU and ISA extensions, Vulkan profile) and "
      "its\n"
      "                          entry points; needs no device\n"
      "  --device=D              cpu (default), vulkan, vulkan:N, vulkan:NAME, "
      "or auto\n"
      "                          (Vulkan if a device opens, else the CPU)\n"
      "  --compare=D1,D2         run on both devices in one process and print "
      "the\n"
      "                          largest difference per output (fails beyond "
      "atol/rtol)\n"
      "  --profile               print per-kernel GPU times (Vulkan timestamp "
      "queries)\n"
      "  --list-devices          print the Vulkan devices and exit\n"
      "attention maps (a model compiled with --attention-maps):\n"
      "  --attention-maps DIR    draw each attention's weights as PNG heatmaps "
      "in DIR\n"
      "                          (per head and the head average; "
      "python3-matplotlib)\n"
      "  --tokens SPEC           label the axes with token ids ([B, L] "
      "integers):\n"
      "                          SRC (both axes) or queries=SRC,keys=SRC, each "
      "SRC an\n"
      "                          input's name or a .npy file\n"
      "  --vocab FILE            show the ids as the strings of FILE (one per "
      "line,\n"
      "                          line number = id)\n"
      "generation (a model with a generation step):\n"
      "  --generate              decode from the prompts given as the step's "
      "token\n"
      "                          input ([B, T] int64; its lengths input [B] "
      "optional)\n"
      "  --max-new-tokens N      at most N new tokens per sequence (default "
      "16)\n"
      "  --bos ID                the prompt, if none is given: ID per sequence "
      "(an\n"
      "                          encoder-decoder's <bos>; its source goes to "
      "the\n"
      "                          encoder as --input NAME=FILE.npy)\n"
      "  --eos ID[,ID...]        a sequence ends after one of these "
      "(repeatable)\n"
      "  --pad ID                fills a sequence's row after its end (default "
      "0)\n"
      "  --temperature T         sample from softmax(logits / T) (default 0: "
      "greedy)\n"
      "  --top-k K               sample among the K most probable (1: greedy)\n"
      "  --seed S                the sampling seed (default 0)\n"
      "  --beam K                beam search with K beams\n"
      "  --length-penalty A      beam search: scores are logprob / ((5 + len) "
      "/ 6)^A\n"
      "                          (GNMT; default 1, 0: the plain log "
      "probability)\n"
      "  --n-best N              beam search: print (and write) the N best\n"
      "  --capacity C            cache positions of a model with a run-time "
      "capacity\n"
      "  --vocab FILE            print tokens as the strings of FILE (one per "
      "line)\n"
      "  --force FILE.npy        teacher forcing: feed these tokens [B, N] "
      "instead\n"
      "  --save-logits           with --output-dir: also write logits.npy [B, "
      "N, V]\n"
      "  --output-dir DIR        write the new tokens as DIR/tokens.npy [B, "
      "N]\n");
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

/// Element `i` of `t` as double.
double element(const attune::Tensor &t, size_t i) {
  switch (t.dtype()) {
  case ATTUNE_F32:
    return t.data<float>()[i];
  case ATTUNE_F16:
    return attune::artifact::halfToFloat(t.data<uint16_t>()[i]);
  case ATTUNE_BF16:
    return attune::artifact::bf16ToFloat(t.data<uint16_t>()[i]);
  case ATTUNE_I32:
    return t.data<int32_t>()[i];
  case ATTUNE_I64:
    return static_cast<double>(t.data<int64_t>()[i]);
  case ATTUNE_BOOL:
    return t.data<uint8_t>()[i];
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

/// Draws the attention maps among `outputs` (named attn.*, written as .npy
/// into `dir`) as PNG heatmaps: scripts/attention_heatmap.py under Debian's
/// python3 (ATTUNE_PYTHON and ATTUNE_HEATMAP_SCRIPT override both).
/// `queryTokens` and `keyTokens` are .npy files of token ids, or "".
int drawAttentionMaps(const std::string &dir,
                      const std::vector<std::string> &names,
                      const std::vector<attune::Tensor> &outputs,
                      const std::string &queryTokens,
                      const std::string &keyTokens, const std::string &vocab) {
  const char *python = std::getenv("ATTUNE_PYTHON");
  const char *script = std::getenv("ATTUNE_HEATMAP_SCRIPT");
  std::vector<std::string> args = {python ? python : "/usr/bin/python3",
                                   script ? script : ATTUNE_HEATMAP_SCRIPT,
                                   "--dir", dir};
  if (!queryTokens.empty())
    args.insert(args.end(), {"--query-tokens", queryTokens});
  if (!keyTokens.empty())
    args.insert(args.end(), {"--key-tokens", keyTokens});
  if (!vocab.empty())
    args.insert(args.end(), {"--vocab", vocab});
  size_t maps = 0;
  const std::string prefix = attune::artifact::kAttentionMapPrefix;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const std::string &name = names[o];
    if (name.rfind(prefix, 0) != 0)
      continue;
    if (attune::Status s = outputs[o].writeNpy(dir + "/" + name + ".npy"); !s)
      return fail(s.message());
    args.push_back(name);
    ++maps;
  }
  if (maps == 0)
    return fail("--attention-maps: the model returns no attention weights "
                "(compile it with attune-compile --attention-maps)");
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0)
    return fail("--attention-maps: cannot start " + args[0]);
  if (pid == 0) {
    std::vector<char *> argv;
    for (std::string &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "attune-run: error: --attention-maps: cannot run %s\n",
                 argv[0]);
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return fail("--attention-maps: " + args[1] + " failed");
  return 0;
}

/// --tokens SPEC (SRC, or queries=SRC,keys=SRC; SRC an input's name in
/// `given` or a .npy file) as the .npy files of the query and key token
/// ids ("" where not given); false with `error` set on a bad SPEC.
bool resolveTokens(const std::string &spec,
                   const std::map<std::string, std::string> &given,
                   std::string &queryTokens, std::string &keyTokens,
                   std::string &error) {
  std::string rest = spec;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string part = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    std::string axis, input = part;
    if (size_t eq = part.find('='); eq != std::string::npos) {
      axis = part.substr(0, eq);
      input = part.substr(eq + 1);
      if (axis != "queries" && axis != "keys") {
        error =
            "--tokens expects SRC or queries=SRC,keys=SRC, got '" + spec + "'";
        return false;
      }
    }
    // An input's file, or a .npy file of its own.
    auto it = given.find(input);
    std::string file = it != given.end() ? it->second : input;
    if (it == given.end() &&
        (file.size() < 4 || file.substr(file.size() - 4) != ".npy" ||
         !std::filesystem::is_regular_file(file))) {
      error = "--tokens names '" + input +
              "', which is neither an input given with --input nor a .npy "
              "file";
      return false;
    }
    if (axis != "keys")
      queryTokens = file;
    if (axis != "queries")
      keyTokens = file;
  }
  return true;
}

/// Compares `actual` with `expected` element-wise; prints one line.
bool compare(const std::string &name, const attune::Tensor &actual,
             const attune::Tensor &expected, double atol, double rtol,
             const std::string &what) {
  std::vector<int64_t> es = expected.shape(), as = actual.shape();
  if (es != as) {
    std::printf("%s: FAIL shape %s, %s %s\n", name.c_str(),
                shapeString(as.data(), as.size()).c_str(), what.c_str(),
                shapeString(es.data(), es.size()).c_str());
    return false;
  }
  double worst = 0, worstExcess = -INFINITY;
  size_t bad = 0, worstAt = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    double a = element(actual, i), e = element(expected, i);
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
    std::printf(": %zu element(s) outside, e.g. #%zu = %.8g, %s %.8g", bad,
                worstAt, element(actual, worstAt), what.c_str(),
                element(expected, worstAt));
  std::printf("\n");
  return bad == 0;
}

namespace {

struct GenerateArgs {
  attune_generate_options options;
  std::vector<int64_t> eos;
  int64_t bos = -1; // the prompt when none is given: <bos> per sequence
  std::string vocabPath, forcePath;
  bool saveLogits = false;
};

/// Parses an integer option value.
bool parseCount(const char *v, long long &out) {
  char *end;
  out = std::strtoll(v, &end, 10);
  return *v && !*end;
}

/// --generate: attune_model_generate on the prompts, streaming the tokens
/// of a single sequence as they come, then each sequence's tokens, the
/// throughput and the per-token latency; with `benchRuns`, that many more
/// generations of the same prompts, timed.
int generate(attune::Model &model,
             const std::vector<std::pair<std::string, std::string>> &inputArgs,
             GenerateArgs &g, const std::string &outputDir,
             const std::string &mapsDir, const std::string &tokenSpec,
             long benchRuns) {
  size_t step = model.numEntries();
  for (size_t e = 0; e < model.numEntries(); ++e)
    if (attune_model_entry_is_generation_step(model.get(), e)) {
      step = e;
      break;
    }
  if (step == model.numEntries())
    return fail("--generate: the model has no generation step (a function "
                "marked attune.generation_step); its entries run without "
                "--generate");
  std::vector<attune_tensor_info> specs = model.inputs(step);
  std::string tokensName = specs[0].name, lengthsName = specs[2].name;
  // An encoder-decoder's encoder inputs (the source), by name.
  std::vector<attune_tensor_info> encoderSpecs;
  for (size_t e = 0; e < model.numEntries(); ++e)
    if (attune_model_entry_is_generation_encoder(model.get(), e))
      encoderSpecs = model.inputs(e);
  std::vector<attune::Tensor> encoderInputs(encoderSpecs.size());
  attune::Tensor prompt, lengths, forced;
  for (auto &[name, path] : inputArgs) {
    attune::Tensor *target = name == tokensName    ? &prompt
                             : name == lengthsName ? &lengths
                                                   : nullptr;
    for (size_t i = 0; i < encoderSpecs.size(); ++i)
      if (name == encoderSpecs[i].name)
        target = &encoderInputs[i];
    if (!target) {
      std::string encoderNames;
      for (const attune_tensor_info &e : encoderSpecs)
        encoderNames += std::string(", the encoder's ") + e.name;
      return fail("--generate takes the prompt as --input " + tokensName +
                  "=FILE.npy and optionally its lengths as --input " +
                  lengthsName + "=FILE.npy" + encoderNames + "; got '" +
                  name + "'");
    }
    if (attune::Status s = attune::Tensor::readNpy(path, *target); !s)
      return fail("input '" + name + "': " + s.message());
  }
  for (size_t i = 0; i < encoderSpecs.size(); ++i)
    if (!encoderInputs[i])
      return fail("--generate needs the encoder's input '" +
                  signature(encoderSpecs[i]) + "' (--input " +
                  encoderSpecs[i].name + "=FILE.npy)");
  if (!prompt && g.bos >= 0) {
    // <bos> for every sequence (as many as the encoder's first input has).
    int64_t batch = encoderInputs.empty() ? 1 : encoderInputs[0].shape()[0];
    std::vector<int64_t> shape = {batch, 1};
    if (attune::Status s = attune::Tensor::create(ATTUNE_I64, shape, prompt); !s)
      return fail(s.message());
    std::fill_n(prompt.data<int64_t>(), batch, g.bos);
  }
  if (!prompt)
    return fail("--generate needs the prompt: --input " + tokensName +
                "=FILE.npy (int64 [B, T]) or a start token (--bos ID)");
  std::vector<const attune_tensor *> encoderPtrs;
  for (attune::Tensor &t : encoderInputs)
    encoderPtrs.push_back(t.get());
  g.options.encoder_inputs = encoderPtrs.data();
  g.options.num_encoder_inputs = encoderPtrs.size();
  if (!g.forcePath.empty()) {
    if (attune::Status s = attune::Tensor::readNpy(g.forcePath, forced); !s)
      return fail("--force: " + s.message());
    g.options.forced = forced.get();
  }
  std::vector<std::string> vocab;
  if (!g.vocabPath.empty()) {
    FILE *f = std::fopen(g.vocabPath.c_str(), "r");
    if (!f)
      return fail("--vocab " + g.vocabPath + ": cannot open it");
    char line[4096];
    while (std::fgets(line, sizeof line, f)) {
      std::string word = line;
      while (!word.empty() && (word.back() == '\n' || word.back() == '\r'))
        word.pop_back();
      vocab.push_back(word);
    }
    std::fclose(f);
  }
  g.options.eos_ids = g.eos.data();
  g.options.num_eos = g.eos.size();
  // --attention-maps: the step's outputs after the logits, per new token.
  std::vector<std::string> mapNames;
  std::vector<attune_tensor *> mapSlots;
  std::string queryTokens, keyTokens;
  if (!mapsDir.empty()) {
    if (benchRuns > 0)
      return fail("--bench with --generate times generations without "
                  "--attention-maps");
    for (const attune_tensor_info &o : model.outputs(step))
      if (std::string(o.name).rfind(attune::artifact::kAttentionMapPrefix, 0) ==
          0)
        mapNames.push_back(o.name);
    if (mapNames.empty())
      return fail("--attention-maps: the generation step returns no "
                  "attention weights (compile it with attune-compile "
                  "--attention-maps)");
    mapSlots.assign(mapNames.size(), nullptr);
    g.options.attention_maps = mapSlots.data();
    g.options.num_attention_maps = mapSlots.size();
    std::map<std::string, std::string> given(inputArgs.begin(),
                                             inputArgs.end());
    std::string error;
    if (!resolveTokens(tokenSpec, given, queryTokens, keyTokens, error))
      return fail(error);
  }

  // Streaming: a single sequence's tokens as they are chosen; the time of
  // every step (its first token) for the latency.
  using Clock = std::chrono::steady_clock;
  struct Stream {
    bool print;
    const std::vector<std::string> *vocab;
    std::vector<Clock::time_point> stepTimes;
    std::string spell(int64_t token) const {
      if (token >= 0 && static_cast<size_t>(token) < vocab->size())
        return (*vocab)[token];
      return std::to_string(token);
    }
  } stream{prompt.shape()[0] == 1, &vocab, {}};
  g.options.user = &stream;
  g.options.on_token = [](void *user, size_t sequence, size_t step,
                          int64_t token) {
    auto *st = static_cast<Stream *>(user);
    if (step >= st->stepTimes.size())
      st->stepTimes.push_back(Clock::now());
    if (st->print && sequence == 0) {
      std::printf("%s%s", step ? " " : "tokens: ", st->spell(token).c_str());
      std::fflush(stdout);
    }
    return 0;
  };
  // Beam search's tokens are known at the end only.
  bool beam = g.options.beam_width > 1;
  stream.print &= !beam;
  attune::Tensor tokens, scores, logits;
  auto start = Clock::now();
  attune::Status s = model.generate(prompt, lengths, g.options, tokens, &scores,
                                    g.saveLogits ? &logits : nullptr);
  auto end = Clock::now();
  if (stream.print && !stream.stepTimes.empty())
    std::printf("\n");
  std::vector<attune::Tensor> maps;
  for (attune_tensor *t : mapSlots)
    maps.emplace_back(t);
  if (!s)
    return fail(s.message());
  // [B, N], or [B, R, N] for the R best hypotheses of beam search.
  std::vector<int64_t> shape = tokens.shape();
  int64_t hypotheses = shape.size() == 3 ? shape[1] : 1;
  int64_t width = shape.back();
  const int64_t *ids = tokens.data<int64_t>();
  const float *rowScores = scores.data<float>();
  size_t produced = 0;
  for (int64_t b = 0; b < shape[0]; ++b)
    for (int64_t n = 0; n < hypotheses; ++n) {
      const int64_t *row = ids + (b * hypotheses + n) * width;
      std::string text;
      for (int64_t t = 0; t < width; ++t) {
        text += (t ? " " : "") + stream.spell(row[t]);
        if (n == 0)
          ++produced;
        // A row ends at its eos; the pad ids after it are not tokens.
        if (std::find(g.eos.begin(), g.eos.end(), row[t]) != g.eos.end())
          break;
      }
      if (stream.print)
        continue;
      std::printf("sequence %lld", static_cast<long long>(b));
      if (hypotheses > 1)
        std::printf(", hypothesis %lld", static_cast<long long>(n));
      std::printf(" (score %.4f): %s\n", rowScores[b * hypotheses + n],
                  text.c_str());
    }
  double total = std::chrono::duration<double, std::milli>(end - start).count();
  std::printf("generated %zu token(s) in %.2f ms: %.1f tokens/s", produced,
              total, produced / (total / 1000.0));
  // The first token's time (the prefill) and the mean time per step after
  // it, in ms, of a generation that began at `begin`.
  auto ms = [](Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  auto prefillMs = [&](Clock::time_point begin) {
    return ms(stream.stepTimes[0] - begin);
  };
  auto stepMs = [&] {
    const auto &at = stream.stepTimes;
    return ms(at.back() - at[0]) / static_cast<double>(at.size() - 1);
  };
  if (stream.stepTimes.size() >= 2)
    std::printf("; first token %.2f ms (prefill), then %.3f ms per step",
                prefillMs(start), stepMs());
  std::printf("\n");
  if (benchRuns > 0) {
    // The same generation again: the first ran on a fresh process (its
    // buffers faulted in); these reuse them, as a server's requests do.
    std::vector<double> prefills, steps;
    stream.print = false;
    for (long r = 0; r < benchRuns; ++r) {
      stream.stepTimes.clear();
      attune::Tensor again;
      auto begin = Clock::now();
      if (attune::Status s = model.generate(prompt, lengths, g.options, again);
          !s)
        return fail(s.message());
      if (stream.stepTimes.empty())
        continue;
      prefills.push_back(prefillMs(begin));
      if (stream.stepTimes.size() >= 2)
        steps.push_back(stepMs());
    }
    std::sort(prefills.begin(), prefills.end());
    std::sort(steps.begin(), steps.end());
    if (!prefills.empty())
      std::printf("then %ld generation(s): first token min %.2f ms, median "
                  "%.2f ms",
                  benchRuns, prefills.front(), prefills[prefills.size() / 2]);
    if (!steps.empty())
      std::printf("; per step min %.3f ms, median %.3f ms", steps.front(),
                  steps[steps.size() / 2]);
    std::printf("\n");
  }
  if (!outputDir.empty()) {
    if (attune::Status w = tokens.writeNpy(outputDir + "/tokens.npy"); !w)
      return fail(w.message());
    if (attune::Status w = scores.writeNpy(outputDir + "/scores.npy"); !w)
      return fail(w.message());
    if (logits)
      if (attune::Status w = logits.writeNpy(outputDir + "/logits.npy"); !w)
        return fail(w.message());
  }
  if (!mapsDir.empty()) {
    // Rows: the new tokens (each chosen by its step's query), unless
    // --tokens says otherwise.
    std::string chosen = mapsDir + "/tokens.npy";
    if (attune::Status w = tokens.writeNpy(chosen); !w)
      return fail(w.message());
    return drawAttentionMaps(mapsDir, mapNames, maps,
                             queryTokens.empty() ? chosen : queryTokens,
                             keyTokens, g.vocabPath);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string modelPath, outputDir, entryName, weightsPath, mapsDir, tokenSpec;
  std::vector<std::pair<std::string, std::string>> inputArgs, expectArgs;
  long benchRuns = 0, threads = 0;
  double atol = 1e-4, rtol = 0.0;
  bool info = false, profile = false, listDevices = false;
  std::vector<std::string> deviceSpecs;
  bool comparing = false;
  bool generating = false;
  GenerateArgs gen;
  attune_generate_options_init(&gen.options);
  gen.options.pad_id = 0;

  // --flag=value is --flag value.
  std::vector<std::string> argList = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    size_t eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos &&
        a.substr(0, eq) != "--input" && a.substr(0, eq) != "--expect") {
      argList.push_back(a.substr(0, eq));
      argList.push_back(a.substr(eq + 1));
    } else {
      argList.push_back(a);
    }
  }
  std::vector<char *> argPtrs;
  for (std::string &a : argList)
    argPtrs.push_back(a.data());
  argc = (int)argPtrs.size();
  argv = argPtrs.data();

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
    } else if (a == "--attention-maps") {
      mapsDir = value("--attention-maps");
    } else if (a == "--tokens") {
      tokenSpec = value("--tokens");
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
    } else if (a == "--generate") {
      generating = true;
    } else if (a == "--max-new-tokens" || a == "--pad" || a == "--top-k" ||
               a == "--seed" || a == "--beam" || a == "--capacity" ||
               a == "--n-best" || a == "--bos") {
      const char *v = value(a.c_str());
      long long n;
      if (!parseCount(v, n) || (a != "--max-new-tokens" && n < 0))
        return fail(a + " expects an integer, got '" + v + "'");
      if (a == "--beam" && n < 1)
        return fail("--beam expects a width >= 1, got '" + std::string(v) +
                    "'");
      if (a == "--max-new-tokens")
        gen.options.max_new_tokens = n;
      else if (a == "--pad")
        gen.options.pad_id = n;
      else if (a == "--top-k")
        gen.options.top_k = static_cast<size_t>(n);
      else if (a == "--seed")
        gen.options.seed = static_cast<uint64_t>(n);
      else if (a == "--beam")
        gen.options.beam_width = static_cast<size_t>(n);
      else if (a == "--n-best")
        gen.options.num_return = static_cast<size_t>(n);
      else if (a == "--bos")
        gen.bos = n;
      else
        gen.options.capacity = n;
    } else if (a == "--eos") {
      std::string v = value("--eos");
      for (size_t start = 0;;) {
        size_t comma = v.find(',', start);
        long long n;
        std::string item = v.substr(start, comma - start);
        if (!parseCount(item.c_str(), n))
          return fail("--eos expects integer ids, got '" + v + "'");
        gen.eos.push_back(n);
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
    } else if (a == "--temperature" || a == "--length-penalty") {
      double x;
      number(a.c_str(), x);
      (a == "--temperature" ? gen.options.temperature
                            : gen.options.length_penalty) =
          static_cast<float>(x);
    } else if (a == "--vocab") {
      gen.vocabPath = value("--vocab");
    } else if (a == "--force") {
      gen.forcePath = value("--force");
    } else if (a == "--save-logits") {
      gen.saveLogits = true;
    } else if (a == "--info") {
      info = true;
    } else if (a == "--profile") {
      profile = true;
    } else if (a == "--list-devices") {
      listDevices = true;
    } else if (a == "--device" || a == "--compare") {
      std::string v = value(a.c_str());
      deviceSpecs.clear();
      comparing = a == "--compare";
      for (size_t start = 0;;) {
        size_t comma = v.find(',', start);
        deviceSpecs.push_back(v.substr(start, comma - start));
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
      if (comparing && deviceSpecs.size() != 2)
        return fail("--compare expects two devices, e.g. cpu,vulkan; got '" +
                    v + "'");
      if (!comparing && deviceSpecs.size() != 1)
        return fail("--device expects one device; use --compare=" + v +
                    " to run on several");
    } else if (!a.empty() && a[0] == '-') {
      usage();
      return fail("unknown option '" + a + "'");
    } else if (modelPath.empty()) {
      modelPath = a;
    } else {
      return fail("unexpected argument '" + a + "' (one model per run)");
    }
  }
  if (listDevices) {
    char *text = nullptr;
    if (attune::Status s(attune_vulkan_devices(&text)); !s)
      return fail(s.message());
    std::printf("%s", text);
    std::free(text);
    return 0;
  }
  if (modelPath.empty()) {
    usage();
    return fail("no model given");
  }
  auto printEntries = [](const attune::Model &m) {
    for (size_t e = 0; e < m.numEntries(); ++e) {
      std::printf("entry %s%s\n", m.entryName(e).c_str(),
                  attune_model_entry_is_generation_step(m.get(), e)
                      ? " (generation step)"
                  : attune_model_entry_is_generation_encoder(m.get(), e)
                      ? " (generation encoder)"
                      : "");
      std::vector<attune_tensor_info> inputs = m.inputs(e);
      for (size_t i = 0; i < inputs.size(); ++i)
        std::printf("  %s  %s\n",
                    attune_model_input_is_state(m.get(), e, i) ? "state"
                    : attune_model_input_is_context(m.get(), e, i)
                        ? "context"
                        : "input",
                    signature(inputs[i]).c_str());
      for (const attune_tensor_info &t : m.outputs(e))
        std::printf("  output %s\n", signature(t).c_str());
    }
  };
  // --info alone describes the artifact without a device: it opens a model
  // compiled for another CPU or for Vulkan only just as well.
  if (info && inputArgs.empty() && deviceSpecs.empty() && !profile) {
    attune::Model m;
    if (attune::Status s = attune::Model::inspect(modelPath, m); !s)
      return fail(s.message());
    std::printf("%s", m.targetInfo().c_str());
    printEntries(m);
    return 0;
  }
  // The output directories exist (made if need be) before anything runs.
  for (auto [flag, dir] :
       {std::pair<const char *, std::string>{"--output-dir", outputDir},
        {"--attention-maps", mapsDir}}) {
    if (dir.empty())
      continue;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
      return fail(
          std::string(flag) + " " + dir + ": cannot create the directory" +
          (ec ? ": " + ec.message() : std::string(" (a file is there)")));
  }
  if (!tokenSpec.empty() && mapsDir.empty())
    return fail("--tokens labels attention maps: give --attention-maps DIR");
  if (deviceSpecs.empty())
    deviceSpecs.push_back("cpu");

  // One model per device (two when comparing).
  std::vector<attune::Device> devices(deviceSpecs.size());
  std::vector<attune::Model> models(deviceSpecs.size());
  for (size_t d = 0; d < deviceSpecs.size(); ++d) {
    if (attune::Status s = attune::Device::open(deviceSpecs[d], devices[d]); !s)
      return fail(s.message());
    if (attune::Status s =
            attune::Model::open(modelPath, models[d], weightsPath, &devices[d]);
        !s)
      return fail(s.message());
    if (threads > 0 && !devices[d].isVulkan())
      if (attune::Status s = models[d].setNumThreads(static_cast<int>(threads)); !s)
        return fail(s.message());
    if (profile && !devices[d].isVulkan() && !comparing)
      return fail("--profile times Vulkan kernels; the model runs on " +
                  devices[d].description());
    if (profile && devices[d].isVulkan())
      if (attune::Status s = models[d].setProfiling(true); !s)
        return fail(s.message());
  }
  attune::Model &model = models[0];
  if (generating) {
    if (comparing || !expectArgs.empty())
      return fail("--generate runs alone: without --compare or --expect "
                  "(compare tokens.npy from --output-dir)");
    return generate(model, inputArgs, gen, outputDir, mapsDir, tokenSpec,
                    benchRuns);
  }
  size_t entry = 0;
  if (!entryName.empty())
    if (attune::Status s = model.findEntry(entryName, entry); !s)
      return fail(s.message());
  if (info) {
    std::printf("%s", model.targetInfo().c_str());
    for (auto &m : models)
      std::printf("device %s\n", m.device().c_str());
    printEntries(model);
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

  std::vector<attune_tensor_info> outSpecs = model.outputs(entry);
  std::vector<std::vector<attune::Tensor>> results(models.size());
  bool mismatch = false;
  for (size_t d = 0; d < models.size(); ++d) {
    std::vector<attune::Tensor> &outputs = results[d];
    if (attune::Status s = models[d].run(inputPtrs, outputs, entry); !s)
      return fail(s.message());
    std::string prefix = comparing ? "[" + deviceSpecs[d] + "] " : "";
    for (size_t o = 0; o < outputs.size(); ++o) {
      std::printf("%s%s\n", prefix.c_str(),
                  summary(outSpecs[o].name, outputs[o]).c_str());
      if (!outputDir.empty() && d == 0) {
        std::string path = outputDir + "/" + outSpecs[o].name + ".npy";
        if (attune::Status s = outputs[o].writeNpy(path); !s)
          return fail(s.message());
      }
    }
    // Comparison with reference data. An output is named by its name, or
    // by its position as output<i> (the golden data's names).
    for (auto &[name, path] : expectArgs) {
      size_t o = 0;
      while (o < outSpecs.size() && name != outSpecs[o].name)
        ++o;
      if (o == outSpecs.size() && name.rfind("output", 0) == 0 &&
          name.size() > 6 && name.size() <= 12 &&
          name.find_first_not_of("0123456789", 6) == std::string::npos)
        o = std::min<size_t>(std::strtoul(name.c_str() + 6, nullptr, 10),
                             outSpecs.size());
      if (o == outSpecs.size())
        return fail("--expect names unknown output '" + name + "'");
      attune::Tensor expected;
      if (attune::Status s = attune::Tensor::readNpy(path, expected); !s)
        return fail("expected '" + name + "': " + s.message());
      mismatch |= !compare(prefix + name, outputs[o], expected, atol, rtol,
                           "expected");
    }
    if (profile && devices[d].isVulkan())
      std::printf("%sGPU time per kernel (%s):\n%s", prefix.c_str(),
                  models[d].device().c_str(), models[d].profile().c_str());
  }
  if (!mapsDir.empty()) {
    std::string queryTokens, keyTokens, error;
    if (!resolveTokens(tokenSpec, given, queryTokens, keyTokens, error))
      return fail(error);
    std::vector<std::string> names;
    for (const attune_tensor_info &spec : outSpecs)
      names.push_back(spec.name);
    if (int rc = drawAttentionMaps(mapsDir, names, results[0], queryTokens,
                                   keyTokens, gen.vocabPath))
      return rc;
  }
  if (comparing)
    for (size_t o = 0; o < outSpecs.size(); ++o)
      mismatch |= !compare(std::string(outSpecs[o].name) + " " +
                               deviceSpecs[1] + " vs " + deviceSpecs[0],
                           results[1][o], results[0][o], atol, rtol,
                           deviceSpecs[0]);

  if (benchRuns > 0) {
    using Clock = std::chrono::steady_clock;
    for (size_t d = 0; d < models.size(); ++d) {
      std::vector<double> times;
      std::vector<attune::Tensor> outputs;
      long warmup = std::max(2L, benchRuns / 10);
      for (long r = 0; r < warmup + benchRuns; ++r) {
        auto start = Clock::now();
        if (attune::Status s = models[d].run(inputPtrs, outputs, entry); !s)
          return fail(s.message());
        double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (r >= warmup)
          times.push_back(ms);
      }
      std::sort(times.begin(), times.end());
      std::printf("latency%s: min %.4f ms, median %.4f ms over %ld runs (%ld "
                  "warm-up)%s\n",
                  comparing ? (" [" + deviceSpecs[d] + "]").c_str() : "",
                  times.front(), times[times.size() / 2], benchRuns, warmup,
                  threads > 0 && !devices[d].isVulkan()
                      ? (", " + std::to_string(threads) + " thread(s)").c_str()
                      : "");
    }
  }
  return mismatch ? 1 : 0;
}
