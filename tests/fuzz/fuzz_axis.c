/* libFuzzer harness for the axis-list parser (harness/axes.c).
 * Input: byte 0 picks the axis, the rest is the list text.
 * Properties: no memory error or UB (ASan/UBSan); on success every value
 * is in the axis bounds (or `auto` where the axis takes it) and unique,
 * and format -> parse gives the same list back; on failure the message
 * is a terminated, non-empty line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/axes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int axis = data[0] % SB_NUM_AXES;
  char *text = malloc(size);
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';
  sb_axis_values v, back;
  char err[48]; /* small on purpose: messages must truncate safely */
  memset(err, 'x', sizeof err);
  if (sb_axis_parse(axis, text, &v, err, sizeof err) == 0) {
    if (v.count < 1 || v.count > SB_AXIS_MAX_VALUES) abort();
    for (int i = 0; i < v.count; ++i) {
      const int automatic = v.v[i] == SB_AXIS_AUTO && sb_axis_takes_auto(axis);
      if (!automatic && (v.v[i] < sb_axes[axis].min || v.v[i] > sb_axes[axis].max)) abort();
      for (int j = 0; j < i; ++j)
        if (v.v[i] == v.v[j]) abort();
    }
    char buf[SB_AXIS_MAX_VALUES * 24 + 1];
    sb_axis_format(axis, &v, buf, sizeof buf);
    char err2[256];
    if (sb_axis_parse(axis, buf, &back, err2, sizeof err2) != 0) abort();
    if (back.count != v.count || memcmp(back.v, v.v, (size_t)v.count * sizeof v.v[0]) != 0)
      abort();
  } else {
    if (memchr(err, '\0', sizeof err) == NULL || err[0] == '\0') abort();
  }
  free(text);
  return 0;
}
