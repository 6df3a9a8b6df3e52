/*===- attune/runtime.h - the Attune runtime C API -------------------------===*
 *
 * Loads a model compiled by attune-compile and runs it on tensors. No MLIR
 * or LLVM dependency: link libattune_runtime.so (and libdl).
 *
 * Errors: every call that can fail returns an `attune_status *`: NULL on
 * success, otherwise an object carrying a message, which the caller frees
 * with attune_status_free.
 *
 * Thread safety: a model is immutable once opened. attune_model_run may be
 * called concurrently from several threads on the same model, each with its
 * own input and output tensors. Tensors are not synchronized: do not write a
 * tensor while another thread reads it. Closing a model while it runs is
 * undefined.
 *
 * Tensors are dense and row-major (C order).
 *===----------------------------------------------------------------------===*/

#ifndef ATTUNE_RUNTIME_H
#define ATTUNE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ATTUNE_API __attribute__((visibility("default")))
#else
#define ATTUNE_API
#endif

/* The version of the API this header declares; raised when a declaration
 * changes. attune_runtime_api_version() is the library's. */
#define ATTUNE_RUNTIME_API_VERSION 2
ATTUNE_API int attune_runtime_api_version(void);
/* The artifact metadata format this runtime reads (attune/artifact.h): an
 * artifact of another format is refused with a message saying to recompile
 * it. */
ATTUNE_API int attune_artifact_format_version(void);

typedef struct attune_status attune_status;
ATTUNE_API const char *attune_status_message(const attune_status *status);
ATTUNE_API void attune_status_free(attune_status *status);

typedef enum attune_dtype {
  ATTUNE_F32 = 0,
  ATTUNE_F16 = 1,
  ATTUNE_BF16 = 2,
  ATTUNE_I32 = 3,
  ATTUNE_I64 = 4,
  /* One byte per element, 0 or 1 (NumPy's bool): masks such as an imported
   * model's key_padding_mask. */
  ATTUNE_BOOL = 5,
} attune_dtype;
/* "f32", "f16", "bf16", "i32", "i64", "bool". */
ATTUNE_API const char *attune_dtype_name(attune_dtype dtype);
ATTUNE_API size_t attune_dtype_size(attune_dtype dtype);

/*--- Tensors --------------------------------------------------------------*/

typedef struct attune_tensor attune_tensor;

/* A new zero-filled tensor that owns its memory. */
ATTUNE_API attune_status *attune_tensor_create(attune_dtype dtype, size_t rank,
                                               const int64_t *shape,
                                               attune_tensor **out);
/* A tensor over caller-owned memory, which must outlive it. */
ATTUNE_API attune_status *attune_tensor_wrap(attune_dtype dtype, size_t rank,
                                             const int64_t *shape, void *data,
                                             attune_tensor **out);
ATTUNE_API void attune_tensor_free(attune_tensor *tensor);
ATTUNE_API attune_dtype attune_tensor_dtype(const attune_tensor *tensor);
ATTUNE_API size_t attune_tensor_rank(const attune_tensor *tensor);
ATTUNE_API const int64_t *attune_tensor_shape(const attune_tensor *tensor);
ATTUNE_API size_t attune_tensor_num_elements(const attune_tensor *tensor);
ATTUNE_API void *attune_tensor_data(attune_tensor *tensor);

/* NumPy .npy files (little-endian, C order; f32, f16, i32, i64, and bf16
   as its raw bits with descr '|V2', as ml_dtypes saves it). */
ATTUNE_API attune_status *attune_tensor_read_npy(const char *path,
                                                 attune_tensor **out);
ATTUNE_API attune_status *attune_tensor_write_npy(const attune_tensor *tensor,
                                                  const char *path);

/*--- Models ---------------------------------------------------------------*/

typedef struct attune_model attune_model;

