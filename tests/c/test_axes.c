#include "../../harness/axes.h"
#include "check.h"

SB_TEST(axis_parse_list_with_suffixes) {
  sb_axis_values v;
  char err[256];
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_N, "1,1k,64M,2G", &v, err, sizeof err), 0);
  CHECK_EQ_INT(v.count, 4);
  CHECK_EQ_INT(v.v[0], 1);
  CHECK_EQ_INT(v.v[1], 1024);
  CHECK_EQ_INT(v.v[2], 64LL << 20);
  CHECK_EQ_INT(v.v[3], 2LL << 30);
}

SB_TEST(axis_parse_power_of_two_range) {
  sb_axis_values v;
  char err[256];
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_BLOCK, "32..1024", &v, err, sizeof err), 0);
  CHECK_EQ_INT(v.count, 6);
  CHECK_EQ_INT(v.v[0], 32);
  CHECK_EQ_INT(v.v[5], 1024);
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_BLOCK, "64,128..256", &v, err, sizeof err), 0);
  CHECK_EQ_INT(v.count, 3);
}

SB_TEST(axis_parse_rejects_bad_input_with_reason) {
  sb_axis_values v;
  char err[256];
  const char *bad[] = {"", "abc", "0", "2048", "-1", "1,,2", "64,64", "32..48",
                       "48..64", "1024..32", "1.5", " 32", "32 ", "99999999999999999999",
                       "4G"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    err[0] = '\0';
    CHECK_EQ_INT(sb_axis_parse(SB_AXIS_BLOCK, bad[i], &v, err, sizeof err), -1);
    CHECK(strncmp(err, "block_threads", 13) == 0); /* names the axis */
  }
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_BLOCK, "64,64", &v, err, sizeof err), -1);
  CHECK(strstr(err, "twice") != NULL);
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_BLOCK, "2048", &v, err, sizeof err), -1);
  CHECK(strstr(err, "out of range") != NULL);
}

SB_TEST(axis_parse_names_unknown_suffix_and_overflow) {
  sb_axis_values v;
  char err[256];
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_N, "1T", &v, err, sizeof err), -1);
  CHECK_STR(err, "n: '1T': unknown suffix 'T' (use k, M or G)");
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_N, "64,4Gi", &v, err, sizeof err), -1);
  CHECK_STR(err, "n: '4Gi': unknown suffix 'Gi' (use k, M or G)");
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_N, "99999999999999999999999", &v, err, sizeof err), -1);
  CHECK_STR(err, "n: '99999999999999999999999' is too large: the most any axis can take is 2^62");
  /* Fits in 64 bits but not once the suffix multiplies it. */
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_N, "8589934592G", &v, err, sizeof err), -1);
  CHECK(strstr(err, "too large") != NULL);
  /* Within 2^62: the axis bound decides. */
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_N, "4194304G", &v, err, sizeof err), -1);
  CHECK(strstr(err, "out of range") != NULL);
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_BLOCK, "32..1T", &v, err, sizeof err), -1);
  CHECK(strstr(err, "unknown suffix 'T'") != NULL && strncmp(err, "block_threads", 13) == 0);
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_N, "1.5k", &v, err, sizeof err), -1);
  CHECK_STR(err, "n: '1.5k' is not a non-negative integer");
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_N, "-1", &v, err, sizeof err), -1);
  CHECK_STR(err, "n: '-1' is not a non-negative integer");
}

SB_TEST(axis_parse_categorical_by_label) {
  sb_axis_values v;
  char err[256], s[64];
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_PARTICIPANTS, "all,elected", &v, err, sizeof err), 0);
  CHECK_EQ_INT(v.count, 2);
  CHECK_EQ_INT(v.v[0], 0);
  CHECK_EQ_INT(v.v[1], 2);
  sb_axis_value_str(SB_AXIS_PARTICIPANTS, 1, s, sizeof s);
  CHECK_STR(s, "warp");
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_PARTICIPANTS, "al", &v, err, sizeof err), -1);
  CHECK(strstr(err, "all|warp|elected") != NULL);
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_PARTICIPANTS, "1", &v, err, sizeof err), -1);
}

