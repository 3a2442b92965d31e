/* Stencil families: the geometry and traits shared by kernels/families/stencil.cu
 * (the kernels) and bench/stencil.c (CPU references, validation), so the
 * two cannot disagree on a tile's shape. Plain C, also a constant
 * expression in C++ (the kernels' template arguments). */
#ifndef SB_STENCIL_TILES_H
#define SB_STENCIL_TILES_H

#include "../../harness/launch.h"

/* stencil2d images are this many elements wide (n / width rows). */
#define SB_STENCIL2D_WIDTH 4096

/* 2D tile width for a tile of `tile` elements: 64 for tiles of >= 4096
 * elements (64x64, 64x128), else 32 (32x32, 32x64). */
#define SB_STENCIL2D_TW(tile) ((tile) >= 4096 && (tile) % 64 == 0 ? 64 : 32)

/* Variant flag: the kernel also writes each tile's residual sum (over
 * iterations and valid elements of |new - old|) after the n outputs, at
 * out[n + tile index]. */
#define SB_STENCIL_VF_RESIDUAL SB_VF_FAMILY0

#endif