typedef struct attune_tensor_info {
  const char *name;     /* NULL when the index is out of range */
  attune_dtype dtype;
  size_t rank;
  const int64_t *shape; /* -1 marks a dynamic dimension */
} attune_tensor_info;

/* Opens a shared library produced by attune-compile. A model compiled with
 * --weights-external loads its weights from the safetensors file recorded at
 * compile time. */
ATTUNE_API attune_status *attune_model_open(const char *path,
                                            attune_model **out);
/* The same with the weights of a --weights-external model taken from
 * `weights` (a safetensors file; names, dtypes and shapes are checked). The
 * weights live in the library's globals: one process can hold a given model
 * file with one weights file at a time. */
ATTUNE_API attune_status *attune_model_open_with_weights(const char *path,
                                                         const char *weights,
                                                         attune_model **out);
ATTUNE_API void attune_model_close(attune_model *model);
/* Opens a model to describe it, not to run it: its metadata is read and
 * nothing else is done (no device, no weights, no check that this CPU runs
 * its code). attune_model_run on it fails. */
ATTUNE_API attune_status *attune_model_inspect(const char *path,
                                               attune_model **out);
/* What the artifact was compiled for, one "key: value" line each:
 * "targets: cpu vulkan", "cpu: NAME", "cpu-features: avx, avx2, ...",
 * "runs on this cpu: yes" (or "no, it lacks ..."), and where they apply
 * "vulkan-profile: ..." and "weights: ...". Opening a model whose code uses
 * an ISA extension this CPU lacks fails with those extensions named. */
ATTUNE_API const char *attune_model_target_info(const attune_model *model);

/* Devices. `spec`: "cpu"; "vulkan" (the first discrete, integrated, virtual
 * or CPU Vulkan device, in that order); "vulkan:N" (device index N);
 * "vulkan:NAME" (the first device whose name contains NAME, any case); or
 * "auto" (Vulkan if a device opens, else the CPU, saying so on stderr).
 * The Vulkan loader (libvulkan.so.1) is opened here, not at link time.
 * ATTUNE_VULKAN_VALIDATION=1 enables the Khronos validation layer: any
 * message it reports fails the run. ATTUNE_VULKAN_PIPELINE_CACHE names the
 * pipeline cache file ("off": none; default
 * $XDG_CACHE_HOME/attune/vulkan-pipelines-VENDOR-DEVICE.bin).
 * A device must outlive the models opened on it. */
typedef struct attune_device attune_device;
ATTUNE_API attune_status *attune_device_open(const char *spec,
                                             attune_device **out);
ATTUNE_API void attune_device_close(attune_device *device);
/* "cpu" or "vulkan:N (name, type)". */
ATTUNE_API const char *attune_device_description(const attune_device *device);
ATTUNE_API int attune_device_is_vulkan(const attune_device *device);
/* The Vulkan devices, one "N: name (type, Vulkan x.y)" line each; free the
 * text with free(). */
ATTUNE_API attune_status *attune_vulkan_devices(char **text);

/* attune_model_open_with_weights on `device` (NULL: the CPU). On a Vulkan
 * device the model's pipelines are created (through the pipeline cache) and
 * its weights uploaded once; runs record the whole model into one command
 * buffer, submitted once. Vulkan runs of one model are serialized. */
ATTUNE_API attune_status *attune_model_open_on(const char *path,
                                               const char *weights,
                                               attune_device *device,
                                               attune_model **out);
/* The device the model runs on, as attune_device_description says it. */
ATTUNE_API const char *attune_model_device(const attune_model *model);
/* Vulkan only: time every kernel of later runs with timestamp queries. */
ATTUNE_API attune_status *attune_model_set_profiling(attune_model *model,
                                                     int enable);
/* The last profiled run's per-kernel GPU times, as a table. */
ATTUNE_API const char *attune_model_profile(const attune_model *model);

