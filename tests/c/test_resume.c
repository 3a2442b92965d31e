/* --resume: reading a CSV, skipping its rows, dropping a partial last row. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../bench/registry.h"
#include "../../harness/resume.h"
#include "check.h"

static sb_provenance prov_for(const char *uuid) {
  sb_provenance p;
  memset(&p, 0, sizeof p);
  snprintf(p.gpu_name, sizeof p.gpu_name, "NVIDIA Test");
  snprintf(p.gpu_uuid, sizeof p.gpu_uuid, "%s", uuid);
  return p;
}

/* Header + one row per point of the scan family's quick sweep (with a
 * detail holding a newline and quotes), written by the real writer. */
static char *csv_image(size_t *len, const sb_provenance *prov, int rows, long *row_end) {
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  sb_csv_write_header(f);
  const sb_family *scan = sb_find_family("scan");
  for (int i = 0; i < rows; ++i) {
    sb_row r;
    sb_row_init(&r, prov);
    r.family = "scan";
    r.variant = scan->variants->rows[i % scan->variants->count].name;
    r.axis[SB_AXIS_BLOCK] = 32 << (i / scan->variants->count);
    r.axis[SB_AXIS_N] = 1024;
    r.axis[SB_AXIS_PARTICIPANTS] = 1; /* a categorical axis: by name */
    r.status = SB_OK;
    snprintf(r.detail, sizeof r.detail, "row %d, \"quoted\"\nsecond line", i);
    sb_csv_write_row(f, &r);
    fflush(f);
    if (row_end) row_end[i] = ftell(f);
  }
  fclose(f);
  return buf;
}

static void key_of(const sb_provenance *prov, const char *variant, long long block, char *key, size_t len) {
  sb_point p;
  p.family = sb_find_family("scan");
  for (int v = 0; v < p.family->variants->count; ++v)
    if (!strcmp(p.family->variants->rows[v].name, variant)) p.variant = &p.family->variants->rows[v];
  for (int a = 0; a < SB_NUM_AXES; ++a) p.axis[a] = SB_AXIS_UNSET;
  p.axis[SB_AXIS_BLOCK] = block;
  p.axis[SB_AXIS_N] = 1024;
  p.axis[SB_AXIS_PARTICIPANTS] = 1;
  char name[512];
  sb_point_name(&p, name, sizeof name);
  sb_resume_key(prov->gpu_uuid, name, key, len);
}

SB_TEST(resume_keys_match_point_names) {
  sb_provenance prov = prov_for("GPU-aaaa");
  size_t len;
  char *img = csv_image(&len, &prov, 6, NULL);
  sb_resume r;
  char err[256], key[1024];
  CHECK_EQ_INT(sb_resume_parse(img, len, &r, err, sizeof err), 0);
  CHECK_EQ_INT(r.rows, 6);
  CHECK_EQ_INT(r.good_bytes, len);
  CHECK_EQ_INT(r.dropped_bytes, 0);
  const sb_family *scan = sb_find_family("scan");
  key_of(&prov, scan->variants->rows[0].name, 32, key, sizeof key);
  CHECK(sb_resume_has(&r, key));
  key_of(&prov, scan->variants->rows[1].name, 64, key, sizeof key); /* row 5 */
  CHECK(sb_resume_has(&r, key));
  key_of(&prov, scan->variants->rows[3].name, 64, key, sizeof key); /* never written */
  CHECK(!sb_resume_has(&r, key));
  sb_provenance other = prov_for("GPU-bbbb"); /* same point, other GPU: not done */
  key_of(&other, scan->variants->rows[0].name, 32, key, sizeof key);
  CHECK(!sb_resume_has(&r, key));
  sb_resume_free(&r);
  free(img);
}

SB_TEST(resume_drops_a_partial_last_row_at_every_cut) {
  sb_provenance prov = prov_for("GPU-aaaa");
  size_t len;
  long ends[3];
  char *img = csv_image(&len, &prov, 3, ends);
  /* Cut the image anywhere inside the third row: two rows stay. */
  for (long cut = ends[1] + 1; cut < ends[2]; ++cut) {
    sb_resume r;
    char err[256];
    int rc = sb_resume_parse(img, (size_t)cut, &r, err, sizeof err);
    CHECK_EQ_INT(rc, 0);
    if (rc) { fprintf(stderr, "  cut %ld: %s\n", cut, err); break; }
    CHECK_EQ_INT(r.rows, 2);
    CHECK_EQ_INT(r.good_bytes, ends[1]);
    CHECK_EQ_INT(r.dropped_bytes, (size_t)cut - (size_t)ends[1]);
    sb_resume_free(&r);
  }
  free(img);
}

