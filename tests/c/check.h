/* A minimal C test framework: SB_TEST(name) { CHECK(...); } in any
 * tests/c/test_*.c registers itself; tests/c/test_main.c runs them all and
 * prints "N passed, N failed". */
#ifndef SB_CHECK_H
#define SB_CHECK_H

#include <stdio.h>
#include <string.h>

typedef void (*sb_test_fn)(void);
void sb_test_register(const char *name, sb_test_fn fn);
extern int sb_test_failures; /* CHECK failures in the running test */
/* mkstemp of $TMPDIR/<stem>XXXXXX (/tmp without TMPDIR; make test sets it
 * to build/tmp and fails on what is left there): the open descriptor, or
 * -1; the name in path (size bytes). The test unlinks it. */
int sb_test_mkstemp(char *path, size_t size, const char *stem);

#define SB_TEST(name)                                                     \
  static void name(void);                                                 \
  __attribute__((constructor)) static void name##_register(void) {        \
    sb_test_register(#name, name);                                        \
  }                                                                       \
  static void name(void)

#define CHECK(cond)                                                       \
  do {                                                                    \
    if (!(cond)) {                                                        \
      ++sb_test_failures;                                                 \
      fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__,  \
              #cond);                                                     \
    }                                                                     \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                \
  do {                                                                    \
    long long sb_a_ = (long long)(a), sb_b_ = (long long)(b);             \
    if (sb_a_ != sb_b_) {                                                 \
      ++sb_test_failures;                                                 \
      fprintf(stderr, "  %s:%d: %s == %lld, want %s == %lld\n", __FILE__, \
              __LINE__, #a, sb_a_, #b, sb_b_);                            \
    }                                                                     \
  } while (0)

#define CHECK_STR(a, b)                                                   \
  do {                                                                    \
    const char *sb_a_ = (a), *sb_b_ = (b);                                \
    if (strcmp(sb_a_, sb_b_) != 0) {                                      \
      ++sb_test_failures;                                                 \
      fprintf(stderr, "  %s:%d: %s is \"%s\", want \"%s\"\n", __FILE__,   \
              __LINE__, #a, sb_a_, sb_b_);                                \
    }                                                                     \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                             \
  do {                                                                    \
    double sb_a_ = (a), sb_b_ = (b);                                      \
    if (!(sb_a_ - sb_b_ <= (tol) && sb_b_ - sb_a_ <= (tol))) {            \
      ++sb_test_failures;                                                 \
      fprintf(stderr, "  %s:%d: %s == %.9g, want %.9g +- %g\n", __FILE__, \
              __LINE__, #a, sb_a_, sb_b_, (double)(tol));                 \
    }                                                                     \
  } while (0)

#endif