/* Entry points: the model's public functions, in definition order. */
ATTUNE_API size_t attune_model_num_entries(const attune_model *model);
ATTUNE_API const char *attune_model_entry_name(const attune_model *model,
                                               size_t entry);
ATTUNE_API attune_status *attune_model_find_entry(const attune_model *model,
                                                  const char *name,
                                                  size_t *entry);
ATTUNE_API size_t attune_model_num_inputs(const attune_model *model,
                                          size_t entry);
ATTUNE_API size_t attune_model_num_outputs(const attune_model *model,
                                           size_t entry);
ATTUNE_API attune_tensor_info attune_model_input(const attune_model *model,
                                                 size_t entry, size_t index);
ATTUNE_API attune_tensor_info attune_model_output(const attune_model *model,
                                                  size_t entry, size_t index);

/* Worker threads for the model's parallel kernels in later runs from the
 * calling thread: n >= 1, or 0 for the OpenMP default (OMP_NUM_THREADS, else
 * every core). */
ATTUNE_API attune_status *attune_model_set_num_threads(attune_model *model,
                                                       int n);

/* Runs `entry` on `inputs` (in the entry's order). Each input is checked
 * against the metadata (dtype, rank, static dimensions). On success,
 * outputs[0 .. num_outputs) receive new tensors that the caller frees.
 * A failed shape check inside the model, or a buffer the model cannot
 * allocate, fails the run with a message (the buffers the run had allocated
 * are freed); an allocation that fails inside a parallel
 * region of a --parallel model reports on stderr and aborts, since the
 * other threads cannot be unwound. */
ATTUNE_API attune_status *attune_model_run(const attune_model *model,
                                           size_t entry,
                                           const attune_tensor *const *inputs,
                                           size_t num_inputs,
                                           attune_tensor **outputs,
                                           size_t num_outputs);
/* An input that is a generation state (attune_model_input_is_state) is
 * written in place: after the run, the caller's tensor holds its new value
 * (a key/value cache with the step's keys appended). It is not an output. */
ATTUNE_API int attune_model_input_is_state(const attune_model *model,
                                           size_t entry, size_t index);
/* Whether input `index` of entry `entry` is a context: a generation step's
 * input that the generation encoder computes (its output of that name). */
ATTUNE_API int attune_model_input_is_context(const attune_model *model,
                                             size_t entry, size_t index);
/* Whether entry `entry` is a generation step (attune_model_generate's):
 * inputs tokens [B, T], positions [B], lengths [B], then its contexts and
 * states; output logits [B, V]. */
ATTUNE_API int attune_model_entry_is_generation_step(const attune_model *model,
                                                     size_t entry);
/* Whether entry `entry` is the generation encoder: its inputs are the ones
 * attune_generate_options.encoder_inputs gives. */
ATTUNE_API int
attune_model_entry_is_generation_encoder(const attune_model *model,
                                         size_t entry);

/* The bytes and buffers the models' code has allocated in this process so
 * far (intermediates and results of every run, on the CPU): for tests and
 * profiling, e.g. that a decoding step allocates as much at position 1000
 * as at position 10. Either pointer may be NULL. */
ATTUNE_API void attune_runtime_allocation_stats(uint64_t *bytes,
                                                uint64_t *buffers);

/* The bytes Vulkan runs have copied from the host to the device (inputs, and
 * the initial states and contexts of generations) and back (outputs, and
 * states given to attune_model_run), and the device bytes their code has
 * allocated, in this process so far: e.g. that a generation step on the
 * device moves and allocates as much at position 1000 as at position 10.
 * Any pointer may be NULL. */
ATTUNE_API void attune_runtime_transfer_stats(uint64_t *uploaded,
                                              uint64_t *downloaded,
                                              uint64_t *device_bytes);

/*--- Generation -----------------------------------------------------------*/

/* Called for every token as it is chosen: sequence b of the batch, its
 * step (0 for its first new token); for beam search, the best live beam's
 * token of each step (a later step may still prefer another hypothesis).
 * A non-zero return stops the generation (the tokens so far are returned;
 * beam search finishes its live beams as they are). */
