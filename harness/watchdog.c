#include "watchdog.h"

#include <stdio.h>
#include <string.h>

#define MAX_UNITS 64
static sb_watchdog_setter setters[MAX_UNITS];
static int num_setters;
volatile sb_watchdog_record *sb_watchdog_host;

void sb_watchdog_register(sb_watchdog_setter fn) {
  if (num_setters < MAX_UNITS) setters[num_setters++] = fn;
}

int sb_watchdog_units(void) { return num_setters; }

cudaError_t sb_watchdog_configure(unsigned long long timeout_ns,
                                  sb_watchdog_record *device_record) {
  for (int i = 0; i < num_setters; ++i) {
    cudaError_t e = setters[i](timeout_ns, device_record);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t sb_watchdog_map(sb_watchdog_record *host_record, size_t bytes,
                            unsigned long long timeout_ns) {
  memset(host_record, 0, sizeof *host_record);
  void *dev = NULL;
  cudaError_t e = cudaHostRegister(host_record, bytes, cudaHostRegisterMapped);
  if (e == cudaSuccess) e = cudaHostGetDevicePointer(&dev, host_record, 0);
  if (e != cudaSuccess) {
    /* Fallback: a record of this process's own (pinned, mapped). The
     * worker still reports a deadlock; only a parent reading the record
     * after the worker died would miss it. */
    cudaGetLastError();
    void *own = NULL;
    e = cudaHostAlloc(&own, sizeof *host_record, cudaHostAllocMapped);
    if (e == cudaSuccess) e = cudaHostGetDevicePointer(&dev, own, 0);
    if (e != cudaSuccess) return e;
    memset(own, 0, sizeof *host_record);
    host_record = own;
  }
  sb_watchdog_host = host_record;
  return sb_watchdog_configure(timeout_ns, (sb_watchdog_record *)dev);
}

int sb_watchdog_describe(const volatile sb_watchdog_record *r, char *buf, size_t len) {
  if (!r || !r->fired) return 0;
  snprintf(buf, len,
           "watchdog: an mbarrier wait timed out after %.0f ms (barrier at shared 0x%x, stage %d, "
           "waiting for parity %u, block (%u,%u,%u) thread (%u,%u,%u)); the kernel trapped",
           (double)r->waited_ns * 1e-6, r->bar, r->stage, r->parity, r->block[0], r->block[1],
           r->block[2], r->thread[0], r->thread[1], r->thread[2]);
  return 1;
}
