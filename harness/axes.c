#include "axes.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sb_axis_info sb_axes[SB_NUM_AXES] = {
#define SB_AXIS_INFO(id, name, opt, lo, hi, labels, help) {name, opt, lo, hi, labels, help},
    SB_AXIS_LIST(SB_AXIS_INFO)
#undef SB_AXIS_INFO
};

int sb_axis_takes_auto(int axis) { return axis == SB_AXIS_SPLITS; }

/* Is [s, end) the word "auto"? */
static int is_auto(const char *s, const char *end) {
  return end - s == 4 && strncmp(s, "auto", 4) == 0;
}

int sb_axis_by_name(const char *name) {
  for (int a = 0; a < SB_NUM_AXES; ++a)
    if (strcmp(sb_axes[a].name, name) == 0) return a;
  return -1;
}

/* One number with an optional binary suffix (k/M/G = 2^10/2^20/2^30).
 * Returns 0, or -1 with "'<text>' <why>" in err. */
static int parse_one(const char *s, const char *end, long long *out, char *err,
                     size_t errlen) {
  int len = (int)(end - s);
  size_t digits = 0;
  while (s + digits < end && isdigit((unsigned char)s[digits])) ++digits;
  if (digits == 0) { /* no sign, no blanks */
    snprintf(err, errlen, "'%.*s' is not a non-negative integer", len, s);
    return -1;
  }
  const char *suffix = s + digits;
  unsigned shift = 0;
  if (suffix < end && (*suffix == 'k' || *suffix == 'K')) shift = 10;
  else if (suffix < end && *suffix == 'M') shift = 20;
  else if (suffix < end && *suffix == 'G') shift = 30;
  if (shift) ++suffix;
  if (suffix != end) {
    const char *letters = s + digits;
    while (letters < end && isalpha((unsigned char)*letters)) ++letters;
    if (letters == end) /* "1T", "4Gi" */
      snprintf(err, errlen, "'%.*s': unknown suffix '%.*s' (use k, M or G)", len, s,
               (int)(end - (s + digits)), s + digits);
    else
      snprintf(err, errlen, "'%.*s' is not a non-negative integer", len, s);
    return -1;
  }
  /* At most 2^62, so that ranges can double without overflow. */
  const unsigned long long limit = (1ULL << 62) >> shift;
  unsigned long long v = 0;
  for (size_t i = 0; i < digits; ++i) {
    v = v * 10 + (unsigned)(s[i] - '0');
    if (v > limit) {
      snprintf(err, errlen, "'%.*s' is too large: the most any axis can take is 2^62", len, s);
      return -1;
    }
  }
  *out = (long long)(v << shift);
  return 0;
}

/* Index of label [s, end) in "a|b|c", or -1. */
static long long label_index(const char *labels, const char *s, const char *end) {
  size_t len = (size_t)(end - s);
  long long i = 0;
  for (const char *p = labels; *p; ++i) {
    size_t n = strcspn(p, "|");
    if (n == len && strncmp(p, s, len) == 0) return i;
    p += n;
    if (*p == '|') ++p;
  }
  return -1;
}

void sb_axis_value_str(int axis, long long v, char *buf, size_t len) {
  const char *labels = sb_axes[axis].labels;
  if (v == SB_AXIS_UNSET) {
    buf[0] = '\0';
    return;
  }
  if (v == SB_AXIS_AUTO && sb_axis_takes_auto(axis)) {
    snprintf(buf, len, "auto");
    return;
  }
  if (labels) {
    const char *p = labels;
    for (long long i = 0; i < v && *p; ++i) {
      p += strcspn(p, "|");
      if (*p == '|') ++p;
    }
    snprintf(buf, len, "%.*s", (int)strcspn(p, "|"), p);
    return;
  }
  snprintf(buf, len, "%lld", v);
}

/* Appends v: a number within the axis bounds, or (automatic: the list
 * said "auto") SB_AXIS_AUTO, which a typed number never gives. */
