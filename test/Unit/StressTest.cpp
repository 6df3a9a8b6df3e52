//===- StressTest.cpp - one model, many threads, many runs ----------------===//
//
// attune-stress-test MODEL.so DEVICE THREADS ROUNDS RUNS_PER_ROUND SEED
//
// Opens one model (inputs `src` [B, L, E] f32 with B and L dynamic, one
// output) once on DEVICE and runs it from THREADS threads: ROUNDS rounds of
// RUNS_PER_ROUND runs per thread. Each run picks one of 8 cases at random
// (B in [1, 4], L in [1, 24]) whose outputs a single-threaded run computed
// first, and must reproduce them bit for bit; one run in 20 gives an
// invalid input instead (a wrong feature size, rank or dtype) and must fail
// with a message. After each round it records the anonymous resident
// memory and the bytes malloc has in use; with the CPU buffer cache off
// (ATTUNE_CPU_BUFFER_CACHE=0) the last of each must be within 5 % of the
// first (or 256 KiB, the noise of page-granular measurement). The threads live through all rounds. Prints one summary line;
// exits non-zero on any mismatch, unexpected success or failure, or growth.
//
//===----------------------------------------------------------------------===//

#include "attune/runtime.hpp"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <cstring>
#include <malloc.h>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

/// Anonymous resident memory in bytes (RssAnon in /proc/self/status: heap,
/// stacks, mappings; not the code pages, which a later round may touch for
/// the first time), after returning the allocator's free pages to the
/// system (what stays is live memory, not retained free lists).
long residentBytes() {
  malloc_trim(0);
  FILE *f = std::fopen("/proc/self/status", "r");
  if (!f)
    return 0;
  char line[256];
  long kib = 0;
  while (std::fgets(line, sizeof(line), f))
    if (std::sscanf(line, "RssAnon: %ld kB", &kib) == 1)
      break;
  std::fclose(f);
  return kib * 1024;
}

attune::Tensor makeInput(std::mt19937_64 &rng, attune_dtype dtype,
                         std::vector<int64_t> shape) {
  attune::Tensor t;
  if (!attune::Tensor::create(dtype, shape, t)) {
    std::fprintf(stderr, "stress: cannot create a tensor\n");
    std::exit(2);
  }
  std::normal_distribution<float> normal;
  size_t n = 1;
  for (int64_t d : shape)
    n *= d;
  if (dtype == ATTUNE_F32) {
    float *p = t.data<float>();
    for (size_t i = 0; i < n; ++i)
      p[i] = normal(rng);
  } else {
    std::memset(t.data<char>(), 0, n * attune_dtype_size(dtype));
  }
  return t;
}

