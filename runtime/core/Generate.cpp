//===- Generate.cpp - the generation loop ---------------------------------===//
//
// attune_model_generate: prefill the prompts with the model's generation
// step, then one step per new token, choosing each token from the step's
// logits (greedy or sampled) and feeding it back. The states (key/value
// caches) are allocated once and written in place by the step; per token
// the loop allocates only the step's logits.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

using namespace attune;
using namespace attune::runtime;

namespace {

struct TensorDeleter {
  void operator()(attune_tensor *t) const { attune_tensor_free(t); }
};
using Tensor = std::unique_ptr<attune_tensor, TensorDeleter>;

/// SplitMix64: a seeded, portable generator (the same seed gives the same
/// tokens on every machine).
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

/// The token chosen from `logits` [V]: the first maximum (greedy, or
/// top_k = 1), else a sample from softmax(logits / temperature) over the
/// top_k most probable (ties broken by the lower id).
int64_t choose(const float *logits, int64_t vocab,
               const attune_generate_options &o, Random &random,
               std::vector<int64_t> &order) {
  if (o.temperature <= 0.0f || o.top_k == 1) {
    int64_t best = 0;
    for (int64_t v = 1; v < vocab; ++v)
      if (logits[v] > logits[best])
        best = v;
    return best;
  }
  size_t k = o.top_k == 0 ? static_cast<size_t>(vocab)
                          : std::min<size_t>(o.top_k, vocab);
  order.resize(vocab);
  for (int64_t v = 0; v < vocab; ++v)
    order[v] = v;
  auto better = [&](int64_t a, int64_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  };
  std::partial_sort(order.begin(), order.begin() + k, order.end(), better);
  double top = logits[order[0]], total = 0.0;
  std::vector<double> weights(k);
  for (size_t i = 0; i < k; ++i)
    total += weights[i] = std::exp((logits[order[i]] - top) / o.temperature);
  double u = random.uniform() * total;
  for (size_t i = 0; i < k; ++i) {
    if (u < weights[i])
      return order[i];
    u -= weights[i];
  }
  return order[k - 1];
}

/// An int tensor of `dtype` (i32 or i64) wrapping `values`.
attune_status *wrapIndices(attune_dtype dtype, std::vector<int64_t> &values,
                           std::vector<int32_t> &narrow,
                           const std::vector<int64_t> &shape, Tensor &out) {
  void *data = values.data();
  if (dtype == ATTUNE_I32) {
    narrow.assign(values.begin(), values.end());
    data = narrow.data();
  }
  attune_tensor *t = nullptr;
  if (attune_status *s =
          attune_tensor_wrap(dtype, shape.size(), shape.data(), data, &t))
    return s;
  out.reset(t);
  return nullptr;
}

} // namespace

