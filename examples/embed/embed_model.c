/*===- embed_model.c - embedding the Attune runtime in a C program --------===*
 *
 *   embed_model MODEL.so THREADS INPUT.npy...
 *
 * Opens a compiled model, prints its signature, runs it once on the given
 * inputs (in the entry's order), then runs it from THREADS threads at once,
 * 10 times each, and checks that every result is bit-identical to the first.
 * Plain C99 against attune/runtime.h; link with -lattune_runtime -lpthread.
 *===----------------------------------------------------------------------===*/

#include "attune/runtime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS_PER_THREAD 10

struct job {
  const attune_model *model;
  const attune_tensor *const *inputs;
  size_t num_inputs, num_outputs;
  attune_tensor **expected;
  int mismatches;
  char error[512];
};

static int check(attune_status *status, const char *what) {
  if (!status)
    return 1;
  fprintf(stderr, "embed_model: %s: %s\n", what, attune_status_message(status));
  attune_status_free(status);
  return 0;
}

static void *worker(void *arg) {
  struct job *job = arg;
  attune_tensor *outputs[16];
  for (int r = 0; r < RUNS_PER_THREAD; ++r) {
    attune_status *s = attune_model_run(job->model, 0, job->inputs,
                                        job->num_inputs, outputs,
                                        job->num_outputs);
    if (s) {
      snprintf(job->error, sizeof job->error, "%s", attune_status_message(s));
      attune_status_free(s);
      return NULL;
    }
    for (size_t o = 0; o < job->num_outputs; ++o) {
      size_t bytes = attune_tensor_num_elements(outputs[o]) *
                     attune_dtype_size(attune_tensor_dtype(outputs[o]));
      if (memcmp(attune_tensor_data(outputs[o]),
                 attune_tensor_data(job->expected[o]), bytes) != 0)
        ++job->mismatches;
      attune_tensor_free(outputs[o]);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: embed_model MODEL.so THREADS INPUT.npy...\n");
    return 2;
  }
  int threads = atoi(argv[2]);
  if (threads < 1 || threads > 64) {
    fprintf(stderr, "embed_model: THREADS must be in [1, 64]\n");
    return 2;
  }
  attune_model *model;
  if (!check(attune_model_open(argv[1], &model), "open"))
    return 1;

  size_t num_inputs = attune_model_num_inputs(model, 0);
  size_t num_outputs = attune_model_num_outputs(model, 0);
  printf("entry %s:", attune_model_entry_name(model, 0));
  for (size_t i = 0; i < num_inputs; ++i)
    printf(" %s", attune_model_input(model, 0, i).name);
  printf(" ->");
  for (size_t o = 0; o < num_outputs; ++o)
    printf(" %s", attune_model_output(model, 0, o).name);
  printf("\n");
  if ((size_t)(argc - 3) != num_inputs || num_outputs > 16) {
    fprintf(stderr, "embed_model: the model takes %zu input(s), got %d\n",
            num_inputs, argc - 3);
    return 1;
  }

  attune_tensor *inputs[16];
  for (size_t i = 0; i < num_inputs; ++i)
    if (!check(attune_tensor_read_npy(argv[3 + i], &inputs[i]), argv[3 + i]))
      return 1;

  attune_tensor *expected[16];
  if (!check(attune_model_run(model, 0, (const attune_tensor *const *)inputs,
                              num_inputs, expected, num_outputs),
             "run"))
    return 1;

  pthread_t ids[64];
  struct job jobs[64];
  for (int t = 0; t < threads; ++t) {
    jobs[t] = (struct job){model, (const attune_tensor *const *)inputs,
                           num_inputs, num_outputs, expected, 0, ""};
    pthread_create(&ids[t], NULL, worker, &jobs[t]);
  }
  int failed = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    if (jobs[t].error[0]) {
      fprintf(stderr, "embed_model: thread %d: %s\n", t, jobs[t].error);
      failed = 1;
    }
    if (jobs[t].mismatches) {
      fprintf(stderr, "embed_model: thread %d: %d result(s) differ\n", t,
              jobs[t].mismatches);
      failed = 1;
    }
  }
  if (!failed)
    printf("ok: %d thread(s) x %d runs, every result identical\n", threads,
           RUNS_PER_THREAD);

  for (size_t o = 0; o < num_outputs; ++o)
    attune_tensor_free(expected[o]);
  for (size_t i = 0; i < num_inputs; ++i)
    attune_tensor_free(inputs[i]);
  attune_model_close(model);
  return failed;
}
