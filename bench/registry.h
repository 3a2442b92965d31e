/* What exists: every family, its variants and its axes. bench/registry.c
 * holds the one table of families (declared by the engine in
 * harness/family.h, with the types a family fills); each bench/<family>.c
 * describes one family (variants, axes, validity rules, byte model, CPU
 * reference). */
#ifndef SB_REGISTRY_H
#define SB_REGISTRY_H

#include "../harness/family.h"

#endif
