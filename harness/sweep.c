#include "sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The yardstick (the copy) keeps its own axes whatever the user asks. */
static int is_reference(const sb_family *f) { return (f->flags & SB_FF_YARDSTICK) != 0; }

/* A point's name is its identity outside this process: --benchmark_list_tests,
 * the --resume key, and the requests of scripts/ab.py to --serve workers. */
void sb_point_name(const sb_point *p, char *buf, size_t len) {
  int w = snprintf(buf, len, "%s/%s", p->family->name, p->variant->name);
  for (int a = 0; a < SB_NUM_AXES && w >= 0 && (size_t)w < len; ++a)
    if (p->axis[a] != SB_AXIS_UNSET) {
      char v[64];
      sb_axis_value_str(a, p->axis[a], v, sizeof v);
      w += snprintf(buf + w, len - (size_t)w, "/%s=%s", sb_axes[a].name, v);
    }
}

int sb_family_axes(const sb_family *f, const sb_sweep_spec *spec,
                   sb_axis_values out[SB_NUM_AXES], char *err, size_t errlen) {
  for (int a = 0; a < SB_NUM_AXES; ++a) {
    out[a].count = 0;
    const char *text = spec->quick ? f->quick_axes[a] : f->default_axes[a];
    if (text == NULL) continue;
    if (spec->override[a].count > 0 && !is_reference(f)) {
      out[a] = spec->override[a];
      continue;
    }
    char why[256];
    if (sb_axis_parse(a, text, &out[a], why, sizeof why) != 0) {
      snprintf(err, errlen, "family %s: bad built-in axis list: %s", f->name, why);
      return -1;
    }
  }
  return 0;
}

typedef struct point_list {
  sb_point *v;
  long count, cap;
} point_list;

static int push(point_list *l, const sb_point *p) {
  if (l->count == l->cap) {
    long cap = l->cap ? 2 * l->cap : 256;
    sb_point *v = realloc(l->v, (size_t)cap * sizeof *v);
    if (!v) return -1;
    l->v = v;
    l->cap = cap;
  }
  l->v[l->count++] = *p;
  return 0;
}

/* Appends the cartesian product of `axes` for one variant; axes the family
 * does not sweep stay SB_AXIS_UNSET. Earlier axes vary slowest. */
/* Is p already among out->v[from..count)? */
static int seen(const point_list *out, long from, const sb_point *p) {
  for (long i = from; i < out->count; ++i)
    if (memcmp(out->v[i].axis, p->axis, sizeof p->axis) == 0) return 1;
  return 0;
}

/* Returns 0, -1 out of memory, or -2: a selected point the family refuses
 * (err holds its reason). */
static int product(const sb_family *f, const sb_variant *v,
                   const sb_axis_values axes[SB_NUM_AXES],
                   const sb_sweep_spec *spec, point_list *out, char *err, size_t errlen) {
  int idx[SB_NUM_AXES] = {0};
  unsigned long long user_axes = 0;
  for (int a = 0; a < SB_NUM_AXES; ++a)
    if (spec->override[a].count > 0) user_axes |= 1ULL << a;
  if (spec->quick) user_axes |= SB_QUICK_GRID;
  const long from = out->count;
  for (;;) {
    sb_point p = {f, v, {0}};
    for (int a = 0; a < SB_NUM_AXES; ++a)
      p.axis[a] = axes[a].count ? axes[a].v[idx[a]] : SB_AXIS_UNSET;
    int wanted = !f->in_sweep || (f->in_sweep(&p, user_axes) && !seen(out, from, &p));
    char name[512];
    sb_point_name(&p, name, sizeof name);
    int keep = wanted && (is_reference(f) || spec->filter == NULL ||
                          regexec(spec->filter, name, 0, NULL, 0) == 0);
    if (keep && f->refuse && f->refuse(&p, err, errlen)) return -2;
    if (keep && push(out, &p) != 0) return -1;
    int a = SB_NUM_AXES - 1; /* odometer step, last axis fastest */
    for (; a >= 0; --a) {
      if (axes[a].count == 0) continue;
      if (++idx[a] < axes[a].count) break;
      idx[a] = 0;
    }
    if (a < 0) return 0;
  }
}