bool sameBytes(const attune::Tensor &a, const attune::Tensor &b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.data<char>(), b.data<char>(),
                     a.size() * attune_dtype_size(a.dtype())) == 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: attune-stress-test MODEL.so DEVICE THREADS "
                         "ROUNDS RUNS_PER_ROUND SEED\n");
    return 2;
  }
  const char *path = argv[1];
  int threads = std::atoi(argv[3]), rounds = std::atoi(argv[4]),
      perRound = std::atoi(argv[5]);
  uint64_t seed = std::strtoull(argv[6], nullptr, 10);
  attune::Device device;
  attune::Model model;
  if (attune::Status s = attune::Device::open(argv[2], device); !s) {
    std::fprintf(stderr, "stress: %s\n", s.message().c_str());
    return 1;
  }
  if (attune::Status s = attune::Model::open(path, model, "", &device); !s) {
    std::fprintf(stderr, "stress: %s\n", s.message().c_str());
    return 1;
  }
  std::vector<attune_tensor_info> in = model.inputs();
  if (in.size() != 1 || in[0].rank != 3 || in[0].shape[2] <= 0) {
    std::fprintf(stderr, "stress: expected one input [B, L, E] with a "
                         "static E\n");
    return 2;
  }
  int64_t features = in[0].shape[2];

  // The cases and their single-threaded outputs.
  std::mt19937_64 rng(seed);
  constexpr int kCases = 8;
  std::vector<attune::Tensor> inputs, expected;
  for (int c = 0; c < kCases; ++c) {
    int64_t b = 1 + rng() % 4, l = 1 + rng() % 24;
    inputs.push_back(makeInput(rng, ATTUNE_F32, {b, l, features}));
    std::vector<attune::Tensor> out;
    if (attune::Status s = model.run({&inputs.back()}, out); !s) {
      std::fprintf(stderr, "stress: reference run: %s\n", s.message().c_str());
      return 1;
    }
    expected.push_back(std::move(out.at(0)));
  }
  // Invalid inputs: a wrong feature size, a wrong rank, a wrong dtype.
  std::vector<attune::Tensor> invalid;
  invalid.push_back(makeInput(rng, ATTUNE_F32, {2, 5, features + 1}));
  invalid.push_back(makeInput(rng, ATTUNE_F32, {2, features}));
  invalid.push_back(makeInput(rng, ATTUNE_I64, {2, 5, features}));

  std::atomic<long> runs{0}, failures{0}, rejected{0};
  std::mutex printMutex;
  auto report = [&](const std::string &what) {
    std::lock_guard<std::mutex> lock(printMutex);
    if (failures++ < 5)
      std::fprintf(stderr, "stress: %s\n", what.c_str());
  };
  // Resident memory and the bytes malloc has handed out and not had back.
  long firstRss = 0, lastRss = 0;
  size_t firstHeap = 0, lastHeap = 0;
  // The same threads for every round (new threads would bring new malloc
  // arenas), meeting at the end of each round while the main thread
  // measures.
  std::mutex roundMutex;
  std::condition_variable roundCv;
  int finished = 0, started = 0;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int round = 0; round < rounds; ++round) {
        {
          std::unique_lock<std::mutex> lock(roundMutex);
          roundCv.wait(lock, [&] { return started > round; });
        }
        std::mt19937_64 local(seed * 1000003 + round * 101 + t);
        for (int i = 0; i < perRound; ++i) {
          std::vector<attune::Tensor> out;
          if (local() % 20 == 0) {
            const attune::Tensor &bad = invalid[local() % invalid.size()];
            attune::Status s = model.run({&bad}, out);
            if (s)
              report("an invalid input ran");
            else if (s.message().empty())
              report("an invalid input failed without a message");
            else
              ++rejected;
            continue;
          }
          int c = local() % kCases;
          if (attune::Status s = model.run({&inputs[c]}, out); !s)
            report("case " + std::to_string(c) + ": " + s.message());
          else if (!sameBytes(out.at(0), expected[c]))
            report("case " + std::to_string(c) +
                   ": the result differs from the single-threaded run");
          ++runs;
        }
        std::lock_guard<std::mutex> lock(roundMutex);
        ++finished;
        roundCv.notify_all();
      }
    });
  for (int round = 0; round < rounds; ++round) {
    {
      std::lock_guard<std::mutex> lock(roundMutex);
      started = round + 1;
    }
    roundCv.notify_all();
    std::unique_lock<std::mutex> lock(roundMutex);
    roundCv.wait(lock, [&] { return finished == threads * (round + 1); });
    lastRss = residentBytes();
    struct mallinfo2 heap = mallinfo2();
    lastHeap = heap.uordblks + heap.hblkhd;
    if (round == 0) {
      firstRss = lastRss;
      firstHeap = lastHeap;
    }
  }
  for (std::thread &th : pool)
    th.join();
  double growth = firstRss ? double(lastRss - firstRss) / firstRss : 0.0;
  double heapGrowth =
      firstHeap ? (double(lastHeap) - double(firstHeap)) / firstHeap : 0.0;
  const char *cache = std::getenv("ATTUNE_CPU_BUFFER_CACHE");
  bool checkGrowth = cache && std::string(cache) == "0";
  const char *unchecked = ", not checked";
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizers' allocators keep freed memory (AddressSanitizer's
  // quarantine): resident memory grows without a leak (AddressSanitizer's
  // leak checker and valgrind cover leaks).
  if (checkGrowth)
    unchecked = ", not checked (AddressSanitizer quarantine)";
  checkGrowth = false;
#endif
  std::printf("stress: %s on %s: %d threads x %d runs: %ld valid runs "
              "identical to the single-threaded ones, %ld invalid inputs "
              "rejected, %ld failures; anonymous resident %.2f MiB after round 1, "
              "%.2f MiB after round %d (%+.1f %%), heap in use %.2f -> "
              "%.2f MiB (%+.1f %%)%s\n",
              path, device.description().c_str(), threads, rounds * perRound,
              runs.load(), rejected.load(), failures.load(),
              firstRss / 1048576.0, lastRss / 1048576.0, rounds,
              growth * 100, firstHeap / 1048576.0, lastHeap / 1048576.0,
              heapGrowth * 100,
              checkGrowth ? ", limit +5 % or 256 KiB" : unchecked);
  if (failures)
    return 1;
  // 5 %, but at least 256 KiB: the page-granular noise of a few threads'
  // stacks and arenas on a baseline of about 1 MiB. A leaked 1 KiB per run
  // would be 2 MiB over 2,000 runs.
  auto limit = [](double first) { return std::max(0.05 * first, 262144.0); };
  if (checkGrowth && (lastRss - firstRss > limit(firstRss) ||
                      double(lastHeap) - double(firstHeap) > limit(firstHeap))) {
    std::fprintf(stderr, "stress: memory grew by more than 5 %% (and 256 "
                         "KiB)\n");
    return 1;
  }
  return 0;
}