typedef int (*attune_token_callback)(void *user, size_t sequence,
                                     size_t step, int64_t token);

typedef struct attune_generate_options {
  int64_t max_new_tokens;  /* >= 1 */
  const int64_t *eos_ids;  /* a sequence ends after choosing one of these */
  size_t num_eos;
  int64_t pad_id;          /* fills a row after its end (in [0, V)) */
  size_t beam_width;       /* 0 or 1: one row per sequence (greedy or
                              sampling); K > 1: beam search with K beams */
  float length_penalty;    /* beam search: a finished hypothesis scores
                              logprob / ((5 + length) / 6)^length_penalty
                              (GNMT); 0: the summed log probability */
  size_t num_return;       /* beam search: hypotheses returned per sequence
                              (0 or 1: the best; at most beam_width) */
  float temperature;       /* 0: the most probable token (greedy); > 0:
                              sampling from softmax(logits / temperature) */
  size_t top_k;            /* sampling among the k most probable (0: all;
                              1 is greedy) */
  uint64_t seed;           /* sampling: the same seed, the same tokens */
  int64_t capacity;        /* states with a dynamic capacity: positions to
                              allocate (0: the longest prompt + max_new) */
  attune_token_callback on_token; /* may be NULL */
  void *user;
  /* Teacher forcing (tests): tokens [B, N] fed back instead of the chosen
     ones; exactly N steps run, eos ends nothing. NULL: off. */
  const attune_tensor *forced;
  /* A model with a generation encoder (an encoder-decoder): its inputs, in
     its order (the source sequence, its lengths, ...); it runs once and
     every step reads its outputs (the contexts). */
  const attune_tensor *const *encoder_inputs;
  size_t num_encoder_inputs;
  /* A model compiled with --attention-maps: its step's maps (the outputs
     after the logits, attention-map names attn.<site>), one slot per map
     (num_attention_maps must be their number). Each receives f32
     [B, N, Lk] (a seq2seq attention) or [B, H, N, Lk]: the weights of the
     query whose logits chose each new token (zero after a row's end); the
     caller frees them. NULL: none. Beam search: the maps of each
     sequence's best hypothesis (num_return must be 1). */
  attune_tensor **attention_maps;
  size_t num_attention_maps;
} attune_generate_options;

/* Greedy decoding of at most 16 tokens, length penalty 1, nothing forced,
 * no callback, eos none, pad 0. */
ATTUNE_API void attune_generate_options_init(attune_generate_options *options);

/* Generates with the model's generation step (an entry compiled from a
 * function marked attune.generation_step): the prompts `prompt` [B, T]
 * (int64; sequence b is prompt[b, :lengths[b]], `lengths` [B] int64 or NULL
 * for T each) are run once (prefill), then one step per new token, the
 * key/value caches written in place.
 *   *tokens: the new tokens [B, N] (int64, each row up to and including its
 *     eos, then pad_id; N the longest row), or [B, R, N] for beam search
 *     with num_return R > 1 (best first).
 *   *scores (if non-NULL): f32 [B] (or [B, R]): the summed log probability
 *     of each row's tokens; for beam search, the length-penalized score.
 *   *logits (if non-NULL; not with beam search): the logits that chose each
 *     token [B, N, V] (f32; zero after a row's end).
 * Errors name the value and its limit (a prompt longer than the cache, an
 * id outside the vocabulary, a beam wider than it, ...); the model stays
 * usable. */
ATTUNE_API attune_status *attune_model_generate(
    const attune_model *model, const attune_tensor *prompt,
    const attune_tensor *lengths, const attune_generate_options *options,
    attune_tensor **tokens, attune_tensor **scores, attune_tensor **logits);

#ifdef __cplusplus
}
#endif

#endif /* ATTUNE_RUNTIME_H */
