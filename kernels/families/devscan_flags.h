/* The devscan family's own variant flag (from SB_VF_FAMILY0 up; SB_VF_PDL,
 * kernels/common/pdl.h, takes SB_VF_FAMILY0 << 11), shared by its kernels
 * (kernels/families/devscan.cu) and its host side (bench/devscan.c). */
#ifndef SB_DEVSCAN_FLAGS_H
#define SB_DEVSCAN_FLAGS_H

#include "../../harness/launch.h"

/* The single-pass variants: a tile counter and status words in a workspace,
 * zeroed by the point's query and numbered by launch after that. The runner
 * validates them once more on the workspace the timed launches left
 * (SB_FF_WORKSPACE_STATE): a launch that misread its number shows there;
 * cub, three_kernel(_pdl) and grid_sync keep nothing of ours between launches. */
#define SB_VF_DEVSCAN_RESET SB_VF_FAMILY0

/* The look-back rows whose picker reads the tuning axes (window,
 * first_sleep_ns, poll_sleep_ns, sleep_min_tiles: kernels/families/devscan.cu's
 * dev_pick_lookback); the sweep blanks those axes for every other row. */
#define SB_VF_DEVSCAN_TUNING (SB_VF_FAMILY0 << 1)

#endif
