// The target's calls on a name in a directory the seed holds, made on that directory's descriptor
// (mkdirat, unlinkat, renameat, linkat, symlinkat, readlinkat, utimensat, statx, a listing by fdopendir;
// and close, on the thread pool, of a descriptor the addon opened):
// the kernel resolves the one name inside the directory the descriptor holds, so no path through
// /proc/self/fd is ever resolved. Each name is one component (no '/', never '.' or '..'), checked
// here before any call; a link at the name is never followed (no call here follows one).
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include "js-values.h"
#include "open-beneath.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

// The operations, by number, as lambda/seed/boundary/held-name-calls.ts lists them.
enum at_op { OP_MKDIR, OP_UNLINK, OP_RMDIR, OP_RENAME, OP_LINK, OP_SYMLINK, OP_READLINK, OP_UTIMES, OP_READDIR, OP_CLOSE, OP_LSTAT, OP_COUNT };

// What lstat gives, in Node's order (see STAT_NUMBERS in open-beneath.h): as doubles (fs.Stats), or as
// int64s with each time as seconds and nanoseconds (fs.BigIntStats).
#define STAT_BIGINTS 18

// Node's dirent types (UV_DIRENT_*), which fs.Dirent takes.
enum { UV_UNKNOWN, UV_FILE, UV_DIR, UV_LINK, UV_FIFO, UV_SOCKET, UV_CHAR, UV_BLOCK };

typedef struct {
  char *name;
  int type;
} entry;

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  int op;
  int dir_fd;
  char *name;
  int other_fd;   // the second directory (rename, link), else -1
  char *other;    // the second name (rename, link) or a link's target (symlink)
  double number;  // mkdir's mode; utimes' time in milliseconds
  // results
  int error;
  char *text;     // readlink
  entry *entries; // readdir
  size_t count;
  struct statx st; // lstat
} at_job;

static void free_job(at_job *job) {
  free(job->name);
  free(job->other);
  free(job->text);
  for (size_t i = 0; i < job->count; i++) free(job->entries[i].name);
  free(job->entries);
  free(job);
}

static int one_component(const char *name) {
  return name != NULL && name[0] != '\0' && strchr(name, '/') == NULL && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static int uv_type(unsigned char type) {
  switch (type) {
    case DT_REG: return UV_FILE;
    case DT_DIR: return UV_DIR;
    case DT_LNK: return UV_LINK;
    case DT_FIFO: return UV_FIFO;
    case DT_SOCK: return UV_SOCKET;
    case DT_CHR: return UV_CHAR;
    case DT_BLK: return UV_BLOCK;
    default: return UV_UNKNOWN;
  }
}

static int uv_type_of_mode(mode_t mode) {
  return S_ISREG(mode) ? UV_FILE : S_ISDIR(mode) ? UV_DIR : S_ISLNK(mode) ? UV_LINK : S_ISFIFO(mode) ? UV_FIFO
    : S_ISSOCK(mode) ? UV_SOCKET : S_ISCHR(mode) ? UV_CHAR : S_ISBLK(mode) ? UV_BLOCK : UV_UNKNOWN;
}

// The directory's entries but '.' and '..', read through a descriptor of its own (the held one keeps
// its offset); a type the file system does not give (DT_UNKNOWN) read by statx without following.
static int list(at_job *job) {
  int fd = openat(job->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  DIR *dir = fdopendir(fd);
  if (dir == NULL) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  size_t capacity = 0;
  int result = 0;
  for (;;) {
    errno = 0;
    struct dirent *d = readdir(dir);
    if (d == NULL) {
      if (errno != 0) result = -1;
      break;
    }
    if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0) continue;
    if (job->count == capacity) {
      capacity = capacity ? capacity * 2 : 64;
      entry *grown = realloc(job->entries, capacity * sizeof(entry));
      if (grown == NULL) {
        errno = ENOMEM;
        result = -1;
        break;
      }
      job->entries = grown;
    }
    int type = uv_type(d->d_type);
    // statx, not fstatat, whose symbol is glibc 2.33's (Node.js 22 runs on 2.28).
    struct statx st;
    if (type == UV_UNKNOWN && statx(dirfd(dir), d->d_name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) == 0) type = uv_type_of_mode(st.stx_mode);
    char *name = strdup(d->d_name);
    if (name == NULL) {
      errno = ENOMEM;
      result = -1;
      break;
    }
    job->entries[job->count++] = (entry){ name, type };
  }
  int saved = errno;
  closedir(dir);
  errno = saved;
  return result;
}

static int read_link(at_job *job) {
  char buffer[PATH_MAX];
  ssize_t n = readlinkat(job->dir_fd, job->name, buffer, sizeof buffer);
  if (n < 0) return -1;
  if ((size_t)n == sizeof buffer) {
    errno = ENAMETOOLONG;
    return -1;
  }
  job->text = strndup(buffer, (size_t)n);
  if (job->text == NULL) errno = ENOMEM;
  return job->text == NULL ? -1 : 0;
}

static void run(at_job *job) {
  int outcome;
  switch (job->op) {
    case OP_MKDIR: outcome = mkdirat(job->dir_fd, job->name, (mode_t)job->number & 07777); break;
    case OP_UNLINK: outcome = unlinkat(job->dir_fd, job->name, 0); break;
    case OP_RMDIR: outcome = unlinkat(job->dir_fd, job->name, AT_REMOVEDIR); break;
    case OP_RENAME: outcome = renameat(job->dir_fd, job->name, job->other_fd, job->other); break;
    case OP_LINK: outcome = linkat(job->dir_fd, job->name, job->other_fd, job->other, 0); break;
    case OP_SYMLINK: outcome = symlinkat(job->other, job->dir_fd, job->name); break;
    case OP_READLINK: outcome = read_link(job); break;
    case OP_UTIMES: {
      double seconds = job->number / 1000;
      struct timespec time = { .tv_sec = (time_t)seconds, .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9) };
      struct timespec times[2] = { time, time };
      outcome = utimensat(job->dir_fd, job->name, times, AT_SYMLINK_NOFOLLOW);
      break;
    }
    case OP_READDIR: outcome = list(job); break;
    // One call, no descriptor: the name itself (never a link's target), with what libuv asks statx for;
    // `number` 1 for 64-bit integers.
    case OP_LSTAT: outcome = statx(job->dir_fd, job->name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &job->st); break;
    // A descriptor the addon opened, closed by it: Node, in a worker thread, warns of a close of one its own calls did not open.
    default: outcome = close(job->dir_fd); break;
  }
  job->error = outcome < 0 ? errno : 0;
}


