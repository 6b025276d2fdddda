/* LD_PRELOAD shim for tests/scripts/aio-fallback.sh: io_setup() succeeds for
   the first $STEADY_IO_SETUP_OK_CALLS calls, then fails with -EAGAIN, as the
   kernel does when fs.aio-max-nr is exhausted by someone else. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

typedef struct io_context *io_context_t;

int io_setup(int nr_events, io_context_t *ctx) {
  static int (*real_io_setup)(int, io_context_t *);
  static int calls;
  if (real_io_setup == NULL) {
    real_io_setup = (int (*)(int, io_context_t *))dlsym(RTLD_NEXT, "io_setup");
  }
  const char *ok = getenv("STEADY_IO_SETUP_OK_CALLS");
  if (ok != NULL && ++calls > atoi(ok)) return -EAGAIN;
  return real_io_setup(nr_events, ctx);
}
