// The project's C shim over Google Benchmark: the only C++ in the harness.
#include "gbench_shim.h"

#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

// -1, or the unlinked temporary file that collects each point's JSON runs
// (opened O_APPEND before the workers fork, so they all append to it).
int g_json_fd = -1;
std::string g_label;  // the runs' "label": which GPU

// Collects what Google Benchmark reports about the run; prints nothing,
// because the harness owns its console output and the CSV. With JSON
// recording on, it also formats the runs with Google Benchmark's own
// JSONReporter: the iterations and the aggregates apart, so that
// --benchmark_report_aggregates_only can be applied when the file is
// written.
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  CollectingReporter() {
    runs_json_.SetOutputStream(&runs_text_);
    aggregates_json_.SetOutputStream(&aggregates_text_);
  }
  bool ReportContext(const Context &) override { return true; }
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const Run &r : runs) {
      ++run_count;
      if (r.error_occurred && error.empty()) error = r.error_message;
    }
    if (g_json_fd < 0 || runs.empty()) return;
    if (runs[0].run_type == Run::RT_Aggregate) aggregates_json_.ReportRuns(runs);
    else runs_json_.ReportRuns(runs);
  }
  std::string runs_text() const { return runs_text_.str(); }
  std::string aggregates_text() const { return aggregates_text_.str(); }
  int run_count = 0;
  std::string error;

 private:
  std::ostringstream runs_text_, aggregates_text_;
  benchmark::JSONReporter runs_json_, aggregates_json_;
};

// One record of the JSON file: "<kind> <pid> <name length> <runs length>
// <aggregates length>\n" then the three texts. Kind R: a point's runs;
// D: drop this process's last record of that name.
void record_json(char kind, const char *name, const std::string &runs,
                 const std::string &aggregates) {
  char head[96];
  std::snprintf(head, sizeof head, "%c %ld %zu %zu %zu\n", kind, (long)getpid(),
                std::strlen(name), runs.size(), aggregates.size());
  std::string rec = head;
  rec += name;
  rec += runs;
  rec += aggregates;
  // One write: records of parallel workers do not interleave (O_APPEND).
  const char *p = rec.data();
  size_t left = rec.size();
  while (left > 0) {
    ssize_t w = write(g_json_fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // the CSV is the product; the JSON is best effort
    p += w;
    left -= (size_t)w;
  }
}

struct JsonRecord {
  long pid;
  std::string name, runs, aggregates;
  bool superseded = false;
};

std::vector<JsonRecord> read_records() {
  std::vector<JsonRecord> out;
  std::string all;
  char buf[65536];
  off_t off = 0;
  for (;;) {
    ssize_t got = pread(g_json_fd, buf, sizeof buf, off);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    all.append(buf, (size_t)got);
    off += got;
  }
  std::map<long, size_t> last_of_pid;
  size_t pos = 0;
  while (pos < all.size()) {
    size_t nl = all.find('\n', pos);
    if (nl == std::string::npos) break;
    JsonRecord r;
    char kind = 0;
    size_t ln = 0, lr = 0, la = 0;
    if (std::sscanf(all.c_str() + pos, "%c %ld %zu %zu %zu", &kind, &r.pid, &ln, &lr, &la) != 5) break;
    pos = nl + 1;
    if (all.size() - pos < ln + lr + la) break;  // a worker died mid-write
    r.name = all.substr(pos, ln);
    r.runs = all.substr(pos + ln, lr);
    r.aggregates = all.substr(pos + ln + lr, la);
    pos += ln + lr + la;
    // The runner times a point a second time when the SM clock was low
    // (runner.c); only the second timing made the CSV row, so only it stays.
    // A wrong result found after the timing (gbs_discard_last) drops it too.
    auto it = last_of_pid.find(r.pid);
    if (it != last_of_pid.end() && out[it->second].name == r.name) out[it->second].superseded = true;
    if (kind != 'R') continue;
    last_of_pid[r.pid] = out.size();
    out.push_back(std::move(r));
  }
  return out;
}

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

extern "C" int gbs_record_json(char *err, size_t errlen) {
  const char *dir = getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/syncbench-json-XXXXXX";
  std::vector<char> tmpl(path.begin(), path.end());
  tmpl.push_back('\0');
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    std::snprintf(err, errlen, "cannot create a temporary file in %s: %s",
                  dir && *dir ? dir : "/tmp", std::strerror(errno));
    return -1;
  }
  unlink(tmpl.data());  // nothing is left behind, whatever happens
  fcntl(fd, F_SETFL, O_APPEND);
  g_json_fd = fd;
  return 0;
}

extern "C" void gbs_discard_last(const char *name) {
  if (g_json_fd >= 0) record_json('D', name, std::string(), std::string());
}

extern "C" void gbs_set_label(const char *label) { g_label = label ? label : ""; }

extern "C" int gbs_write_json(FILE *f, int aggregates_only, char *err, size_t errlen) {
  std::ostringstream doc;
  benchmark::JSONReporter context;
  context.SetOutputStream(&doc);
  context.SetErrorStream(&doc);
  context.ReportContext(benchmark::BenchmarkReporter::Context());
  bool first = true;
  for (const JsonRecord &r : read_records()) {
    if (r.superseded) continue;
    // As Google Benchmark does: aggregates only if there are any.
    std::string text = aggregates_only && !r.aggregates.empty() ? r.aggregates
                       : r.aggregates.empty()                   ? r.runs
                       : r.runs.empty()                         ? r.aggregates
                                                                : r.runs + ",\n" + r.aggregates;
    if (!first) doc << ",\n";
    doc << text;
    first = false;
  }
  context.Finalize();
  std::string s = doc.str();
  if (std::fwrite(s.data(), 1, s.size(), f) != s.size() || std::fflush(f) != 0) {
    std::snprintf(err, errlen, "cannot write: %s", std::strerror(errno));
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
    if (!g_label.empty()) state.SetLabel(g_label);
  };
  benchmark::internal::Benchmark *b =
      benchmark::RegisterBenchmark(name, body)->UseManualTime();
  if (min_time_s > 0) b->MinTime(min_time_s);
  CollectingReporter reporter;
  size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  if (ran == 0) return 2;
  if (g_json_fd >= 0 && reporter.run_count > 0)
    record_json('R', name, reporter.runs_text(), reporter.aggregates_text());
  if (!reporter.error.empty()) {
    std::snprintf(err, errlen, "%s", reporter.error.c_str());
    return 1;
  }
  return 0;
}
