/* The broken family's own variant flag (from SB_VF_FAMILY0 up), shared by
 * its kernels (kernels/families/broken.cu) and its host side (bench/broken.c). */
#ifndef SB_BROKEN_FLAGS_H
#define SB_BROKEN_FLAGS_H

#include "../../harness/launch.h"

/* broken: the correct output is each tile rotated by 32 words. */
#define SB_BROKEN_ROTATED SB_VF_FAMILY0

#endif
