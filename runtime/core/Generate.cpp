//===- Generate.cpp - the generation loop ---------------------------------===//
//
// attune_model_generate: prefill the prompts with the model's generation
// step, then one step per new token, choosing each token from the step's
// logits (greedy, sampled, or by beam search) and feeding it back. The
// states (key/value caches) are allocated once and written in place by the
// step; per token the loop allocates only the step's logits. Beam search
// runs the B x K beams as one batch and, each step, copies the cache rows
// of the beams that continue another beam's hypothesis (their prefix).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "../vulkan/Vulkan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
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

/// log sum_v exp(logits[v]), in double: log softmax(logits)[v] is
/// logits[v] minus it.
double logSumExp(const float *logits, int64_t vocab) {
  double top = logits[0];
  for (int64_t v = 1; v < vocab; ++v)
    top = std::max<double>(top, logits[v]);
  double sum = 0.0;
  for (int64_t v = 0; v < vocab; ++v)
    sum += std::exp(static_cast<double>(logits[v]) - top);
  return top + std::log(sum);
}

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

/// The model's generation step with its states, for a batch of `rows`.
class Session {
public:
  Session(const attune_model *model, size_t entry,
          const artifact::EntrySpec &step)
      : model(model), entry(entry), step(step),
        program(vulkanProgram(model)) {}
  ~Session() {
    for (vulkan::Resident *r : residents)
      vulkan::destroyResident(program, r);
  }

  /// The contexts: the encoder's outputs by name (`outputs`, B rows each),
  /// each row repeated `repeat` times (the beams of a sequence).
  attune_status *setContexts(const artifact::EntrySpec &encoder,
                             std::vector<Tensor> &outputs, int64_t repeat) {
    for (size_t i = artifact::kStepFirstState; i < step.inputs.size(); ++i) {
      const artifact::TensorSpec &spec = step.inputs[i];
      size_t o = 0;
      while (o < encoder.outputs.size() && encoder.outputs[o].name != spec.name)
        ++o;
      if (!spec.context && o == encoder.outputs.size())
        continue; // a state that starts at zeros
      if (o == encoder.outputs.size())
        return error("%s: no context '%s' from the encoder", where(),
                     spec.name.c_str());
      attune_tensor *t = outputs[o].get();
      if (repeat > 1) {
        std::vector<int64_t> shape(attune_tensor_shape(t),
                                   attune_tensor_shape(t) +
                                       attune_tensor_rank(t));
        size_t rowBytes = attune_tensor_num_elements(t) /
                          std::max<int64_t>(1, shape[0]) *
                          attune_dtype_size(attune_tensor_dtype(t));
        int64_t sequences = shape[0];
        shape[0] *= repeat;
        attune_tensor *wide = nullptr;
        if (attune_status *s = attune_tensor_create(
                attune_tensor_dtype(t), shape.size(), shape.data(), &wide))
          return s;
        auto *src = static_cast<const char *>(attune_tensor_data(t));
        auto *dst = static_cast<char *>(attune_tensor_data(wide));
        for (int64_t b = 0; b < sequences; ++b)
          for (int64_t k = 0; k < repeat; ++k)
            std::memcpy(dst + (b * repeat + k) * rowBytes,
                        src + b * rowBytes, rowBytes);
        owned.emplace_back(wide);
        t = wide;
      }
      (spec.context ? contexts : initial)[spec.name] = t;
    }
    return nullptr;
  }

  /// Allocates the states (zero-filled) for `rows` rows and `needed`
  /// positions; `capacity` fills a dynamic capacity (0: `needed`).
  attune_status *allocate(int64_t rows, int64_t needed, int64_t capacity,
                          int64_t longest, int64_t steps) {
    this->rows = rows;
    for (size_t i = artifact::kStepFirstState; i < step.inputs.size(); ++i) {
      const artifact::TensorSpec &spec = step.inputs[i];
      if (spec.context) {
        auto it = contexts.find(spec.name);
        if (it == contexts.end())
          return error("%s: the step reads the context '%s', but the model "
                       "has no generation encoder that computes it",
                       where(), spec.name.c_str());
        if (attune_tensor_rank(it->second) < 1 ||
            attune_tensor_shape(it->second)[0] != rows)
          return error("%s: the context '%s' has %lld rows, expected %lld "
                       "(one per sequence and beam)",
                       where(), spec.name.c_str(),
                       static_cast<long long>(
                           attune_tensor_rank(it->second)
                               ? attune_tensor_shape(it->second)[0]
                               : 0),
                       static_cast<long long>(rows));
        continue;
      }
      std::vector<int64_t> shape = spec.shape;
      if (shape.empty() || (shape[0] >= 0 && shape[0] != rows))
        return error("%s: state '%s' of shape %s cannot hold a batch of %lld",
                     where(), spec.name.c_str(),
                     shapeString(spec.shape.data(), spec.shape.size()).c_str(),
                     static_cast<long long>(rows));
      shape[0] = rows;
      for (size_t d = 1; d < shape.size(); ++d)
        if (shape[d] < 0)
          shape[d] = capacity > 0 ? capacity : needed;
      // A cache [B, H, C, D] holds C positions.
      if (shape.size() == 4 && shape[2] < needed)
        return error("%s: the prompt of %lld tokens and %lld new tokens need "
                     "%lld positions, but state '%s' holds %lld",
                     where(), static_cast<long long>(longest),
                     static_cast<long long>(steps),
                     static_cast<long long>(needed), spec.name.c_str(),
                     static_cast<long long>(shape[2]));
      attune_tensor *t = nullptr;
      if (attune_status *s = attune_tensor_create(spec.dtype, shape.size(),
                                                  shape.data(), &t))
        return s;
      states.emplace_back(t);
      // The encoder's initial value, else zeros.
      if (auto it = initial.find(spec.name); it != initial.end()) {
        const attune_tensor *from = it->second;
        bool same = attune_tensor_dtype(from) == spec.dtype &&
                    attune_tensor_rank(from) == shape.size();
        for (size_t d = 0; same && d < shape.size(); ++d)
          same = attune_tensor_shape(from)[d] == shape[d];
        if (!same)
          return error("%s: the encoder's initial value of state '%s' is %s "
                       "%s, expected %s %s",
                       where(), spec.name.c_str(),
                       attune_dtype_name(attune_tensor_dtype(from)),
                       shapeString(attune_tensor_shape(from),
                                   attune_tensor_rank(from))
                           .c_str(),
                       attune_dtype_name(spec.dtype),
                       shapeString(shape.data(), shape.size()).c_str());
        std::memcpy(attune_tensor_data(t),
                    attune_tensor_data(const_cast<attune_tensor *>(from)),
                    attune_tensor_num_elements(t) *
                        attune_dtype_size(spec.dtype));
      }
    }
    return program ? moveToDevice() : nullptr;
  }

