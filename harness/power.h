/* Power state during the samples: NVML, loaded at run time from the driver
 * (libnvidia-ml.so.1; absent on CPU-only machines and in CI, which gives
 * empty cells, never a failure), and the throttle rule the timer applies
 * to each clock-witness reading (harness/timing.c), after nvbench's
 * (nvbench/detail/measure_cold.cu: a sample taken below 75% of the SM
 * clock is discarded, the GPU rests 50 ms, the sample is re-taken). */
#ifndef SB_POWER_H
#define SB_POWER_H

#include <stddef.h>

/* NVML clock-event (throttle) reason bits (nvml.h's
 * nvmlClocksEventReason*, formerly nvmlClocksThrottleReason*). */
#define SB_THR_GPU_IDLE 0x1ULL
#define SB_THR_APP_CLOCKS 0x2ULL
#define SB_THR_SW_POWER_CAP 0x4ULL
#define SB_THR_HW_SLOWDOWN 0x8ULL
#define SB_THR_SYNC_BOOST 0x10ULL
#define SB_THR_SW_THERMAL 0x20ULL
#define SB_THR_HW_THERMAL 0x40ULL
#define SB_THR_HW_POWER_BRAKE 0x80ULL
#define SB_THR_DISPLAY_CLOCKS 0x100ULL

/* Reasons that make a sample re-taken: the transient slowdowns a short
 * rest can end. sw_power_cap is left out on purpose: a compute-bound
 * kernel (GEMM at 700 W) runs under it in steady state, so waiting never
 * ends it; it is reported in throttle_reasons and in sm_clock_mhz. */
#define SB_THR_RETAKE_MASK \
  (SB_THR_HW_SLOWDOWN | SB_THR_SW_THERMAL | SB_THR_HW_THERMAL | SB_THR_HW_POWER_BRAKE)

/* nvbench's defaults (nvbench/state.cuh): throttled below 75% of the
 * clock; rest 50 ms before re-taking. */
#define SB_THROTTLE_FRACTION 0.75
#define SB_THROTTLE_REST_S 0.05
/* At most this many samples of one point are re-taken; past it, samples
 * are kept and counted in the row's `throttled` column. */
#define SB_THROTTLE_RETAKES 8

/* 1 if a sample whose witness read `mhz` (NaN: no reading) with NVML
 * reasons `reasons` was taken while throttled: mhz below threshold_mhz
 * (<= 0: no threshold), or a reason in SB_THR_RETAKE_MASK. */
int sb_throttle_flagged(double mhz, double threshold_mhz, unsigned long long reasons);

/* What to do with a flagged sample: 1 re-take it (and use one of
 * *retakes_left), 0 keep it (flagged, or not flagged at all). */
int sb_throttle_retake(int flagged, int *retakes_left);

/* "sw_power_cap;hw_slowdown": the names of the set bits, in bit order;
 * unknown bits as one hex number (0x...). Empty for 0. */
void sb_throttle_names(unsigned long long reasons, char *out, size_t len);

/* Power, temperature and reasons over the NVML readings of one point. */
typedef struct sb_power_acc {
  double power_sum_w;
  int power_n;
  int temp_max_c;          /* -1: none */
  unsigned long long reasons;
  int reasons_n;           /* readings of reasons; 0: leave the cell empty */
} sb_power_acc;

void sb_power_acc_reset(sb_power_acc *a);

typedef struct sb_nvml sb_nvml;

/* Opens NVML for the device with this PCI bus id ("0000:3B:00.0", as
 * cudaDeviceGetPCIBusId writes it). `lib`: the library to dlopen (NULL:
 * libnvidia-ml.so.1). NULL when NVML or the device is missing: every
 * sb_nvml_* call below accepts NULL and does nothing. */
sb_nvml *sb_nvml_open(const char *lib, const char *pci_bus_id);
void sb_nvml_close(sb_nvml *n);
/* Adds one reading (power, temperature, clock-event reasons) to a.
 * Returns the reasons read now (0 when unknown). */
unsigned long long sb_nvml_sample(sb_nvml *n, sb_power_acc *a);

#endif