extern "C" {

void attune_generate_options_init(attune_generate_options *o) {
  std::memset(o, 0, sizeof(*o));
  o->max_new_tokens = 16;
  o->length_penalty = 1.0f;
}

attune_status *attune_model_generate(const attune_model *model,
                                     const attune_tensor *prompt,
                                     const attune_tensor *lengthsTensor,
                                     const attune_generate_options *options,
                                     attune_tensor **tokensOut,
                                     attune_tensor **logitsOut) {
  if (!model || !prompt || !options || !tokensOut)
    return error("attune_model_generate: NULL argument");
  const attune_generate_options &o = *options;
  // The generation step.
  size_t entry = 0;
  const artifact::EntrySpec *step = nullptr;
  for (size_t e = 0; e < attune_model_num_entries(model); ++e)
    if (const artifact::EntrySpec *spec = entrySpec(model, e);
        spec && spec->generationStep) {
      entry = e;
      step = spec;
      break;
    }
  if (!step)
    return error("the model has no generation step (a function marked "
                 "attune.generation_step), so it cannot generate; its "
                 "entries run with attune_model_run");
  const char *where = step->name.c_str();

  // Options.
  if (o.max_new_tokens < 1)
    return error("%s: max new tokens must be at least 1, got %lld", where,
                 static_cast<long long>(o.max_new_tokens));
  if (o.beam_width > 1)
    return error("%s: beam search (beam width %zu) is not implemented yet; "
                 "use beam width 1 (greedy) or sampling",
                 where, o.beam_width);
  if (!(o.temperature >= 0.0f) || std::isinf(o.temperature))
    return error("%s: temperature must be a finite number >= 0, got %g",
                 where, static_cast<double>(o.temperature));
  int64_t vocab = step->outputs[0].shape.size() == 2
                      ? step->outputs[0].shape[1]
                      : -1;
  if (vocab > 0) {
    for (size_t i = 0; i < o.num_eos; ++i)
      if (o.eos_ids[i] < 0 || o.eos_ids[i] >= vocab)
        return error("%s: eos id %lld is outside the vocabulary [0, %lld)",
                     where, static_cast<long long>(o.eos_ids[i]),
                     static_cast<long long>(vocab));
    if (o.pad_id < 0 || o.pad_id >= vocab)
      return error("%s: pad id %lld is outside the vocabulary [0, %lld)",
                   where, static_cast<long long>(o.pad_id),
                   static_cast<long long>(vocab));
  }

  // Prompts.
  if (attune_tensor_dtype(prompt) != ATTUNE_I64 ||
      attune_tensor_rank(prompt) != 2)
    return error("%s: the prompt must be an i64 tensor [B, T], got %s %s",
                 where, attune_dtype_name(attune_tensor_dtype(prompt)),
                 shapeString(attune_tensor_shape(prompt),
                             attune_tensor_rank(prompt))
                     .c_str());
  const int64_t batch = attune_tensor_shape(prompt)[0];
  const int64_t width = attune_tensor_shape(prompt)[1];
  if (batch < 1 || width < 1)
    return error("%s: the prompt [%lld, %lld] is empty", where,
                 static_cast<long long>(batch),
                 static_cast<long long>(width));
  std::vector<int64_t> lengths(batch, width);
  if (lengthsTensor) {
    if (attune_tensor_dtype(lengthsTensor) != ATTUNE_I64 ||
        attune_tensor_rank(lengthsTensor) != 1 ||
        attune_tensor_shape(lengthsTensor)[0] != batch)
      return error("%s: prompt lengths must be an i64 tensor [%lld], got %s "
                   "%s",
                   where, static_cast<long long>(batch),
                   attune_dtype_name(attune_tensor_dtype(lengthsTensor)),
                   shapeString(attune_tensor_shape(lengthsTensor),
                               attune_tensor_rank(lengthsTensor))
                       .c_str());
    const int64_t *given = static_cast<const int64_t *>(
        attune_tensor_data(const_cast<attune_tensor *>(lengthsTensor)));
    for (int64_t b = 0; b < batch; ++b) {
      if (given[b] < 1 || given[b] > width)
        return error("%s: prompt length %lld of sequence %lld is outside "
                     "[1, %lld] (the prompt tensor's width)",
                     where, static_cast<long long>(given[b]),
                     static_cast<long long>(b), static_cast<long long>(width));
      lengths[b] = given[b];
    }
  }
  int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  if (o.forced) {
    if (attune_tensor_dtype(o.forced) != ATTUNE_I64 ||
        attune_tensor_rank(o.forced) != 2 ||
        attune_tensor_shape(o.forced)[0] != batch ||
        attune_tensor_shape(o.forced)[1] < 1)
      return error("%s: forced tokens must be an i64 tensor [%lld, N >= 1]",
                   where, static_cast<long long>(batch));
  }
  const int64_t steps =
      o.forced ? attune_tensor_shape(o.forced)[1] : o.max_new_tokens;
  // Positions the caches must hold: the prompt, then every new token but
  // the last, which is chosen and not fed back.
  const int64_t needed = longest + steps - 1;

  // The states, zero-filled, allocated once: dim 0 is the batch, any other
  // dynamic dim the capacity.
  int64_t capacity = o.capacity > 0 ? o.capacity : needed;
  std::vector<Tensor> states;
  for (size_t i = artifact::kStepFirstState; i < step->inputs.size(); ++i) {
    const artifact::TensorSpec &spec = step->inputs[i];
    std::vector<int64_t> shape = spec.shape;
    if (shape.empty() || (shape[0] >= 0 && shape[0] != batch))
      return error("%s: state '%s' of shape %s cannot hold a batch of %lld",
                   where, spec.name.c_str(),
                   shapeString(spec.shape.data(), spec.shape.size()).c_str(),
                   static_cast<long long>(batch));
    shape[0] = batch;
    for (size_t d = 1; d < shape.size(); ++d) {
      if (shape[d] >= 0)
        continue;
      shape[d] = capacity;
    }
    // A cache [B, H, C, D] holds C positions.
    if (shape.size() == 4 && shape[2] < needed)
      return error("%s: the prompt of %lld tokens and %lld new tokens need "
                   "%lld positions, but state '%s' holds %lld",
                   where, static_cast<long long>(longest),
                   static_cast<long long>(steps),
                   static_cast<long long>(needed), spec.name.c_str(),
                   static_cast<long long>(shape[2]));
    attune_tensor *t = nullptr;
    if (attune_status *s =
            attune_tensor_create(spec.dtype, shape.size(), shape.data(), &t))
      return s;
    states.emplace_back(t);
  }

  // The step's index inputs, rewritten in place each step.
  attune_dtype tokenType = step->inputs[artifact::kStepTokens].dtype;
  attune_dtype positionType = step->inputs[artifact::kStepPositions].dtype;
  attune_dtype lengthType = step->inputs[artifact::kStepLengths].dtype;
  const int64_t *promptData = static_cast<const int64_t *>(
      attune_tensor_data(const_cast<attune_tensor *>(prompt)));
  std::vector<int64_t> tokenValues(promptData, promptData + batch * width);
  // Past a prompt's length its row holds padding, which the step reads
  // (and masks); it must still be an id the embedding accepts.
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = lengths[b]; t < width; ++t)
      tokenValues[b * width + t] = tokenValues[b * width];
  std::vector<int64_t> positionValues(batch, 0), lengthValues = lengths;
  std::vector<int32_t> tokens32, positions32, lengths32;

  std::vector<int64_t> chosen(batch * steps, o.pad_id);
  std::vector<float> kept;
  std::vector<bool> done(batch, false);
  std::vector<int64_t> order;
  Random random{o.seed};
  const int64_t *forced =
      o.forced ? static_cast<const int64_t *>(
                     attune_tensor_data(const_cast<attune_tensor *>(o.forced)))
               : nullptr;
  int64_t ran = 0;
  for (int64_t s = 0; s < steps; ++s) {
    // The prompt on the first step, then each sequence's last token.
    std::vector<int64_t> tokenShape = {batch, s == 0 ? width : 1};
    Tensor tokensIn, positionsIn, lengthsIn;
    if (attune_status *st = wrapIndices(tokenType, tokenValues, tokens32,
                                        tokenShape, tokensIn))
      return st;
    if (attune_status *st = wrapIndices(positionType, positionValues,
                                        positions32, {batch}, positionsIn))
      return st;
    if (attune_status *st = wrapIndices(lengthType, lengthValues, lengths32,
                                        {batch}, lengthsIn))
      return st;
    std::vector<const attune_tensor *> inputs = {
        tokensIn.get(), positionsIn.get(), lengthsIn.get()};
    for (Tensor &state : states)
      inputs.push_back(state.get());
    attune_tensor *out = nullptr;
    if (attune_status *st = attune_model_run(model, entry, inputs.data(),
                                             inputs.size(), &out, 1))
      return st;
    Tensor logits(out);
    const int64_t *shape = attune_tensor_shape(out);
    if (attune_tensor_dtype(out) != ATTUNE_F32 || attune_tensor_rank(out) != 2 ||
        shape[0] != batch)
      return error("%s: the step returned logits %s %s, expected f32 [%lld, "
                   "V]",
                   where, attune_dtype_name(attune_tensor_dtype(out)),
                   shapeString(shape, attune_tensor_rank(out)).c_str(),
                   static_cast<long long>(batch));
    vocab = shape[1];
    if (o.pad_id < 0 || o.pad_id >= vocab)
      return error("%s: pad id %lld is outside the vocabulary [0, %lld)",
                   where, static_cast<long long>(o.pad_id),
                   static_cast<long long>(vocab));
    const float *rows = static_cast<const float *>(attune_tensor_data(out));
    if (logitsOut) {
      if (kept.empty())
        kept.assign(batch * steps * vocab, 0.0f);
      for (int64_t b = 0; b < batch; ++b)
        if (!done[b])
          std::memcpy(&kept[(b * steps + s) * vocab], rows + b * vocab,
                      vocab * sizeof(float));
    }
    ++ran;
    // Each sequence's token; what the next step feeds: the token at its
    // position, or for a finished sequence the token it ended with, again
    // at the same position (a harmless rewrite of its own cache row: a
    // step runs the whole batch).
    bool stop = true, cancelled = false;
    tokenValues.resize(batch);
    for (int64_t b = 0; b < batch; ++b) {
      if (!done[b]) {
        int64_t token = choose(rows + b * vocab, vocab, o, random, order);
        chosen[b * steps + s] = token;
        if (o.on_token && o.on_token(o.user, b, s, token) != 0)
          cancelled = true;
        tokenValues[b] = forced ? forced[b * steps + s] : token;
        positionValues[b] = lengths[b] + s;
        if (!forced && std::find(o.eos_ids, o.eos_ids + o.num_eos, token) !=
                           o.eos_ids + o.num_eos)
          done[b] = true;
      }
      stop &= done[b];
    }
    if (stop || cancelled)
      break;
    lengthValues.assign(batch, 1);
  }

  // [B, ran] tokens (and logits).
  std::vector<int64_t> outShape = {batch, ran};
  attune_tensor *result = nullptr;
  if (attune_status *st =
          attune_tensor_create(ATTUNE_I64, 2, outShape.data(), &result))
    return st;
  auto *dst = static_cast<int64_t *>(attune_tensor_data(result));
  for (int64_t b = 0; b < batch; ++b)
    std::memcpy(dst + b * ran, &chosen[b * steps], ran * sizeof(int64_t));
  if (logitsOut) {
    std::vector<int64_t> logitShape = {batch, ran, vocab};
    attune_tensor *l = nullptr;
    if (attune_status *st =
            attune_tensor_create(ATTUNE_F32, 3, logitShape.data(), &l)) {
      attune_tensor_free(result);
      return st;
    }
    auto *ldst = static_cast<float *>(attune_tensor_data(l));
    for (int64_t b = 0; b < batch; ++b)
      std::memcpy(ldst + b * ran * vocab, &kept[b * steps * vocab],
                  ran * vocab * sizeof(float));
    *logitsOut = l;
  }
  *tokensOut = result;
  return nullptr;
}

} // extern "C"
