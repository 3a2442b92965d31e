/* A C API over Google Benchmark (1.7.x): Google Benchmark drives the
 * measurement loop (iteration counts, minimum time, repetitions and its
 * --benchmark_* flags); each iteration calls back into C, which times one
 * launch with CUDA events and reports it as manual time. */
#ifndef SB_GBENCH_SHIM_H
#define SB_GBENCH_SHIM_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Times one iteration. Stores its duration in *seconds and returns 0, or
 * returns non-zero with a message in err, which stops the benchmark. */
typedef int (*gbs_iteration_fn)(void *ctx, double *seconds, char *err,
                                size_t errlen);

/* Hands argv's --benchmark_* flags to Google Benchmark. Returns 0, or -1
 * with a message in err if a flag is not one Google Benchmark knows. */
int gbs_initialize(int argc, char **argv, char *err, size_t errlen);

/* From now on, records every run's Google Benchmark JSON (in this process
 * and in the worker processes forked after this call) in an unlinked
 * temporary file. Returns 0, or -1 with a message in err. */
int gbs_record_json(char *err, size_t errlen);

/* Writes Google Benchmark's JSON document (its JSONReporter: "context" and
 * "benchmarks") of every run recorded so far to f. A point timed twice (a
 * re-take after a low SM clock) keeps the last timing, like its CSV row.
 * aggregates_only: --benchmark_report_aggregates_only. Returns 0 or -1. */
int gbs_write_json(FILE *f, int aggregates_only, char *err, size_t errlen);

/* The last timing of `name` in this process turned out wrong (the timed
 * kernel's output failed its check): leave it out of the JSON, as a wrong
 * result is never a number. */
void gbs_discard_last(const char *name);

/* The "label" of the runs that follow (which GPU ran them); NULL: none. */
void gbs_set_label(const char *label);

/* Registers one benchmark named `name`, runs it and unregisters it.
 * min_time_s <= 0 leaves the minimum time to --benchmark_min_time.
 * Returns 0 when it ran, 1 when the iteration reported an error (err holds
 * it), and 2 when --benchmark_filter excluded it. */
int gbs_run_one(const char *name, gbs_iteration_fn fn, void *ctx,
                double min_time_s, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