long sb_sweep_build(const sb_sweep_spec *spec, sb_point **points, char *err,
                    size_t errlen) {
  point_list list = {0};
  int used[SB_NUM_AXES] = {0};
  long non_reference = 0;
  *points = NULL;
  for (int i = 0; i < sb_num_families; ++i) {
    const sb_family *f = sb_families[i];
    sb_axis_values axes[SB_NUM_AXES];
    if (sb_family_axes(f, spec, axes, err, errlen) != 0) goto fail;
    long before = list.count;
    for (int k = 0; k < f->variants->count; ++k)
      switch (product(f, &f->variants->rows[k], axes, spec, &list, err, errlen)) {
        case 0: break;
        case -2: goto fail; /* err: the family's refusal */
        default: snprintf(err, errlen, "out of memory building the sweep"); goto fail;
      }
    if (!is_reference(f) && list.count > before) {
      non_reference += list.count - before;
      for (int a = 0; a < SB_NUM_AXES; ++a)
        if (f->default_axes[a]) used[a] = 1;
    }
  }
  if (non_reference == 0) {
    snprintf(err, errlen, "the filter matches no benchmark point (see --list)");
    goto fail;
  }
  for (int a = 0; a < SB_NUM_AXES; ++a)
    if (spec->override[a].count > 0 && !used[a]) {
      snprintf(err, errlen, "--%s was given, but no selected family sweeps %s",
               sb_axes[a].option, sb_axes[a].name);
      goto fail;
    }
  *points = list.v;
  return list.count;
fail:
  free(list.v);
  return -1;
}

/* A point's name and its place in the run, for finding a name given twice. */
typedef struct {
  char name[512];
  long at;
} named_point;

static int by_name_then_place(const void *x, const void *y) {
  const named_point *a = x, *b = y;
  const int c = strcmp(a->name, b->name);
  return c ? c : (a->at > b->at) - (a->at < b->at);
}

/* Drops every point whose name came earlier (the sweeps of one run may name
 * a point again: cuBLAS at a shape two tile lines share, the reference copy
 * every sweep adds), keeping the order. Returns the count left, or -1 out of
 * memory. */
static long drop_repeats(sb_point *points, long count) {
  named_point *n = malloc((size_t)(count ? count : 1) * sizeof *n);
  char *repeat = calloc((size_t)(count ? count : 1), 1);
  if (!n || !repeat) {
    free(n);
    free(repeat);
    return -1;
  }
  for (long i = 0; i < count; ++i) {
    sb_point_name(&points[i], n[i].name, sizeof n[i].name);
    n[i].at = i;
  }
  qsort(n, (size_t)count, sizeof *n, by_name_then_place);
  for (long i = 1; i < count; ++i)
    if (!strcmp(n[i].name, n[i - 1].name)) repeat[n[i].at] = 1;
  long k = 0;
  for (long i = 0; i < count; ++i)
    if (!repeat[i]) points[k++] = points[i];
  free(n);
  free(repeat);
  return k;
}

long sb_sweeps_build(const sb_sweep_spec *const *specs, int nspecs, sb_point **points, char *err,
                     size_t errlen) {
  long count = 0;
  *points = NULL;
  for (int s = 0; s < nspecs; ++s) {
    sb_point *some;
    char why[768];
    const long n = sb_sweep_build(specs[s], &some, why, sizeof why);
    if (n < 0) {
      if (nspecs == 1) snprintf(err, errlen, "%s", why);
      else if (s == 0) snprintf(err, errlen, "the first sweep (before --then): %s", why);
      else snprintf(err, errlen, "the sweep after --then #%d: %s", s, why);
      free(*points);
      *points = NULL;
      return -1;
    }
    sb_point *all = realloc(*points, (size_t)(count + n) * sizeof *all);
    if (!all) {
      free(some);
      free(*points);
      *points = NULL;
      snprintf(err, errlen, "out of memory building the sweep");
      return -1;
    }
    memcpy(all + count, some, (size_t)n * sizeof *some);
    free(some);
    *points = all, count += n;
  }
  if (nspecs > 1 && (count = drop_repeats(*points, count)) < 0) {
    free(*points);
    *points = NULL;
    snprintf(err, errlen, "out of memory building the sweep");
    return -1;
  }
  return count;
}
