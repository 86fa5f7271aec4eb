// Opens a relative path beneath a directory descriptor the seed holds, so that nothing on the way
// can lead it out: openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
// (Linux 5.6), where the kernel refuses any symlink, any '..' above the directory and any
// /proc magic link at every component, whatever is renamed meanwhile. Where openat2 is refused
// (an older kernel: ENOSYS; a seccomp filter that does not know it: ENOSYS or EPERM), the path is
// walked one component at a time with openat and O_NOFOLLOW, each directory relative to the last:
// the same refusals, made by the seed. Which of the two runs is decided once per process.
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include "js-values.h"
#include "open-beneath.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437  // the same on every architecture (added after the tables were unified)
#endif

#define BENEATH (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
// openat2 answers EAGAIN where a rename anywhere raced its walk; tried again this many times.
#define RACE_RETRIES 8

// 0 while openat2 is in use; the errno that refused it once the walk is; -1 before the first open.
// Threads that decide at once decide alike.
static volatile int refusal = -1;

static int open_with_openat2(int dir_fd, const char *path, int flags, mode_t mode) {
  struct open_how how = { .flags = (unsigned long long)(flags | O_CLOEXEC), .resolve = BENEATH };
  // openat2 refuses a mode without O_CREAT (open(2) ignores it).
  if (flags & O_CREAT) how.mode = mode;
  for (int attempt = 0;; attempt++) {
    long fd = syscall(SYS_openat2, dir_fd, path, &how, sizeof how);
    if (fd >= 0 || errno != EAGAIN || attempt == RACE_RETRIES) return (int)fd;
  }
}

// The fallback: each component opened relative to the last with O_NOFOLLOW (a directory with
// O_DIRECTORY too), never '.', '..' or an empty component; only the last one gets `flags`.
static int open_by_walk(int dir_fd, const char *path, int flags, mode_t mode) {
  char *copy = strdup(path);
  if (copy == NULL) {
    errno = ENOMEM;
    return -1;
  }
  int at = dir_fd;
  int result = -1;
  char *rest = copy;
  for (;;) {
    char *slash = strchr(rest, '/');
    if (slash != NULL) *slash = '\0';
    if (*rest == '\0' || strcmp(rest, ".") == 0 || strcmp(rest, "..") == 0) {
      errno = EXDEV;  // as openat2 answers a path that would leave the directory
      break;
    }
    if (slash == NULL) {
      result = openat(at, rest, flags | O_NOFOLLOW | O_CLOEXEC, mode);
      break;
    }
    int next = openat(at, rest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      // A link on the way fails O_DIRECTORY first: said as openat2 says it.
      int saved = errno;
      char target;
      errno = saved == ENOTDIR && readlinkat(at, rest, &target, 1) >= 0 ? ELOOP : saved;
      break;
    }
    if (at != dir_fd) close(at);
    at = next;
    rest = slash + 1;
  }
  int saved = errno;
  if (at != dir_fd) close(at);
  free(copy);
  errno = saved;
  return result;
}

// Decides, on the first call, whether openat2 is allowed here (CDK_EFS_KIT_OPENAT2=0 turns it off:
// ENOTSUP, to test the walk where openat2 runs).
static int decided_refusal(void) {
  // Decided: no lookup of the environment on every open.
  if (refusal >= 0) return refusal;
  const char *setting = getenv("CDK_EFS_KIT_OPENAT2");
  if (refusal < 0 && setting != NULL && strcmp(setting, "0") == 0) refusal = ENOTSUP;
  if (refusal < 0) {
    struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC, .resolve = BENEATH };
    long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof how);
    if (fd >= 0) close((int)fd);
    // Only a refusal of the call itself: any other failure (the working directory gone) says openat2 exists.
    refusal = fd < 0 && (errno == ENOSYS || errno == EPERM) ? errno : 0;
  }
  return refusal;
}

// A descriptor, or -errno (open-beneath.h).
int open_beneath(int dir_fd, const char *path, int flags, mode_t mode) {
  if (path[0] == '/') return -EXDEV;
  int fd = decided_refusal() == 0 ? open_with_openat2(dir_fd, path, flags, mode) : open_by_walk(dir_fd, path, flags, mode);
  return fd < 0 ? -errno : fd;
}

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  int dir_fd;
  char *path;
  int flags;
  mode_t mode;
  int result;
} open_job;



// Reads (dirFd, path, flags, mode) into `job`; NULL (nothing thrown) when they are fine, else the thrown TypeError.
static const char *read_arguments(napi_env env, napi_callback_info info, open_job *job) {
  size_t argc = 4;
  napi_value argv[4];
  int32_t mode;
  size_t length;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc != 4 || napi_get_value_int32(env, argv[0], &job->dir_fd) != napi_ok || napi_get_value_int32(env, argv[2], &job->flags) != napi_ok
      || napi_get_value_int32(env, argv[3], &mode) != napi_ok) {
    return "openBeneath(dirFd, path, flags, mode): the descriptor, flags and mode must be numbers";
  }
  if (job->dir_fd < 0) return "openBeneath: the directory descriptor must be an open descriptor";
  job->mode = (mode_t)mode & 0777;
  if (napi_get_value_string_utf8(env, argv[1], NULL, 0, &length) != napi_ok || length == 0) return "openBeneath: the path must be a non-empty string";
  job->path = malloc(length + 1);
  if (job->path == NULL) return "openBeneath: out of memory";
  napi_get_value_string_utf8(env, argv[1], job->path, length + 1, &length);
  if (strlen(job->path) != length) return "openBeneath: the path must hold no NUL";
  return NULL;
}