  /// On Vulkan: the states and contexts become resident device buffers,
  /// written in place by every step (nothing but the tokens goes up and the
  /// logits come back per token); the host copies of the states are freed,
  /// their tensors keeping only dtype and shape.
  attune_status *moveToDevice() {
    size_t nextState = 0;
    for (size_t i = artifact::kStepFirstState; i < step.inputs.size(); ++i) {
      bool context = step.inputs[i].context;
      attune_tensor *t = context
                             ? const_cast<attune_tensor *>(
                                   contexts[step.inputs[i].name])
                             : states[nextState++].get();
      vulkan::Resident *r = nullptr;
      if (attune_status *s = vulkan::createResident(program, t, &r))
        return s;
      residents.push_back(r);
      if (!context) {
        stateResidents.push_back(r);
        Tensor &host = states[nextState - 1];
        host.reset(new attune_tensor{host->dtype, host->shape, nullptr, false});
      }
    }
    return nullptr;
  }

  /// Runs the step on `tokens` [rows, width] at `positions` with `lengths`
  /// valid tokens per row: *logits [rows, V], and in `maps` (if given) the
  /// step's attention maps (the outputs after the logits).
  attune_status *run(const std::vector<int64_t> &tokens, int64_t width,
                     const std::vector<int64_t> &positions,
                     const std::vector<int64_t> &lengths, Tensor &logits,
                     std::vector<Tensor> *maps = nullptr) {
    std::vector<Tensor> wrapped(3);
    std::vector<int64_t> values[3] = {tokens, positions, lengths};
    std::vector<int32_t> narrow[3];
    std::vector<int64_t> shapes[3] = {{rows, width}, {rows}, {rows}};
    for (size_t i = 0; i < 3; ++i) {
      attune_dtype dtype = step.inputs[i].dtype;
      void *data = values[i].data();
      if (dtype == ATTUNE_I32) {
        narrow[i].assign(values[i].begin(), values[i].end());
        data = narrow[i].data();
      }
      attune_tensor *t = nullptr;
      if (attune_status *s = attune_tensor_wrap(dtype, shapes[i].size(),
                                                shapes[i].data(), data, &t))
        return s;
      wrapped[i].reset(t);
    }
    std::vector<const attune_tensor *> inputs;
    for (Tensor &t : wrapped)
      inputs.push_back(t.get());
    size_t nextState = 0;
    for (size_t i = artifact::kStepFirstState; i < step.inputs.size(); ++i)
      inputs.push_back(step.inputs[i].context
                           ? contexts[step.inputs[i].name]
                           : states[nextState++].get());
    std::vector<const vulkan::Resident *> bound;
    if (program) {
      bound.assign(artifact::kStepFirstState, nullptr);
      bound.insert(bound.end(), residents.begin(), residents.end());
    }
    // The logits, then the attention maps (dropped unless asked for).
    std::vector<attune_tensor *> outs(step.outputs.size(), nullptr);
    attune_status *failed =
        runEntry(model, entry, inputs.data(), inputs.size(),
                 program ? bound.data() : nullptr, outs.data(), outs.size());
    std::vector<Tensor> owned;
    for (attune_tensor *t : outs)
      owned.emplace_back(t);
    if (failed)
      return failed;
    attune_tensor *out = owned[0].release();
    logits.reset(out);
    if (maps)
      maps->assign(std::make_move_iterator(owned.begin() + 1),
                   std::make_move_iterator(owned.end()));
    const int64_t *shape = attune_tensor_shape(out);
    if (attune_tensor_dtype(out) != ATTUNE_F32 ||
        attune_tensor_rank(out) != 2 || shape[0] != rows)
      return error("%s: the step returned logits %s %s, expected f32 [%lld, "
                   "V]",
                   where(), attune_dtype_name(attune_tensor_dtype(out)),
                   shapeString(shape, attune_tensor_rank(out)).c_str(),
                   static_cast<long long>(rows));
    return nullptr;
  }

