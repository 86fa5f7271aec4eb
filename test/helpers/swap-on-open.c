// An attacker with perfect timing, for the source-boundary tests: preloaded into the seed's
// process (LD_PRELOAD), it swaps the source directory SWAP_DIR for a link to SWAP_LINK just before
// the SWAP_AT'th open of a path in it (1: the walk opening it to list it; 2: the first file the copy
// opens in it), and leaves the link there. The open then goes on as the seed asked, so what refuses
// the link is the kernel under the seed's own flags: openat2 (the syscall) or the descriptor walk
// (openat with O_NOFOLLOW). Opens are matched by the directory they are relative to (the held
// source root, SWAP_ROOT) and the path's first component (the basename of SWAP_DIR).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

// Opens come from the main thread and libuv's pool at once.
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int opens;
static int swapped;

// Whether `path` relative to `dir_fd` names SWAP_DIR or something in it.
static int in_swapped_dir(int dir_fd, const char *path) {
  const char *root = getenv("SWAP_ROOT"), *dir = getenv("SWAP_DIR");
  if (!root || !dir || !path) return 0;
  const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
  size_t length = strlen(name);
  if (strncmp(path, name, length) != 0 || (path[length] != '\0' && path[length] != '/')) return 0;
  char link[64], held[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", dir_fd);
  ssize_t n = readlink(link, held, sizeof held - 1);
  if (n < 0) return 0;
  held[n] = '\0';
  return strcmp(held, root) == 0;
}

static void swap_now(void) {
  const char *dir = getenv("SWAP_DIR"), *target = getenv("SWAP_LINK");
  char aside[PATH_MAX];
  snprintf(aside, sizeof aside, "%s.real", dir);
  if (rename(dir, aside) != 0 || symlink(target, dir) != 0) {
    perror("swap-on-open");
    abort();
  }
  swapped = 1;
  fprintf(stderr, "swap-on-open: %s is now a link to %s\n", dir, target);
}

static void maybe_swap(int dir_fd, const char *path) {
  if (!in_swapped_dir(dir_fd, path)) return;
  const char *at = getenv("SWAP_AT");
  pthread_mutex_lock(&lock);
  if (!swapped && ++opens >= (at ? atoi(at) : 1)) swap_now();
  pthread_mutex_unlock(&lock);
}

// openat, and openat64 for a build with 64-bit file offsets: whichever the helper was linked against.
#define INTERPOSE_OPENAT(name)                                                        \
  int name(int dir_fd, const char *path, int flags, ...) {                            \
    static int (*real)(int, const char *, int, ...);                                  \
    if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, #name);  \
    mode_t mode = 0;                                                                  \
    if (flags & (O_CREAT | __O_TMPFILE)) {                                            \
      va_list args;                                                                   \
      va_start(args, flags);                                                          \
      mode = va_arg(args, mode_t);                                                    \
      va_end(args);                                                                   \
    }                                                                                 \
    maybe_swap(dir_fd, path);                                                         \
    return real(dir_fd, path, flags, mode);                                           \
  }
INTERPOSE_OPENAT(openat)
INTERPOSE_OPENAT(openat64)

long syscall(long number, ...) {
  static long (*real)(long, ...);
  if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  va_list args;
  va_start(args, number);
  long a[6];
  for (int i = 0; i < 6; i++) a[i] = va_arg(args, long);
  va_end(args);
  if (number == SYS_openat2) maybe_swap((int)a[0], (const char *)a[1]);
  return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