static int add_value(int axis, long long v, int automatic, sb_axis_values *out, char *err,
                     size_t errlen) {
  const sb_axis_info *info = &sb_axes[axis];
  if (!automatic && (v < info->min || v > info->max)) {
    snprintf(err, errlen, "%s=%lld is out of range [%lld, %lld]%s", info->name,
             v, info->min, info->max, sb_axis_takes_auto(axis) ? " (or auto)" : "");
    return -1;
  }
  for (int i = 0; i < out->count; ++i)
    if (out->v[i] == v) {
      char s[64];
      sb_axis_value_str(axis, v, s, sizeof s);
      snprintf(err, errlen, "%s=%s is listed twice", info->name, s);
      return -1;
    }
  if (out->count == SB_AXIS_MAX_VALUES) {
    snprintf(err, errlen, "%s: more than %d values", info->name,
             SB_AXIS_MAX_VALUES);
    return -1;
  }
  out->v[out->count++] = v;
  return 0;
}

int sb_axis_parse(int axis, const char *text, sb_axis_values *out, char *err,
                  size_t errlen) {
  const char *name = sb_axes[axis].name;
  out->count = 0;
  if (text == NULL || *text == '\0') {
    snprintf(err, errlen, "%s: empty list", name);
    return -1;
  }
  const char *p = text;
  for (;;) {
    const char *comma = strchr(p, ',');
    const char *end = comma ? comma : p + strlen(p);
    const char *dots = NULL;
    for (const char *q = p; q + 1 < end; ++q)
      if (q[0] == '.' && q[1] == '.') { dots = q; break; }
    if (is_auto(p, end)) {
      if (!sb_axis_takes_auto(axis)) {
        char which[128] = "";
        for (int a = 0, w = 0; a < SB_NUM_AXES; ++a)
          if (sb_axis_takes_auto(a) && w >= 0 && (size_t)w < sizeof which)
            w += snprintf(which + w, sizeof which - (size_t)w, "%s%s", w ? ", " : "", sb_axes[a].name);
        snprintf(err, errlen, "%s: 'auto' is not a value of this axis (only %s takes auto)", name, which);
        return -1;
      }
      if (add_value(axis, SB_AXIS_AUTO, 1, out, err, errlen)) return -1;
    } else if (sb_axes[axis].labels) {
      long long v = label_index(sb_axes[axis].labels, p, end);
      if (v < 0) {
        snprintf(err, errlen, "%s: '%.*s' is not one of %s", name, (int)(end - p), p,
                 sb_axes[axis].labels);
        return -1;
      }
      if (add_value(axis, v, 0, out, err, errlen)) return -1;
    } else if (dots) { /* lo..hi: every power of two from lo to hi */
      long long lo, hi;
      char why[160];
      if (parse_one(p, dots, &lo, why, sizeof why) || parse_one(dots + 2, end, &hi, why, sizeof why)) {
        snprintf(err, errlen, "%s: '%.*s' is not a range like 32..1024: %s", name,
                 (int)(end - p), p, why);
        return -1;
      }
      if (lo <= 0 || (lo & (lo - 1)) || (hi & (hi - 1)) || hi < lo) {
        snprintf(err, errlen,
                 "%s: range '%.*s' needs powers of two with lo <= hi", name,
                 (int)(end - p), p);
        return -1;
      }
      for (long long v = lo; v <= hi; v *= 2)
        if (add_value(axis, v, 0, out, err, errlen)) return -1;
    } else {
      long long v;
      char why[160];
      if (parse_one(p, end, &v, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", name, why);
        return -1;
      }
      if (add_value(axis, v, 0, out, err, errlen)) return -1;
    }
    if (!comma) break;
    p = comma + 1;
  }
  return 0;
}

void sb_axis_format(int axis, const sb_axis_values *vals, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < vals->count && used < len; ++i) {
    char s[64];
    sb_axis_value_str(axis, vals->v[i], s, sizeof s);
    int w = snprintf(buf + used, len - used, "%s%s", i ? "," : "", s);
    if (w < 0) break;
    used += (size_t)w;
  }
}