  /// Beam search: row `to` of every state becomes a copy of row `from`
  /// (positions [0, used) of a cache [B, H, C, D], else the whole row),
  /// for each (to, from) of `moves`, reading every source before writing.
  attune_status *reorder(const std::vector<std::pair<int64_t, int64_t>> &moves,
                         int64_t used) {
    if (moves.empty())
      return nullptr;
    for (size_t si = 0; si < states.size(); ++si) {
      const attune_tensor *state = states[si].get();
      const int64_t *shape = attune_tensor_shape(state);
      size_t rank = attune_tensor_rank(state);
      size_t element = attune_dtype_size(attune_tensor_dtype(state));
      int64_t rowElements = 1;
      for (size_t d = 1; d < rank; ++d)
        rowElements *= shape[d];
      // Per row: `chunks` runs of `chunk` bytes, `stride` bytes apart.
      int64_t chunks = 1, chunk = rowElements * element, stride = chunk;
      if (rank == 4) {
        chunks = shape[1];
        chunk = std::min(used, shape[2]) * shape[3] * element;
        stride = shape[2] * shape[3] * element;
      }
      uint64_t rowBytes = rowElements * element;
      std::vector<vulkan::ByteMove> bytes;
      for (auto [to, from] : moves)
        for (int64_t c = 0; c < chunks; ++c)
          bytes.push_back({from * rowBytes + c * stride,
                           to * rowBytes + c * stride,
                           static_cast<uint64_t>(chunk)});
      if (program) {
        if (attune_status *s =
                vulkan::moveResident(program, stateResidents[si], bytes))
          return s;
        continue;
      }
      auto *data = static_cast<char *>(state->data);
      std::vector<char> copies(bytes.size() * chunk);
      for (size_t m = 0; m < bytes.size(); ++m)
        std::memcpy(&copies[m * chunk], data + bytes[m].from, chunk);
      for (size_t m = 0; m < bytes.size(); ++m)
        std::memcpy(data + bytes[m].to, &copies[m * chunk], chunk);
    }
    return nullptr;
  }

  const char *where() const { return step.name.c_str(); }

private:
  const attune_model *model;
  size_t entry;
  const artifact::EntrySpec &step;
  int64_t rows = 0;
  std::vector<Tensor> states;
  std::map<std::string, const attune_tensor *> contexts;
  std::map<std::string, const attune_tensor *> initial; // of states
  std::vector<Tensor> owned; // contexts repeated for beams
  vulkan::Program *program; // null: the CPU
  // On Vulkan: the device buffers of the step's contexts and states (in
  // input order), and of the states alone (in `states` order).
  std::vector<vulkan::Resident *> residents, stateResidents;
};

bool isEos(const attune_generate_options &o, int64_t token) {
  return std::find(o.eos_ids, o.eos_ids + o.num_eos, token) !=
         o.eos_ids + o.num_eos;
}

/// GNMT's length penalty ((5 + length) / 6)^alpha.
double lengthPenalty(double alpha, int64_t length) {
  return std::pow((5.0 + static_cast<double>(length)) / 6.0, alpha);
}

struct Request {
  const attune_generate_options &o;
  int64_t batch, width, steps, needed;
  const int64_t *prompt; // [batch, width]
  std::vector<int64_t> lengths;
};

/// A new tensor of `dtype` and `shape` holding `values`.
attune_status *tensorOf(attune_dtype dtype, const std::vector<int64_t> &shape,
                        const void *values, attune_tensor **out) {
  attune_tensor *t = nullptr;
  if (attune_status *s =
          attune_tensor_create(dtype, shape.size(), shape.data(), &t))
    return s;
  std::memcpy(attune_tensor_data(t), values,
              attune_tensor_num_elements(t) * attune_dtype_size(dtype));
  *out = t;
  return nullptr;
}

/// The first `ran` of `steps` rows of `width` values in each of `groups`
/// ([groups, steps, width] -> [groups, ran, width]): what a generation kept
/// per step, cut to the steps it ran.
template <typename T>
std::vector<T> firstSteps(const std::vector<T> &all, int64_t groups,
                          int64_t steps, int64_t ran, int64_t width) {
  std::vector<T> out(groups * ran * width);
  for (int64_t g = 0; g < groups; ++g)
    std::copy_n(&all[g * steps * width], ran * width, &out[g * ran * width]);
  return out;
}

/// One attention map of a generation, kept step by step: the weights of
/// the query that chose each token, [B, heads, steps, keys], for a step
/// output of rank `rank` ([rows, T, keys] or [rows, H, T, keys]). Beam
/// search leaves `rows` empty: each hypothesis keeps its own (MapHistory).
struct KeptMap {
  std::vector<float> rows;
  int64_t heads = 1, keys = 0;
  size_t rank = 3;
};