// openBeneathSync(dirFd, path, flags, mode): a descriptor, or -errno.
static napi_value open_beneath_sync(napi_env env, napi_callback_info info) {
  open_job job = { .path = NULL };
  const char *problem = read_arguments(env, info, &job);
  napi_value result = problem != NULL ? js_type_error(env, problem) : js_number(env, open_beneath(job.dir_fd, job.path, job.flags, job.mode));
  free(job.path);
  return result;
}

static void execute(napi_env env, void *data) {
  (void)env;
  open_job *job = data;
  job->result = open_beneath(job->dir_fd, job->path, job->flags, job->mode);
}

static void complete(napi_env env, napi_status status, void *data) {
  open_job *job = data;
  napi_resolve_deferred(env, job->deferred, js_number(env, status == napi_ok ? job->result : -ECANCELED));
  napi_delete_async_work(env, job->work);
  free(job->path);
  free(job);
}

// openBeneath(dirFd, path, flags, mode): Promise<a descriptor, or -errno>, opened on libuv's thread pool.
static napi_value open_beneath_async(napi_env env, napi_callback_info info) {
  open_job *job = calloc(1, sizeof(open_job));
  if (job == NULL) return js_type_error(env, "openBeneath: out of memory");
  const char *problem = read_arguments(env, info, job);
  napi_value promise = problem == NULL ? js_queue_work(env, "cdk-efs-kit:openBeneath", execute, complete, job, &job->deferred, &job->work) : NULL;
  if (problem == NULL && promise == NULL) problem = "openBeneath: the job could not be queued";
  if (problem != NULL) {
    free(job->path);
    free(job);
    return js_type_error(env, problem);
  }
  return promise;
}

// openBeneathStatSync(dirFd, path, flags, into): openBeneathSync (with no mode: nothing is created)
// and a statx of the descriptor it opened, in one call: a descriptor, with `into` (a Float64Array of
// STAT_NUMBERS) filled with what fstat would say of it; or -errno, with nothing left open.
static napi_value open_beneath_stat_sync(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  open_job job = { .path = NULL };
  napi_typedarray_type type;
  size_t length = 0;
  void *numbers = NULL;
  bool is_typed = false;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc != 4 || napi_is_typedarray(env, argv[3], &is_typed) != napi_ok || !is_typed
      || napi_get_typedarray_info(env, argv[3], &type, &length, &numbers, NULL, NULL) != napi_ok || type != napi_float64_array
      || length != STAT_NUMBERS || numbers == NULL) {
    return js_type_error(env, "openBeneathStatSync(dirFd, path, flags, into): `into` must be a Float64Array of 14");
  }
  const char *problem = NULL;
  size_t path_length;
  if (napi_get_value_int32(env, argv[0], &job.dir_fd) != napi_ok || napi_get_value_int32(env, argv[2], &job.flags) != napi_ok) {
    problem = "openBeneathStatSync(dirFd, path, flags, into): the descriptor and flags must be numbers";
  } else if (job.dir_fd < 0) {
    problem = "openBeneathStatSync: the directory descriptor must be an open descriptor";
  } else if (job.flags & O_CREAT) {
    problem = "openBeneathStatSync: opens what is there, never creates (no O_CREAT)";
  } else if (napi_get_value_string_utf8(env, argv[1], NULL, 0, &path_length) != napi_ok || path_length == 0) {
    problem = "openBeneathStatSync: the path must be a non-empty string";
  } else if ((job.path = js_string_copy(env, argv[1])) == NULL) {
    problem = "openBeneathStatSync: the path must hold no NUL";
  }
  if (problem != NULL) {
    free(job.path);
    return js_type_error(env, problem);
  }
  int fd = open_beneath(job.dir_fd, job.path, job.flags, 0);
  free(job.path);
  if (fd >= 0) {
    struct statx st;
    // As libuv's fstat asks (AT_EMPTY_PATH: the descriptor itself).
    if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, &st) == 0) {
      stat_numbers(&st, numbers);
    } else {
      int saved = errno;
      close(fd);
      fd = -saved;
    }
  }
  return js_number(env, fd);
}

// beneathResolution(): 0 where openat2 is in use, else the errno that refused it (the walk is in use).
static napi_value beneath_resolution(napi_env env, napi_callback_info info) {
  (void)info;
  return js_number(env, decided_refusal());
}

// closeBeneath(fd): 0, or -errno. A descriptor this addon opened is closed by it: Node, in a worker
// thread, warns of a close of a descriptor its own calls did not open.
static napi_value close_beneath(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc != 1 || napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) return js_type_error(env, "closeBeneath(fd): the descriptor must be an open descriptor");
  return js_number(env, close(fd) < 0 ? -errno : 0);
}

void export_open_beneath(napi_env env, napi_value exports) {
  const struct { const char *name; napi_callback call; } functions[] = {
    { "beneathResolution", beneath_resolution }, { "openBeneathSync", open_beneath_sync }, { "openBeneath", open_beneath_async },
    { "openBeneathStatSync", open_beneath_stat_sync }, { "closeBeneath", close_beneath },
  };
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
    napi_value fn;
    napi_create_function(env, functions[i].name, NAPI_AUTO_LENGTH, functions[i].call, NULL, &fn);
    napi_set_named_property(env, exports, functions[i].name, fn);
  }
}
