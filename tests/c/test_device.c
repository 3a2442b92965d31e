#include <stdlib.h>
#include <unistd.h>

#include "../../harness/device.h"
#include "check.h"

SB_TEST(gpu_slug_rules) {
  char s[64];
  sb_gpu_slug("NVIDIA H100 80GB HBM3", s, sizeof s);
  CHECK_STR(s, "h100-80gb-hbm3");
  sb_gpu_slug("NVIDIA H200", s, sizeof s);
  CHECK_STR(s, "h200");
  sb_gpu_slug("NVIDIA A100-SXM4-40GB", s, sizeof s);
  CHECK_STR(s, "a100-sxm4-40gb");
  sb_gpu_slug("  Tesla  V100 ", s, sizeof s);
  CHECK_STR(s, "tesla-v100");
  sb_gpu_slug("***", s, sizeof s);
  CHECK_STR(s, "unknown-gpu");
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

SB_TEST(driver_version_parsing) {
  char path[4096], v[64];
  int fd = sb_test_mkstemp(path, sizeof path, "sb_drv");
  CHECK(fd >= 0);
  close(fd);
  write_file(path, "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)\n");
  CHECK_EQ_INT(sb_read_driver_version(path, v, sizeof v), 0);
  CHECK_STR(v, "580.159.04");
  write_file(path, "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n");
  CHECK_EQ_INT(sb_read_driver_version(path, v, sizeof v), 0);
  CHECK_STR(v, "535.104.05");
  write_file(path, "garbage\n");
  CHECK_EQ_INT(sb_read_driver_version(path, v, sizeof v), -1);
  unlink(path);
  CHECK_EQ_INT(sb_read_driver_version(path, v, sizeof v), -1);
}

SB_TEST(no_device_gives_one_clear_line) {
  /* This test runs where no GPU is present (CI): the count fails cleanly. */
  char err[256] = "";
  int n = sb_device_count(err, sizeof err);
  if (n < 0) {
    CHECK(strncmp(err, "no usable CUDA device", 21) == 0);
    CHECK(strchr(err, '\n') == NULL);
  } else {
    CHECK(n > 0); /* on a GPU machine the count is positive */
  }
}

/* cudaError_t values (driver_types.h), so this file needs no CUDA header. */
enum { ERR_NO_DEVICE = 100, ERR_INSUFFICIENT_DRIVER = 35, ERR_SYSTEM_MISMATCH = 803 };

SB_TEST(no_device_message_says_what_to_check) {
  char m[512];
  /* No driver at all: the runtime says "insufficient driver". */
  sb_no_device_message(ERR_INSUFFICIENT_DRIVER, "cudaErrorInsufficientDriver", NULL, NULL, 13000, m, sizeof m);
  CHECK(strncmp(m, "no usable CUDA device: no NVIDIA driver is loaded", 49) == 0);
  CHECK(strstr(m, "nvidia-smi") != NULL && strstr(m, "install the NVIDIA driver") != NULL);
  CHECK(strstr(m, "insufficient for CUDA runtime") == NULL);
  /* A driver that is too old for the runtime. */
  sb_no_device_message(ERR_INSUFFICIENT_DRIVER, "cudaErrorInsufficientDriver", "535.104.05", NULL, 13000, m, sizeof m);
  CHECK(strstr(m, "driver 535.104.05 is too old for this build's CUDA 13.0 runtime") != NULL);
  /* The driver finds no GPU: CUDA_VISIBLE_DEVICES is named with its value. */
  sb_no_device_message(ERR_NO_DEVICE, "cudaErrorNoDevice", "580.159.04", "", 13000, m, sizeof m);
  CHECK(strstr(m, "finds no GPU") != NULL && strstr(m, "nvidia-smi") != NULL);
  CHECK(strstr(m, "CUDA_VISIBLE_DEVICES is set to ''") != NULL);
  sb_no_device_message(ERR_NO_DEVICE, "cudaErrorNoDevice", "580.159.04", NULL, 13000, m, sizeof m);
  CHECK(strstr(m, "CUDA_VISIBLE_DEVICES does not hide it") != NULL);
  sb_no_device_message(0, "cudaSuccess", "580.159.04", NULL, 13000, m, sizeof m);
  CHECK(strstr(m, "finds no GPU") != NULL && strstr(m, "0 devices") != NULL);
  /* Anything else: CUDA's words plus the same checklist. */
  sb_no_device_message(ERR_SYSTEM_MISMATCH, "cudaErrorSystemDriverMismatch", "580.159.04", NULL, 13000, m, sizeof m);
  CHECK(strstr(m, "cudaErrorSystemDriverMismatch") != NULL && strstr(m, "nvidia-smi") != NULL);
  for (const char *p = m; *p; ++p) CHECK(*p != '\n');
}

SB_TEST(run_provenance_is_shared_and_kept) {
  sb_device d[3];
  memset(d, 0, sizeof d);
  snprintf(d[0].prov.run_utc, sizeof d[0].prov.run_utc, "2026-11-22T02:40:00Z");
  snprintf(d[2].prov.run_utc, sizeof d[2].prov.run_utc, "2026-11-22T02:40:09Z");
  sb_share_run_provenance(d, 3, 42);
  for (int k = 0; k < 3; ++k) {
    CHECK_STR(d[k].prov.run_utc, "2026-11-22T02:40:00Z"); /* the first GPU's, never emptied */
    CHECK_EQ_INT(d[k].prov.seed, 42);
  }
}