/// The tensor `out` of a generation's map `layout` over `steps` new tokens:
/// `data` [B, heads, steps, keys], returned as [B, steps, keys] for a step
/// map without heads.
attune_status *mapTensor(const KeptMap &layout, int64_t batch, int64_t steps,
                         const std::vector<float> &data, attune_tensor **out) {
  std::vector<int64_t> shape = {batch, layout.heads, steps, layout.keys};
  if (layout.rank == 3)
    shape.erase(shape.begin() + 1);
  return tensorOf(ATTUNE_F32, shape, data.data(), out);
}

/// Checks attention map #`m` of step `s` (f32 [rows, T, Lk] or
/// [rows, H, T, Lk]) against the maps of the steps before: `kept[m]`'s
/// heads, keys and rank, recorded on the first step (a map whose Lk changes
/// between steps is an error). Sets `queries` to its T.
attune_status *checkMap(const Session &session, const attune_tensor *t,
                        size_t m, int64_t rows, int64_t s,
                        std::vector<KeptMap> &kept, int64_t &queries) {
  size_t rank = attune_tensor_rank(t);
  const int64_t *shape = attune_tensor_shape(t);
  if (attune_tensor_dtype(t) != ATTUNE_F32 || (rank != 3 && rank != 4) ||
      shape[0] != rows)
    return error("%s: attention map #%zu is %s %s, expected f32 [%lld, "
                 "(H,) T, Lk]",
                 session.where(), m, attune_dtype_name(attune_tensor_dtype(t)),
                 shapeString(shape, rank).c_str(),
                 static_cast<long long>(rows));
  int64_t h = rank == 4 ? shape[1] : 1, lk = shape[rank - 1];
  queries = shape[rank - 2];
  if (kept.size() <= m)
    kept.push_back({{}, h, lk, rank});
  else if (kept[m].keys != lk || kept[m].heads != h)
    return error("%s: attention map #%zu has %lld keys at step %lld, %lld "
                 "before: per-step maps need keys of one length (a "
                 "cross-attention, or a cache of fixed capacity)",
                 session.where(), m, static_cast<long long>(lk),
                 static_cast<long long>(s),
                 static_cast<long long>(kept[m].keys));
  return nullptr;
}

/// The weights of row `row`'s query `query` in map `t` (f32 [rows, (H,) T,
/// Lk]), head after head: `heads` x `keys` floats.
const float *mapRow(const attune_tensor *t, int64_t row, int64_t head,
                    int64_t heads, int64_t queries, int64_t query,
                    int64_t keys) {
  const float *w = static_cast<const float *>(
      attune_tensor_data(const_cast<attune_tensor *>(t)));
  return w + ((row * heads + head) * queries + query) * keys;
}

/// Keeps the attention maps `maps` of step `s`: for each row not done, the
/// weights of its last valid query (the one whose logits chose the token),
/// into `kept[m]` ([B, heads, steps, keys], allocated on the first step).
attune_status *keepMaps(const Session &session, std::vector<Tensor> &maps,
                        const std::vector<int64_t> &lengths,
                        const std::vector<bool> &done, int64_t s, int64_t steps,
                        std::vector<KeptMap> &kept) {
  const int64_t batch = static_cast<int64_t>(done.size());
  for (size_t m = 0; m < maps.size(); ++m) {
    const attune_tensor *t = maps[m].get();
    int64_t queries = 0;
    if (attune_status *st = checkMap(session, t, m, batch, s, kept, queries))
      return st;
    KeptMap &k = kept[m];
    if (k.rows.empty())
      k.rows.assign(batch * k.heads * steps * k.keys, 0.0f);
    for (int64_t b = 0; b < batch; ++b) {
      if (done[b])
        continue;
      int64_t query = std::min(queries, lengths[b]) - 1;
      for (int64_t hh = 0; hh < k.heads; ++hh)
        std::copy_n(mapRow(t, b, hh, k.heads, queries, query, k.keys), k.keys,
                    &k.rows[((b * k.heads + hh) * steps + s) * k.keys]);
    }
  }
  return nullptr;
}