// `values` (`count` elements of `size` bytes) copied into `into` where it is a typed array of that
// type and length (0 is returned: the synchronous call fills the caller's array, as Node's own lstat
// fills one array, for no allocation per call); else into a new typed array.
static napi_value typed_array(napi_env env, napi_typedarray_type type, const void *values, size_t count, size_t size, napi_value into) {
  bool is_typed = false;
  napi_typedarray_type into_type;
  size_t into_length;
  void *data;
  napi_value buffer, array;
  if (into != NULL && napi_is_typedarray(env, into, &is_typed) == napi_ok && is_typed
      && napi_get_typedarray_info(env, into, &into_type, &into_length, &data, NULL, NULL) == napi_ok && into_type == type && into_length == count) {
    memcpy(data, values, count * size);
    return js_number(env, 0);
  }
  if (napi_create_arraybuffer(env, count * size, &data, &buffer) != napi_ok) return js_number(env, -ENOMEM);
  memcpy(data, values, count * size);
  napi_create_typedarray(env, type, count, buffer, 0, &array);
  return array;
}

// Milliseconds as Node computes Stats' (seconds * 1e3 + nanoseconds / 1e6, in doubles).
static double ms(struct statx_timestamp t) {
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void stat_numbers(const struct statx *st, double numbers[STAT_NUMBERS]) {
  const double values[STAT_NUMBERS] = {
    (double)makedev(st->stx_dev_major, st->stx_dev_minor), (double)st->stx_ino, st->stx_mode, st->stx_nlink, st->stx_uid, st->stx_gid,
    (double)makedev(st->stx_rdev_major, st->stx_rdev_minor), (double)st->stx_size, st->stx_blksize, (double)st->stx_blocks,
    ms(st->stx_atime), ms(st->stx_mtime), ms(st->stx_ctime), ms(st->stx_btime),
  };
  memcpy(numbers, values, sizeof values);
}

// lstat's fields as Node fills its own arrays (st_dev as makedev gives it): a Float64Array, or with
// `bigint` a BigInt64Array (see typed_array for `into`).
static napi_value stat_values(napi_env env, const struct statx *st, int bigint, napi_value into) {
  uint64_t dev = makedev(st->stx_dev_major, st->stx_dev_minor), rdev = makedev(st->stx_rdev_major, st->stx_rdev_minor);
  if (bigint) {
    const int64_t values[STAT_BIGINTS] = {
      (int64_t)dev, (int64_t)st->stx_ino, st->stx_mode, st->stx_nlink, st->stx_uid, st->stx_gid, (int64_t)rdev, (int64_t)st->stx_size,
      st->stx_blksize, (int64_t)st->stx_blocks, st->stx_atime.tv_sec, st->stx_atime.tv_nsec, st->stx_mtime.tv_sec, st->stx_mtime.tv_nsec,
      st->stx_ctime.tv_sec, st->stx_ctime.tv_nsec, st->stx_btime.tv_sec, st->stx_btime.tv_nsec,
    };
    return typed_array(env, napi_bigint64_array, values, STAT_BIGINTS, sizeof values[0], into);
  }
  double values[STAT_NUMBERS];
  stat_numbers(st, values);
  return typed_array(env, napi_float64_array, values, STAT_NUMBERS, sizeof values[0], into);
}

// -errno; the link's target (readlink); [name, type, name, type, ...] (readdir); the fields (lstat:
// into `into`, see typed_array); else 0.
static napi_value result_of(napi_env env, at_job *job, napi_value into) {
  napi_value result;
  if (job->error != 0) return js_number(env, -job->error);
  if (job->op == OP_LSTAT) return stat_values(env, &job->st, job->number == 1, into);
  if (job->op == OP_READLINK) {
    napi_create_string_utf8(env, job->text, NAPI_AUTO_LENGTH, &result);
  } else if (job->op == OP_READDIR) {
    napi_create_array_with_length(env, job->count * 2, &result);
    for (size_t i = 0; i < job->count; i++) {
      napi_value name;
      napi_create_string_utf8(env, job->entries[i].name, NAPI_AUTO_LENGTH, &name);
      napi_set_element(env, result, (uint32_t)(2 * i), name);
      napi_set_element(env, result, (uint32_t)(2 * i + 1), js_number(env, job->entries[i].type));
    }
  } else {
    result = js_number(env, 0);
  }
  return result;
}



// Reads (op, dirFd, name, otherFd, other, number) into a new job; NULL with `*problem` set where they do not fit the operation.
static at_job *read_job(napi_env env, napi_callback_info info, const char **problem) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  at_job *job = calloc(1, sizeof(at_job));
  if (job == NULL) {
    *problem = "atCall: out of memory";
    return NULL;
  }
  if (argc != 6 || napi_get_value_int32(env, argv[0], &job->op) != napi_ok || napi_get_value_int32(env, argv[1], &job->dir_fd) != napi_ok
      || napi_get_value_int32(env, argv[3], &job->other_fd) != napi_ok || napi_get_value_double(env, argv[5], &job->number) != napi_ok
      || job->op < 0 || job->op >= OP_COUNT || job->dir_fd < 0) {
    *problem = "atCall(op, dirFd, name, otherFd, other, number): a known operation, an open directory descriptor and numbers";
  } else if (job->op != OP_READDIR && job->op != OP_CLOSE && !one_component(job->name = js_string_copy(env, argv[2]))) {
    *problem = "atCall: the name must be one path component (not . or ..) with no NUL";
  } else if ((job->op == OP_RENAME || job->op == OP_LINK) && (job->other_fd < 0 || !one_component(job->other = js_string_copy(env, argv[4])))) {
    *problem = "atCall: the second directory must be open and its name one path component (not . or ..) with no NUL";
  } else if (job->op == OP_SYMLINK && ((job->other = js_string_copy(env, argv[4])) == NULL || job->other[0] == '\0')) {
    *problem = "atCall: a link's target must be a non-empty string with no NUL";
  } else {
    return job;
  }
  free_job(job);
  return NULL;
}

