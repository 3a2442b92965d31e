#include "power.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sb_throttle_flagged(double mhz, double threshold_mhz, unsigned long long reasons) {
  if (reasons & SB_THR_RETAKE_MASK) return 1;
  return !isnan(mhz) && threshold_mhz > 0 && mhz < threshold_mhz;
}

int sb_throttle_retake(int flagged, int *retakes_left) {
  if (!flagged || *retakes_left <= 0) return 0;
  --*retakes_left;
  return 1;
}

static const char *const reason_names[] = {
    "gpu_idle",   "app_clocks", "sw_power_cap",   "hw_slowdown",    "sync_boost",
    "sw_thermal", "hw_thermal", "hw_power_brake", "display_clocks",
};

void sb_throttle_names(unsigned long long reasons, char *out, size_t len) {
  size_t used = 0;
  const int known = (int)(sizeof reason_names / sizeof reason_names[0]);
  if (len) out[0] = '\0';
  for (int b = 0; b < known; ++b) {
    if (!(reasons & (1ULL << b))) continue;
    int w = snprintf(out + used, len - used, "%s%s", used ? ";" : "", reason_names[b]);
    if (w < 0 || (size_t)w >= len - used) return;
    used += (size_t)w;
  }
  unsigned long long rest = reasons & ~((1ULL << known) - 1);
  if (rest) snprintf(out + used, len - used, "%s0x%llx", used ? ";" : "", rest);
}

void sb_power_acc_reset(sb_power_acc *a) {
  memset(a, 0, sizeof *a);
  a->temp_max_c = -1;
}

/* The few NVML entry points used, declared here: nvml.h is not in every
 * toolkit install, and all of these are stable C ABI since NVML 5. */
typedef void *nvml_device;
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_by_pci_fn)(const char *, nvml_device *);
typedef int (*nvml_uint_fn)(nvml_device, unsigned int *);
typedef int (*nvml_temp_fn)(nvml_device, int, unsigned int *);
typedef int (*nvml_ull_fn)(nvml_device, unsigned long long *);

struct sb_nvml {
  void *lib;
  nvml_device dev;
  int (*shutdown)(void);
  nvml_uint_fn power_mw;
  nvml_temp_fn temp;
  nvml_ull_fn reasons;
};

sb_nvml *sb_nvml_open(const char *lib, const char *pci_bus_id) {
  void *h = dlopen(lib ? lib : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return NULL;
  nvml_init_fn init = (nvml_init_fn)dlsym(h, "nvmlInit_v2");
  nvml_by_pci_fn by_pci = (nvml_by_pci_fn)dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
  sb_nvml *n = calloc(1, sizeof *n);
  if (!n || !init || !by_pci || init() != 0) goto fail;
  n->lib = h;
  n->shutdown = (int (*)(void))dlsym(h, "nvmlShutdown");
  if (by_pci(pci_bus_id, &n->dev) != 0) {
    if (n->shutdown) n->shutdown();
    goto fail;
  }
  n->power_mw = (nvml_uint_fn)dlsym(h, "nvmlDeviceGetPowerUsage");
  n->temp = (nvml_temp_fn)dlsym(h, "nvmlDeviceGetTemperature");
  /* Renamed in CUDA 12.2's NVML; the old name stays as an alias. */
  n->reasons = (nvml_ull_fn)dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!n->reasons) n->reasons = (nvml_ull_fn)dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
  return n;
fail:
  free(n);
  dlclose(h);
  return NULL;
}

void sb_nvml_close(sb_nvml *n) {
  if (!n) return;
  if (n->shutdown) n->shutdown();
  dlclose(n->lib);
  free(n);
}

unsigned long long sb_nvml_sample(sb_nvml *n, sb_power_acc *a) {
  if (!n) return 0;
  unsigned int mw = 0, c = 0;
  unsigned long long r = 0;
  if (n->power_mw && n->power_mw(n->dev, &mw) == 0) {
    a->power_sum_w += mw * 1e-3;
    ++a->power_n;
  }
  if (n->temp && n->temp(n->dev, 0 /* NVML_TEMPERATURE_GPU */, &c) == 0 && (int)c > a->temp_max_c)
    a->temp_max_c = (int)c;
  if (n->reasons && n->reasons(n->dev, &r) == 0) {
    a->reasons |= r;
    ++a->reasons_n;
    return r;
  }
  return 0;
}