/// Greedy decoding or sampling, one row per sequence.
attune_status *sampleRows(Session &session, const Request &r,
                          attune_tensor **tokensOut, attune_tensor **scoresOut,
                          attune_tensor **logitsOut) {
  const attune_generate_options &o = r.o;
  const int64_t batch = r.batch, steps = r.steps;
  std::vector<int64_t> tokenValues(r.prompt, r.prompt + batch * r.width);
  std::vector<int64_t> positionValues(batch, 0), lengthValues = r.lengths;
  std::vector<int64_t> chosen(batch * steps, o.pad_id);
  std::vector<double> scores(batch, 0.0);
  std::vector<float> kept;
  std::vector<bool> done(batch, false);
  std::vector<int64_t> order;
  Random random{o.seed};
  const int64_t *forced =
      o.forced ? static_cast<const int64_t *>(
                     attune_tensor_data(const_cast<attune_tensor *>(o.forced)))
               : nullptr;
  int64_t ran = 0, vocab = 0;
  // Attention maps: per map, the weights of the query that chose each
  // token, [B, steps, Lk] per head (heads: 1 for a map [rows, T, Lk]).
  const bool wantMaps = o.attention_maps != nullptr;
  std::vector<Tensor> stepMaps;
  std::vector<KeptMap> mapKept;
  for (int64_t s = 0; s < steps; ++s) {
    // The prompts on the first step, then each row's last token.
    Tensor logits;
    if (attune_status *st =
            session.run(tokenValues, s == 0 ? r.width : 1, positionValues,
                        lengthValues, logits, wantMaps ? &stepMaps : nullptr))
      return st;
    if (wantMaps)
      if (attune_status *st = keepMaps(session, stepMaps, lengthValues, done, s,
                                       steps, mapKept))
        return st;
    vocab = attune_tensor_shape(logits.get())[1];
    if (o.pad_id < 0 || o.pad_id >= vocab)
      return error("%s: pad id %lld is outside the vocabulary [0, %lld)",
                   session.where(), static_cast<long long>(o.pad_id),
                   static_cast<long long>(vocab));
    const float *rows =
        static_cast<const float *>(attune_tensor_data(logits.get()));
    if (logitsOut) {
      if (kept.empty())
        kept.assign(batch * steps * vocab, 0.0f);
      for (int64_t b = 0; b < batch; ++b)
        if (!done[b])
          std::memcpy(&kept[(b * steps + s) * vocab], rows + b * vocab,
                      vocab * sizeof(float));
    }
    ++ran;
    // Each row's token; what the next step feeds: the token at its
    // position, or for a finished row the token it ended with, again at the
    // same position (a harmless rewrite of its own cache row: a step runs
    // the whole batch).
    bool stop = true, cancelled = false;
    tokenValues.resize(batch);
    for (int64_t b = 0; b < batch; ++b) {
      if (!done[b]) {
        int64_t token = choose(rows + b * vocab, vocab, o, random, order);
        chosen[b * steps + s] = token;
        scores[b] += rows[b * vocab + token] - logSumExp(rows + b * vocab, vocab);
        if (o.on_token && o.on_token(o.user, b, s, token) != 0)
          cancelled = true;
        tokenValues[b] = forced ? forced[b * steps + s] : token;
        positionValues[b] = r.lengths[b] + s;
        if (!forced && isEos(o, token))
          done[b] = true;
      }
      stop &= done[b];
    }
    if (stop || cancelled)
      break;
    lengthValues.assign(batch, 1);
  }

  std::vector<int64_t> out = firstSteps(chosen, batch, steps, ran, 1);
  if (attune_status *st = tensorOf(ATTUNE_I64, {batch, ran}, out.data(),
                                   tokensOut))
    return st;
  if (scoresOut) {
    std::vector<float> narrow(scores.begin(), scores.end());
    if (attune_status *st = tensorOf(ATTUNE_F32, {batch}, narrow.data(),
                                     scoresOut))
      return st;
  }
  if (wantMaps)
    for (size_t m = 0; m < mapKept.size(); ++m) {
      const KeptMap &map = mapKept[m];
      std::vector<float> narrow =
          firstSteps(map.rows, batch * map.heads, steps, ran, map.keys);
      if (attune_status *st =
              mapTensor(map, batch, ran, narrow, &o.attention_maps[m]))
        return st;
    }
  if (logitsOut) {
    std::vector<float> rowsKept = firstSteps(kept, batch, steps, ran, vocab);
    if (attune_status *st = tensorOf(ATTUNE_F32, {batch, ran, vocab},
                                     rowsKept.data(), logitsOut))
      return st;
  }
  return nullptr;
}

/// One step of a beam hypothesis's attention maps: per map, the weights of
/// the query that chose the step's token (heads x keys), and the steps
/// before, shared with every hypothesis that continues the same beam (a
/// beam's history is a list, so reordering the beams copies nothing).
struct MapHistory {
  std::vector<std::vector<float>> rows;
  mutable std::shared_ptr<const MapHistory> before;

  MapHistory() = default;
  MapHistory(const MapHistory &) = delete;
  MapHistory &operator=(const MapHistory &) = delete;
  /// Releases the steps before one at a time: the default would nest a
  /// destructor call per step of a long generation.
  ~MapHistory() {
    std::shared_ptr<const MapHistory> next = std::move(before);
    while (next && next.use_count() == 1)
      next = std::move(next->before);
  }
};

/// A hypothesis of beam search: its new tokens and their summed log
/// probability.
struct Hypothesis {
  std::vector<int64_t> tokens;
  double logProb = 0.0;
  double score = 0.0; // logProb / lengthPenalty (finished ones)
  /// With attention maps: the maps of its last token, then the steps before.
  std::shared_ptr<const MapHistory> maps;
};

