/* The deadlock watchdog's host side. Device side: kernels/mbarrier.cuh.
 *
 * Every mbarrier wait in the suite (sb_mbar_wait_parity*) is bounded by
 * %globaltimer: after timeout_ns of failed polls, the first thread to
 * notice writes a record of the wait into host memory mapped into the GPU
 * (so the host can read it after the trap has poisoned the CUDA context),
 * then traps. Each .cu file that includes mbarrier.cuh has its own copy of
 * the device-side settings (no relocatable device code) and registers a
 * setter for them at program start; sb_watchdog_configure calls them all. */
#ifndef SB_WATCHDOG_H
#define SB_WATCHDOG_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SB_WATCHDOG_DEFAULT_MS 1000

/* Written by the GPU; `fired` last, after a system-scope fence. */
typedef struct sb_watchdog_record {
  unsigned int fired;        /* 1: a wait timed out and the kernel trapped */
  unsigned int bar;          /* shared-window address of the mbarrier */
  int stage;                 /* caller-supplied stage/buffer index, -1 if none */
  unsigned int parity;       /* the phase parity it waited for */
  unsigned int block[3], thread[3];
  unsigned long long waited_ns;
} sb_watchdog_record;

typedef cudaError_t (*sb_watchdog_setter)(unsigned long long timeout_ns,
                                          sb_watchdog_record *device_record);

/* Called by each kernels/<family>.cu translation unit's constructor. */
void sb_watchdog_register(sb_watchdog_setter fn);
/* How many translation units carry the watchdog (0: compiled out). */
int sb_watchdog_units(void);

/* Sets the timeout (0: never time out) and the record every unit writes.
 * host_record must stay valid and mapped (see sb_watchdog_map). */
cudaError_t sb_watchdog_configure(unsigned long long timeout_ns,
                                  sb_watchdog_record *device_record);

/* Maps host_record (page-aligned, e.g. a MAP_SHARED page that a parent
 * process can read after this one dies) into the GPU's address space, and
 * configures every unit with it. Returns cudaSuccess or the CUDA error. */
cudaError_t sb_watchdog_map(sb_watchdog_record *host_record, size_t bytes,
                            unsigned long long timeout_ns);

/* The record the runner consults after a failed kernel; NULL if none. */
extern volatile sb_watchdog_record *sb_watchdog_host;

/* If r->fired: writes "watchdog: ..." into buf and returns 1, else 0. */
int sb_watchdog_describe(const volatile sb_watchdog_record *r, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
