/* Device discovery and run provenance. */
#ifndef SB_DEVICE_H
#define SB_DEVICE_H

#include <stddef.h>
#include <stdio.h>

#include "csv_schema.h"

typedef struct sb_device {
  int ordinal;
  int cc_major, cc_minor;
  int sm_count;
  int max_threads_per_block;
  size_t smem_per_block_optin; /* the most dynamic smem one block can ask for */
  size_t l2_bytes;
  size_t global_mem_bytes;
  int max_clock_mhz;           /* cudaDevAttrClockRate */
  sb_provenance prov;
} sb_device;

/* Fills d for CUDA device `ordinal` and makes it current. Returns 0, or -1
 * with one line in err (no device, driver too old, no such ordinal). */
int sb_device_open(int ordinal, sb_device *d, char *err, size_t errlen);

/* One run: gives every device the seed and the first device's start time,
 * so all GPUs' rows of a run carry the same run_utc and seed. */
void sb_share_run_provenance(sb_device *devs, int n, unsigned long long seed);

/* Number of CUDA devices, or -1 with a reason in err. */
int sb_device_count(char *err, size_t errlen);

/* The one line for "no usable CUDA device": what failed in plain words and
 * what to check. cuda_error: cudaGetDeviceCount's error (0: it reported 0
 * devices); driver: the kernel driver version or NULL when none is loaded;
 * visible: $CUDA_VISIBLE_DEVICES or NULL; runtime_version: e.g. 13000. */
void sb_no_device_message(int cuda_error, const char *error_name, const char *driver,
                          const char *visible, int runtime_version, char *err, size_t errlen);

/* "NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3": lower case, runs of other
 * characters folded to '-', a leading "nvidia-" dropped. */
void sb_gpu_slug(const char *gpu_name, char *out, size_t len);

/* Reads the kernel driver version ("580.159.04") from a file in the format
 * of /proc/driver/nvidia/version. Returns 0, or -1 if absent/unparseable. */
int sb_read_driver_version(const char *path, char *out, size_t len);

/* syncbench's release version; the commit and CUDA versions come with it
 * in --version. */
#define SB_VERSION "0.6.0"

/* --version: version, commit, CSV schema, CUDA runtime (built and loaded)
 * and driver API versions. Needs no GPU. */
void sb_print_version(FILE *f);

#endif
