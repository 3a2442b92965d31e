// The project's C shim over Google Benchmark: the only C++ in the harness.
#include "gbench_shim.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

// Collects what Google Benchmark reports about the run; prints nothing,
// because the harness owns its console output and the CSV.
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context &) override { return true; }
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const Run &r : runs) {
      ++run_count;
      if (r.error_occurred && error.empty()) error = r.error_message;
    }
  }
  int run_count = 0;
  std::string error;
};

}  // namespace

extern "C" int gbs_initialize(int argc, char **argv, char *err, size_t errlen) {
  std::vector<char *> args(argv, argv + argc);
  args.push_back(nullptr);
  int count = argc;
  benchmark::Initialize(&count, args.data());
  if (count > 1) {  // Initialize removes every flag it recognised
    std::snprintf(err, errlen, "unknown Google Benchmark flag '%s'", args[1]);
    return -1;
  }
  return 0;
}

extern "C" int gbs_run_one(const char *name, gbs_iteration_fn fn, void *ctx,
                           double min_time_s, char *err, size_t errlen) {
  auto body = [fn, ctx](benchmark::State &state) {
    char msg[512] = "";
    for (auto _ : state) {
      double seconds = 0;
      if (fn(ctx, &seconds, msg, sizeof msg) != 0) {
        state.SkipWithError(msg);
        break;
      }
      state.SetIterationTime(seconds);
    }
  };
  benchmark::internal::Benchmark *b =
      benchmark::RegisterBenchmark(name, body)->UseManualTime();
  if (min_time_s > 0) b->MinTime(min_time_s);
  CollectingReporter reporter;
  size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  if (ran == 0) return 2;
  if (!reporter.error.empty()) {
    std::snprintf(err, errlen, "%s", reporter.error.c_str());
    return 1;
  }
  return 0;
}
