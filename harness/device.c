#include "device.h"

#include <ctype.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
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

void sb_no_device_message(int cuda_error, const char *error_name, const char *driver,
                          const char *visible, int runtime_version, char *err, size_t errlen) {
  char vis[200] = "";
  if (visible)
    snprintf(vis, sizeof vis, "; CUDA_VISIBLE_DEVICES is set to '%.100s', which hides the GPUs it does not list",
             visible);
  const char *name = error_name ? error_name : "?";
  if (cuda_error == cudaSuccess || cuda_error == cudaErrorNoDevice) {
    snprintf(err, errlen,
             "no usable CUDA device: the NVIDIA driver%s%s finds no GPU%s (%s); check that `nvidia-smi` lists one%s",
             driver ? " " : "", driver ? driver : "", visible ? " it may use" : "",
             cuda_error == cudaSuccess ? "0 devices" : name,
             vis[0] ? vis : " and that CUDA_VISIBLE_DEVICES does not hide it");
  } else if (cuda_error == cudaErrorInsufficientDriver && !driver) {
    snprintf(err, errlen,
             "no usable CUDA device: no NVIDIA driver is loaded on this machine (%s; no /proc/driver/nvidia/version); "
             "on a GPU host, install the NVIDIA driver and check that `nvidia-smi` lists the GPU",
             name);
  } else if (cuda_error == cudaErrorInsufficientDriver) {
    snprintf(err, errlen,
             "no usable CUDA device: the NVIDIA driver %s is too old for this build's CUDA %d.%d runtime (%s); "
             "update the driver (`nvidia-smi` shows the CUDA version it supports)",
             driver, runtime_version / 1000, (runtime_version % 1000) / 10, name);
  } else {
    snprintf(err, errlen,
             "no usable CUDA device: CUDA cannot start (%s%s%s); check `nvidia-smi`, the NVIDIA driver install and CUDA_VISIBLE_DEVICES",
             cudaGetErrorString((cudaError_t)cuda_error), error_name ? ", " : "", error_name ? error_name : "");
  }
}

int sb_device_count(char *err, size_t errlen) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    char driver[64];
    int have_driver = sb_read_driver_version("/proc/driver/nvidia/version", driver, sizeof driver) == 0;
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    sb_no_device_message(e, cudaGetErrorName(e), have_driver ? driver : NULL,
                         getenv("CUDA_VISIBLE_DEVICES"), rt, err, errlen);
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

static void cuda_version(int v, char *out, size_t len) {
  if (v <= 0) snprintf(out, len, "none");
  else snprintf(out, len, "%d.%d", v / 1000, v % 1000 / 10);
}

void sb_print_version(FILE *f) {
  int rt = 0, drv = 0;
  if (cudaRuntimeGetVersion(&rt) != cudaSuccess) rt = 0;
  if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0; /* 0: no driver loaded */
  cudaGetLastError();
  char built[16], runtime[16], driver_api[16], kernel[64];
  cuda_version(CUDART_VERSION, built, sizeof built);
  cuda_version(rt, runtime, sizeof runtime);
  cuda_version(drv, driver_api, sizeof driver_api);
  if (sb_read_driver_version("/proc/driver/nvidia/version", kernel, sizeof kernel) != 0)
    snprintf(kernel, sizeof kernel, "none");
  fprintf(f, "syncbench %s\ncommit %s\ncsv schema %d\n", SB_VERSION, SB_COMMIT,
          SB_CSV_SCHEMA_VERSION);
  fprintf(f, "cuda runtime %s (built with %s), driver api %s, kernel driver %s\n", runtime,
          built, driver_api, kernel);
}