SB_TEST(axis_format_round_trips) {
  sb_axis_values v, w;
  char err[256], buf[256];
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_ITERS, "1,4,16,64", &v, err, sizeof err), 0);
  sb_axis_format(SB_AXIS_ITERS, &v, buf, sizeof buf);
  CHECK_STR(buf, "1,4,16,64");
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_ITERS, buf, &w, err, sizeof err), 0);
  CHECK_EQ_INT(w.count, 4);
  sb_axis_value_str(SB_AXIS_ITERS, SB_AXIS_UNSET, buf, sizeof buf);
  CHECK_STR(buf, "");
}

SB_TEST(axis_names_and_options_unique) {
  for (int a = 0; a < SB_NUM_AXES; ++a)
    for (int b = a + 1; b < SB_NUM_AXES; ++b) {
      CHECK(strcmp(sb_axes[a].name, sb_axes[b].name) != 0);
      CHECK(strcmp(sb_axes[a].option, sb_axes[b].option) != 0);
    }
  CHECK_EQ_INT(sb_axis_by_name("iters"), SB_AXIS_ITERS);
  CHECK_EQ_INT(sb_axis_by_name("nope"), -1);
}

SB_TEST(axis_auto_only_on_splits_and_never_from_a_number) {
  sb_axis_values v, w;
  char err[256], buf[256];
  CHECK(sb_axis_takes_auto(SB_AXIS_SPLITS));
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_SPLITS, "auto,4,8", &v, err, sizeof err), 0);
  CHECK_EQ_INT(v.count, 3);
  CHECK_EQ_INT(v.v[0], SB_AXIS_AUTO);
  CHECK_EQ_INT(v.v[1], 4);
  CHECK(SB_AXIS_AUTO < sb_axes[SB_AXIS_SPLITS].min); /* no explicit count means auto */
  sb_axis_value_str(SB_AXIS_SPLITS, SB_AXIS_AUTO, buf, sizeof buf);
  CHECK_STR(buf, "auto");
  sb_axis_format(SB_AXIS_SPLITS, &v, buf, sizeof buf);
  CHECK_STR(buf, "auto,4,8");
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_SPLITS, buf, &w, err, sizeof err), 0);
  CHECK(w.count == 3 && w.v[0] == SB_AXIS_AUTO && w.v[2] == 8);
  /* A typed 0 or -1 is still an error, and auto is listed once. */
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_SPLITS, "0", &v, err, sizeof err), -1);
  CHECK_STR(err, "splits=0 is out of range [1, 256] (or auto)");
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_SPLITS, "-1", &v, err, sizeof err), -1);
  CHECK_STR(err, "splits: '-1' is not a non-negative integer");
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_SPLITS, "auto,2,auto", &v, err, sizeof err), -1);
  CHECK_STR(err, "splits=auto is listed twice");
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_SPLITS, "AUTO", &v, err, sizeof err), -1);
  CHECK_EQ_INT(sb_axis_parse(SB_AXIS_SPLITS, "auto..8", &v, err, sizeof err), -1);
  /* Every other axis, numeric or categorical, refuses it by name. */
  for (int a = 0; a < SB_NUM_AXES; ++a) {
    if (a == SB_AXIS_SPLITS) continue;
    CHECK(!sb_axis_takes_auto(a));
    err[0] = '\0';
    CHECK_EQ_INT(sb_axis_parse(a, sb_axes[a].labels ? "auto" : "4,auto", &v, err, sizeof err), -1);
    CHECK(strncmp(err, sb_axes[a].name, strlen(sb_axes[a].name)) == 0);
    CHECK(strstr(err, "'auto' is not a value of this axis (only splits takes auto)") != NULL);
  }
  /* An axis without auto writes 0 as a number (intensity's bound is 0). */
  sb_axis_value_str(SB_AXIS_INTENSITY, 0, buf, sizeof buf);
  CHECK_STR(buf, "0");
}
