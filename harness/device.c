#include "device.h"

#include <ctype.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#ifndef SB_COMMIT
#define SB_COMMIT "unknown"
#endif

void sb_gpu_slug(const char *name, char *out, size_t len) {
  size_t w = 0;
  int dash = 1; /* suppress leading dashes */
  for (const char *p = name; *p && w + 1 < len; ++p) {
    if (isalnum((unsigned char)*p)) {
      out[w++] = (char)tolower((unsigned char)*p);
      dash = 0;
    } else if (!dash) {
      out[w++] = '-';
      dash = 1;
    }
  }
  while (w > 0 && out[w - 1] == '-') --w;
  out[w] = '\0';
  if (strncmp(out, "nvidia-", 7) == 0) memmove(out, out + 7, strlen(out + 7) + 1);
  if (out[0] == '\0') snprintf(out, len, "unknown-gpu");
}

int sb_read_driver_version(const char *path, char *out, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[512];
  int found = -1;
  /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue ..." or
   * "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04 ...":
   * the first word after "Kernel Module" shaped like 123.45[.67]. */
  if (fgets(line, sizeof line, f)) {
    const char *k = strstr(line, "Kernel Module");
    for (k = k ? k + strlen("Kernel Module") : NULL; k && *k && found != 0;) {
      k += strspn(k, " \t");
      size_t n = strcspn(k, " \t\n");
      size_t digits = strspn(k, "0123456789.");
      if (n > 0 && digits == n && isdigit((unsigned char)k[0]) && memchr(k, '.', n) && n < len) {
        memcpy(out, k, n);
        out[n] = '\0';
        found = 0;
      }
      k += n;
      if (n == 0) break;
    }
  }
  fclose(f);
  return found;
}

void sb_share_run_provenance(sb_device *devs, int n, unsigned long long seed) {
  for (int k = 0; k < n; ++k) {
    devs[k].prov.seed = seed;
    /* Not onto itself: snprintf from a buffer into the same buffer is
     * undefined, and glibc left run_utc empty in every row of the first
     * H200 results that way. */
    if (k > 0) memcpy(devs[k].prov.run_utc, devs[0].prov.run_utc, sizeof devs[k].prov.run_utc);
  }
}

int sb_device_count(char *err, size_t errlen) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    snprintf(err, errlen, "no usable CUDA device: %s (%s)",
             cudaGetErrorString(e), cudaGetErrorName(e));
    return -1;
  }
  if (count == 0) {
    snprintf(err, errlen, "no usable CUDA device: the driver reports 0 GPUs");
    return -1;
  }
  return count;
}

static void format_version(int v, char *out, size_t len) {
  snprintf(out, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

int sb_device_open(int ordinal, sb_device *d, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  int count = sb_device_count(err, errlen);
  if (count < 0) return -1;
  if (ordinal < 0 || ordinal >= count) {
    snprintf(err, errlen, "--device %d does not exist: this host has %d CUDA device%s (0..%d)",
             ordinal, count, count == 1 ? "" : "s", count - 1);
    return -1;
  }
  struct cudaDeviceProp p;
  cudaError_t e = cudaGetDeviceProperties(&p, ordinal);
  if (e == cudaSuccess) e = cudaSetDevice(ordinal);
  if (e != cudaSuccess) {
    snprintf(err, errlen, "cannot open CUDA device %d: %s", ordinal, cudaGetErrorString(e));
    return -1;
  }
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, ordinal);
  d->ordinal = ordinal;
  d->cc_major = p.major;
  d->cc_minor = p.minor;
  d->sm_count = p.multiProcessorCount;
  d->max_threads_per_block = p.maxThreadsPerBlock;
  d->smem_per_block_optin = p.sharedMemPerBlockOptin;
  d->l2_bytes = (size_t)p.l2CacheSize;
  d->global_mem_bytes = p.totalGlobalMem;
  d->max_clock_mhz = clock_khz / 1000;

  sb_provenance *v = &d->prov;
  snprintf(v->gpu_name, sizeof v->gpu_name, "%.127s", p.name);
  const unsigned char *u = (const unsigned char *)p.uuid.bytes;
  snprintf(v->gpu_uuid, sizeof v->gpu_uuid,
           "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
           u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
           u[11], u[12], u[13], u[14], u[15]);
  snprintf(v->cc, sizeof v->cc, "%d.%d", p.major, p.minor);
  v->sm_count = p.multiProcessorCount;
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  if (sb_read_driver_version("/proc/driver/nvidia/version", v->driver, sizeof v->driver) != 0)
    format_version(drv, v->driver, sizeof v->driver); /* the driver's CUDA API level */
  format_version(rt, v->cuda, sizeof v->cuda);
  snprintf(v->commit, sizeof v->commit, "%s", SB_COMMIT);
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(v->run_utc, sizeof v->run_utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return 0;
}