// atCallSync(op, dirFd, name, otherFd, other, number): the call's result now (see result_of; for
// lstat, `other` may be the typed array to fill).
static napi_value at_call_sync(napi_env env, napi_callback_info info) {
  const char *problem = NULL;
  at_job *job = read_job(env, info, &problem);
  if (job == NULL) return js_type_error(env, problem);
  run(job);
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  napi_value result = result_of(env, job, argv[4]);
  free_job(job);
  return result;
}

static void execute(napi_env env, void *data) {
  (void)env;
  run(data);
}

static void complete(napi_env env, napi_status status, void *data) {
  at_job *job = data;
  if (status != napi_ok) job->error = ECANCELED;
  napi_resolve_deferred(env, job->deferred, result_of(env, job, NULL));
  napi_delete_async_work(env, job->work);
  free_job(job);
}

// atCall(op, dirFd, name, otherFd, other, number): atCallSync's result, made on libuv's thread pool.
static napi_value at_call_async(napi_env env, napi_callback_info info) {
  const char *problem = NULL;
  at_job *job = read_job(env, info, &problem);
  if (job == NULL) return js_type_error(env, problem);
  napi_value promise = js_queue_work(env, "cdk-efs-kit:atCall", execute, complete, job, &job->deferred, &job->work);
  if (promise == NULL) {
    free_job(job);
    return js_type_error(env, "atCall: the job could not be queued");
  }
  return promise;
}

void export_at_calls(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "atCallSync", NAPI_AUTO_LENGTH, at_call_sync, NULL, &fn);
  napi_set_named_property(env, exports, "atCallSync", fn);
  napi_create_function(env, "atCall", NAPI_AUTO_LENGTH, at_call_async, NULL, &fn);
  napi_set_named_property(env, exports, "atCall", fn);
}
