/* Runs every SB_TEST; exit status 1 if any failed. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

#define MAX_TESTS 512
static struct { const char *name; sb_test_fn fn; } tests[MAX_TESTS];
static int num_tests;
int sb_test_failures;

int sb_test_mkstemp(char *path, size_t size, const char *stem) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  if ((size_t)snprintf(path, size, "%s/%sXXXXXX", dir, stem) >= size) return -1;
  return mkstemp(path);
}

void sb_test_register(const char *name, sb_test_fn fn) {
  if (num_tests == MAX_TESTS) {
    fprintf(stderr, "too many tests\n");
    exit(2);
  }
  tests[num_tests].name = name;
  tests[num_tests++].fn = fn;
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL; /* substring filter */
  int passed = 0, failed = 0;
  for (int i = 0; i < num_tests; ++i) {
    if (only && !strstr(tests[i].name, only)) continue;
    sb_test_failures = 0;
    tests[i].fn();
    if (sb_test_failures) {
      ++failed;
      printf("FAIL %s\n", tests[i].name);
    } else {
      ++passed;
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
