/* Resuming a sweep from an existing result CSV (--resume FILE).
 *
 * The file must start with this binary's header (same schema, same
 * columns). It is read with the same record rules as the writer (RFC 4180:
 * a quoted field may hold newlines). Every complete row is "done": its key
 * (GPU uuid + point name) is remembered so the sweep skips it. A trailing
 * partial row (the process died inside a write) is not a row: the loader
 * truncates the file to the end of the last complete row before anything is
 * appended. A malformed row anywhere else means the file is not ours, and
 * the loader refuses it rather than guess. */
#ifndef SB_RESUME_H
#define SB_RESUME_H

#include <stddef.h>

#define SB_RESUME_MAX_GPUS 64

typedef struct sb_resume {
  char **keys;          /* sorted "gpu_uuid|family/variant/axis=v/..." */
  long count, cap;
  long rows;            /* complete rows read (duplicates included) */
  size_t good_bytes;    /* header + complete rows: the file is cut here */
  size_t dropped_bytes; /* a partial last row, dropped */
  int need_header;      /* the file is empty or holds a partial header */
  int ncopy;            /* copy bandwidth of each GPU's ok reference row */
  struct { char uuid[48]; double gbps; } copy[SB_RESUME_MAX_GPUS];
} sb_resume;

/* "uuid|name": the key a row and a sweep point share (name as built by
 * sb_point_name). Writes at most len bytes. */
void sb_resume_key(const char *uuid, const char *point_name, char *out, size_t len);

/* Parses a CSV image buf[0, len). Returns 0 with r filled (free with
 * sb_resume_free), or -1 with one line in err: wrong header (another
 * schema or not a syncbench CSV), or a malformed row before the last one. */
int sb_resume_parse(const char *buf, size_t len, sb_resume *r, char *err, size_t errlen);

/* Reads path, parses it, and truncates a partial last row (or a partial
 * header) away. Returns 0, or -1 with err (cannot read, parse error). */
int sb_resume_load(const char *path, sb_resume *r, char *err, size_t errlen);

/* 1 if a row with this key is in r. */
int sb_resume_has(const sb_resume *r, const char *key);

/* The copy bandwidth (GB/s) of gpu uuid's ok reference row, or 0. */
double sb_resume_copy_gbps(const sb_resume *r, const char *uuid);

void sb_resume_free(sb_resume *r);

#endif