/// Beam search, K beams per sequence run as rows b * K + k: each step
/// takes the 2K best continuations (summed log probability; ties: the
/// lower beam, then the lower id) of a sequence's live beams; one that ends
/// in eos among the first K becomes a finished hypothesis scored
/// logProb / ((5 + length) / 6)^alpha (length counting the eos), the others
/// fill the K beams of the next step. A sequence is done when it has K
/// finished hypotheses; at the token limit its live beams finish as they
/// are. The `num_return` best by score are returned.
attune_status *beamSearch(Session &session, const Request &r,
                          attune_tensor **tokensOut,
                          attune_tensor **scoresOut) {
  // Attention maps follow each hypothesis: a beam's step appends the row
  // of the beam it continues (MapHistory), so the maps returned are those
  // of the returned hypothesis's own tokens.
  const bool wantMaps = r.o.attention_maps != nullptr;
  std::vector<Tensor> stepMaps;
  std::vector<KeptMap> mapLayouts;
  const attune_generate_options &o = r.o;
  const int64_t batch = r.batch, K = o.beam_width, steps = r.steps;
  const int64_t rows = batch * K;
  const int64_t returned = std::max<int64_t>(1, o.num_return);
  const double alpha = o.length_penalty;
  // The prompts, each repeated K times (prefill computes every beam).
  std::vector<int64_t> tokenValues(rows * r.width), positionValues(rows, 0),
      lengthValues(rows);
  for (int64_t row = 0; row < rows; ++row) {
    std::copy_n(r.prompt + (row / K) * r.width, r.width,
                &tokenValues[row * r.width]);
    lengthValues[row] = r.lengths[row / K];
  }
  std::vector<std::vector<Hypothesis>> live(batch), finished(batch);
  for (int64_t b = 0; b < batch; ++b)
    live[b].assign(1, Hypothesis{}); // one beam until the first step
  std::vector<bool> done(batch, false);
  int64_t vocab = 0;
  for (int64_t s = 0; s < steps; ++s) {
    Tensor logits;
    if (attune_status *st =
            session.run(tokenValues, s == 0 ? r.width : 1, positionValues,
                        lengthValues, logits, wantMaps ? &stepMaps : nullptr))
      return st;
    std::vector<int64_t> mapQueries(stepMaps.size(), 0);
    for (size_t m = 0; wantMaps && m < stepMaps.size(); ++m)
      if (attune_status *st = checkMap(session, stepMaps[m].get(), m, rows, s,
                                       mapLayouts, mapQueries[m]))
        return st;
    // The step's maps of row `row` on top of its beam's history, made once
    // per row and shared by the candidates that continue it.
    std::vector<std::shared_ptr<const MapHistory>> rowMaps(rows);
    auto mapsOf = [&](int64_t row, const Hypothesis &from) {
      if (!wantMaps)
        return std::shared_ptr<const MapHistory>();
      if (!rowMaps[row]) {
        auto h = std::make_shared<MapHistory>();
        h->before = from.maps;
        for (size_t m = 0; m < stepMaps.size(); ++m) {
          const KeptMap &layout = mapLayouts[m];
          int64_t queries = mapQueries[m];
          int64_t query = std::min(queries, lengthValues[row]) - 1;
          std::vector<float> weights;
          for (int64_t hh = 0; hh < layout.heads; ++hh) {
            const float *w = mapRow(stepMaps[m].get(), row, hh, layout.heads,
                                    queries, query, layout.keys);
            weights.insert(weights.end(), w, w + layout.keys);
          }
          h->rows.push_back(std::move(weights));
        }
        rowMaps[row] = std::move(h);
      }
      return rowMaps[row];
    };
    vocab = attune_tensor_shape(logits.get())[1];
    const float *all =
        static_cast<const float *>(attune_tensor_data(logits.get()));
    std::vector<std::pair<int64_t, int64_t>> moves; // (to row, from row)
    std::vector<int64_t> next(rows, 0);
    bool allDone = true, cancelled = false;
    for (int64_t b = 0; b < batch; ++b) {
      if (done[b]) {
        // Rows of a finished sequence repeat their last token in place.
        for (int64_t k = 0; k < K; ++k)
          next[b * K + k] = tokenValues[(b * K + k) * (s == 0 ? r.width : 1)];
        continue;
      }
      struct Candidate {
        double logProb;
        int64_t beam, token;
      };
      std::vector<Candidate> candidates;
      for (size_t k = 0; k < live[b].size(); ++k) {
        const float *row = all + (b * K + k) * vocab;
        double norm = logSumExp(row, vocab);
        for (int64_t v = 0; v < vocab; ++v)
          candidates.push_back({live[b][k].logProb + row[v] - norm,
                                static_cast<int64_t>(k), v});
      }
      size_t keep = std::min<size_t>(2 * K, candidates.size());
      std::partial_sort(candidates.begin(), candidates.begin() + keep,
                        candidates.end(),
                        [](const Candidate &x, const Candidate &y) {
                          if (x.logProb != y.logProb)
                            return x.logProb > y.logProb;
                          if (x.beam != y.beam)
                            return x.beam < y.beam;
                          return x.token < y.token;
                        });
      std::vector<Hypothesis> beams;
      std::vector<int64_t> sources;
      for (size_t c = 0; c < keep && static_cast<int64_t>(beams.size()) < K;
           ++c) {
        const Candidate &cand = candidates[c];
        Hypothesis h = live[b][cand.beam];
        h.tokens.push_back(cand.token);
        h.logProb = cand.logProb;
        h.maps = mapsOf(b * K + cand.beam, live[b][cand.beam]);
        if (isEos(o, cand.token)) {
          if (static_cast<int64_t>(c) < K) {
            h.score = h.logProb / lengthPenalty(alpha, h.tokens.size());
            finished[b].push_back(std::move(h));
          }
          continue;
        }
        beams.push_back(std::move(h));
        sources.push_back(cand.beam);
      }
      if (static_cast<int64_t>(finished[b].size()) >= K || beams.empty() ||
          s + 1 == steps) {
        if (static_cast<int64_t>(finished[b].size()) < K || beams.empty())
          for (Hypothesis &h : beams) {
            h.score = h.logProb / lengthPenalty(alpha, h.tokens.size());
            finished[b].push_back(std::move(h));
          }
        done[b] = true;
        for (int64_t k = 0; k < K; ++k)
          next[b * K + k] = o.pad_id;
        continue;
      }
      allDone = false;
      for (size_t k = 0; k < beams.size(); ++k) {
        int64_t to = b * K + k, from = b * K + sources[k];
        if (to != from)
          moves.push_back({to, from});
        next[to] = beams[k].tokens.back();
        // Streaming: the best live beam's token (a later step may still
        // prefer another hypothesis); a non-zero return ends the search.
        if (o.on_token && k == 0 && o.on_token(o.user, b, s, next[to]) != 0)
          cancelled = true;
      }
      // Fewer than K live beams (eos took the rest): the spare rows repeat
      // the first beam.
      for (size_t k = beams.size(); k < static_cast<size_t>(K); ++k) {
        moves.push_back({b * K + k, b * K + sources[0]});
        next[b * K + k] = beams[0].tokens.back();
      }
      live[b] = std::move(beams);
    }
    if (cancelled) {
      // The live beams finish as they are.
      for (int64_t b = 0; b < batch; ++b)
        if (!done[b])
          for (Hypothesis &h : live[b]) {
            h.score = h.logProb / lengthPenalty(alpha, h.tokens.size());
            finished[b].push_back(std::move(h));
          }
      break;
    }
    if (allDone)
      break;
    // Every live beam continues from its source's cache, then feeds its
    // new token at the next position.
    if (attune_status *st = session.reorder(moves, r.width + s))
      return st;
    tokenValues = next;
    for (int64_t row = 0; row < rows; ++row) {
      positionValues[row] = r.lengths[row / K] + s;
      lengthValues[row] = 1;
    }
  }

  // The best `returned` of each sequence, by score (stable: the earlier
  // finished first), padded with pad_id to the longest.
  int64_t longest = 1;
  for (int64_t b = 0; b < batch; ++b) {
    std::stable_sort(finished[b].begin(), finished[b].end(),
                     [](const Hypothesis &x, const Hypothesis &y) {
                       return x.score > y.score;
                     });
    if (static_cast<int64_t>(finished[b].size()) < returned)
      return error("%s: beam search found %zu hypotheses for sequence %lld, "
                   "fewer than the %lld asked for",
                   session.where(), finished[b].size(),
                   static_cast<long long>(b),
                   static_cast<long long>(returned));
    for (int64_t n = 0; n < returned; ++n)
      longest = std::max<int64_t>(longest, finished[b][n].tokens.size());
  }
  std::vector<int64_t> out(batch * returned * longest, o.pad_id);
  std::vector<float> scores(batch * returned);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t n = 0; n < returned; ++n) {
      const Hypothesis &h = finished[b][n];
      std::copy(h.tokens.begin(), h.tokens.end(),
                &out[(b * returned + n) * longest]);
      scores[b * returned + n] = static_cast<float>(h.score);
    }
  std::vector<int64_t> shape = {batch, longest}, scoreShape = {batch};
  if (o.num_return > 1) {
    shape = {batch, returned, longest};
    scoreShape = {batch, returned};
  }
  // The maps of each sequence's best hypothesis, [B, (H,) N, Lk], zero
  // after its last token (num_return is 1 with maps).
  for (size_t m = 0; wantMaps && m < mapLayouts.size(); ++m) {
    const KeptMap &layout = mapLayouts[m];
    const int64_t heads = layout.heads, keys = layout.keys;
    std::vector<float> maps(batch * heads * longest * keys, 0.0f);
    for (int64_t b = 0; b < batch; ++b) {
      const Hypothesis &h = finished[b][0];
      int64_t t = static_cast<int64_t>(h.tokens.size());
      for (const MapHistory *step = h.maps.get(); step && t > 0;
           step = step->before.get()) {
        --t;
        for (int64_t hh = 0; hh < heads; ++hh)
          std::copy_n(&step->rows[m][hh * keys], keys,
                      &maps[((b * heads + hh) * longest + t) * keys]);
      }
    }
    if (attune_status *st =
            mapTensor(layout, batch, longest, maps, &o.attention_maps[m]))
      return st;
  }
  if (attune_status *st = tensorOf(ATTUNE_I64, shape, out.data(), tokensOut))
    return st;
  if (scoresOut)
    if (attune_status *st =
            tensorOf(ATTUNE_F32, scoreShape, scores.data(), scoresOut)) {
      attune_tensor_free(*tokensOut);
      return st;
    }
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
                                     attune_tensor **scoresOut,
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
  if (!(o.temperature >= 0.0f) || std::isinf(o.temperature))
    return error("%s: temperature must be a finite number >= 0, got %g",
                 where, static_cast<double>(o.temperature));
  int64_t vocab = step->outputs[0].shape.size() == 2
                      ? step->outputs[0].shape[1]
                      : -1;
  bool beam = o.beam_width > 1;
  if (beam) {
    if (vocab > 0 && static_cast<int64_t>(o.beam_width) > vocab)
      return error("%s: beam width %zu is larger than the vocabulary (%lld)",
                   where, o.beam_width, static_cast<long long>(vocab));
    if (o.num_return > o.beam_width)
      return error("%s: %zu hypotheses asked for, more than the beam width "
                   "%zu",
                   where, o.num_return, o.beam_width);
    if (o.temperature > 0.0f || o.forced || logitsOut)
      return error("%s: beam search takes no temperature, forced tokens or "
                   "logits output",
                   where);
    if (o.attention_maps && o.num_return > 1)
      return error("%s: beam search returns the attention maps of the best "
                   "hypothesis only; %zu hypotheses asked for with maps",
                   where, o.num_return);
  } else if (o.num_return > 1) {
    return error("%s: %zu hypotheses asked for without beam search (beam "
                 "width %zu)",
                 where, o.num_return, o.beam_width);
  }
  // The step's outputs after the logits are its attention maps.
  size_t numMaps = step->outputs.size() - 1;
  if (o.attention_maps && o.num_attention_maps != numMaps)
    return error("%s: %zu attention map(s) asked for, but the step returns "
                 "%zu (compile with attune-compile --attention-maps)",
                 where, o.num_attention_maps, numMaps);
  if (o.attention_maps)
    for (size_t m = 0; m < numMaps; ++m)
      o.attention_maps[m] = nullptr;
  if (!std::isfinite(o.length_penalty))
    return error("%s: the length penalty must be finite, got %g", where,
                 static_cast<double>(o.length_penalty));
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
  if (o.forced &&
      (attune_tensor_dtype(o.forced) != ATTUNE_I64 ||
       attune_tensor_rank(o.forced) != 2 ||
       attune_tensor_shape(o.forced)[0] != batch ||
       attune_tensor_shape(o.forced)[1] < 1))
    return error("%s: forced tokens must be an i64 tensor [%lld, N >= 1]",
                 where, static_cast<long long>(batch));
  const int64_t steps =
      o.forced ? attune_tensor_shape(o.forced)[1] : o.max_new_tokens;
  // Positions the caches must hold: the prompt, then every new token but
  // the last, which is chosen and not fed back.
  const int64_t needed = longest + steps - 1;

  // Past a prompt's length its row holds padding, which the step reads
  // (and masks); it must still be an id the embedding accepts.
  const int64_t *given = static_cast<const int64_t *>(
      attune_tensor_data(const_cast<attune_tensor *>(prompt)));
  std::vector<int64_t> prompts(given, given + batch * width);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = lengths[b]; t < width; ++t)
      prompts[b * width + t] = prompts[b * width];

  Session session(model, entry, *step);
  int64_t rows = beam ? batch * static_cast<int64_t>(o.beam_width) : batch;
  // The encoder, once: its outputs are the steps' contexts.
  std::vector<Tensor> contexts;
  for (size_t e = 0; e < attune_model_num_entries(model); ++e) {
    const artifact::EntrySpec *encoder = entrySpec(model, e);
    if (!encoder || !encoder->generationEncoder)
      continue;
    if (o.num_encoder_inputs != encoder->inputs.size() ||
        (o.num_encoder_inputs && !o.encoder_inputs))
      return error("%s: the model's encoder @%s takes %zu input(s), got %zu",
                   where, encoder->name.c_str(), encoder->inputs.size(),
                   o.num_encoder_inputs);
    std::vector<attune_tensor *> outputs(encoder->outputs.size(), nullptr);
    attune_status *s =
        attune_model_run(model, e, o.encoder_inputs, o.num_encoder_inputs,
                         outputs.data(), outputs.size());
    for (attune_tensor *t : outputs)
      contexts.emplace_back(t);
    if (s)
      return s;
    for (Tensor &t : contexts)
      if (attune_tensor_rank(t.get()) < 1 ||
          attune_tensor_shape(t.get())[0] != batch)
        return error("%s: the encoder's outputs have %lld rows, but the "
                     "prompt has %lld sequences",
                     where,
                     static_cast<long long>(attune_tensor_rank(t.get())
                                                ? attune_tensor_shape(t.get())[0]
                                                : 0),
                     static_cast<long long>(batch));
    if (attune_status *st = session.setContexts(
            *encoder, contexts, beam ? static_cast<int64_t>(o.beam_width) : 1))
      return st;
  }
  if (o.num_encoder_inputs && contexts.empty())
    return error("%s: %zu encoder input(s) given, but the model has no "
                 "generation encoder",
                 where, o.num_encoder_inputs);
  if (attune_status *s =
          session.allocate(rows, needed, o.capacity, longest, steps))
    return s;
  Request request{o, batch, width, steps, needed, prompts.data(), lengths};
  if (scoresOut)
    *scoresOut = nullptr;
  if (logitsOut)
    *logitsOut = nullptr;
  return beam ? beamSearch(session, request, tokensOut, scoresOut)
              : sampleRows(session, request, tokensOut, scoresOut, logitsOut);
}

} // extern "C"