SB_TEST(resume_load_truncates_the_file) {
  sb_provenance prov = prov_for("GPU-aaaa");
  size_t len;
  long ends[3];
  char *img = csv_image(&len, &prov, 3, ends);
  char path[4096];
  int fd = sb_test_mkstemp(path, sizeof path, "sb_resume");
  CHECK(fd >= 0);
  long cut = ends[1] + (ends[2] - ends[1]) / 2; /* inside the quoted newline row */
  CHECK_EQ_INT(write(fd, img, (size_t)cut), cut);
  close(fd);
  sb_resume r;
  char err[256];
  CHECK_EQ_INT(sb_resume_load(path, &r, err, sizeof err), 0);
  CHECK_EQ_INT(r.rows, 2);
  struct stat st;
  CHECK_EQ_INT(stat(path, &st), 0);
  CHECK_EQ_INT(st.st_size, ends[1]); /* the partial row is gone */
  sb_resume_free(&r);
  /* An empty file, or a cut inside the header: start over with a header. */
  fd = open(path, O_WRONLY | O_TRUNC);
  CHECK_EQ_INT(write(fd, img, 10), 10);
  close(fd);
  CHECK_EQ_INT(sb_resume_load(path, &r, err, sizeof err), 0);
  CHECK_EQ_INT(r.need_header, 1);
  CHECK_EQ_INT(stat(path, &st), 0);
  CHECK_EQ_INT(st.st_size, 0);
  sb_resume_free(&r);
  unlink(path);
  free(img);
}

SB_TEST(resume_refuses_foreign_files) {
  sb_resume r;
  char err[256];
  const char *other = "schema_version,family,variant\n1,scan,x\n";
  CHECK_EQ_INT(sb_resume_parse(other, strlen(other), &r, err, sizeof err), -1);
  CHECK(strstr(err, "header") != NULL);
  const char *junk = "hello world";
  CHECK_EQ_INT(sb_resume_parse(junk, strlen(junk), &r, err, sizeof err), -1);
  /* A malformed row before the end is not ours: refuse, don't guess. */
  sb_provenance prov = prov_for("GPU-aaaa");
  size_t len;
  long ends[2];
  char *img = csv_image(&len, &prov, 2, ends);
  char *bad = malloc(len + 16);
  size_t h = (size_t)(strchr(img, '\n') - img) + 1;
  memcpy(bad, img, h);
  memcpy(bad + h, "1,2,3\n", 6);
  memcpy(bad + h + 6, img + h, len - h);
  CHECK_EQ_INT(sb_resume_parse(bad, len + 6, &r, err, sizeof err), -1);
  CHECK(strstr(err, "line 2") != NULL);
  free(bad);
  free(img);
}

SB_TEST(resume_remembers_each_gpus_copy_bandwidth) {
  sb_provenance a = prov_for("GPU-a"), b = prov_for("GPU-b");
  char *buf = NULL;
  size_t len;
  FILE *f = open_memstream(&buf, &len);
  sb_csv_write_header(f);
  sb_row r;
  sb_row_init(&r, &a);
  r.family = "reference";
  r.variant = "d2d_copy";
  r.axis[SB_AXIS_N] = 1024;
  r.status = SB_OK;
  r.gbps = 3000.5;
  r.pct_of_copy = 100.0; /* the yardstick's rows, as the runner writes them */
  sb_csv_write_row(f, &r);
  sb_row other = r;      /* another family's ok row: not the copy */
  other.family = "scan";
  other.gbps = 1200.0;
  other.pct_of_copy = 40.0;
  sb_csv_write_row(f, &other);
  r.prov = &b;
  r.status = SB_ERROR; /* not ok: no bandwidth */
  sb_csv_write_row(f, &r);
  fclose(f);
  sb_resume res;
  char err[256];
  CHECK_EQ_INT(sb_resume_parse(buf, len, &res, err, sizeof err), 0);
  CHECK_NEAR(sb_resume_copy_gbps(&res, "GPU-a"), 3000.5, 1e-9);
  CHECK_NEAR(sb_resume_copy_gbps(&res, "GPU-b"), 0, 0);
  sb_resume_free(&res);
  free(buf);
}
