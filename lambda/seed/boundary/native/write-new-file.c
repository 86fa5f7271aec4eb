// The seed's small-file write as one job on libuv's thread pool: openat (a new file only, relative
// to a directory descriptor the seed holds), write the content (given, or read from a source file
// the caller opened, up to the size its fstat gave; or from a local source file the job opens itself
// beneath the source root the seed holds, as open-beneath.c opens, and fstats: a regular file, its
// permission bits and size from that fstat, copied up to that size),
// fchown, statx (what Node's fstat calls: the identity a later run checks before deleting it) and
// close. Node makes each of those a job of its own, and on a slow file system (EFS) every job costs
// the JS thread a hop to the pool and back; one job per file costs one. A failure reports the call
// and its errno; lambda/seed/boundary/native-writer.ts turns that into Node's own kind of error and removes
// the file, a hop after the close as Node's calls do: unlinked straight after it, a file on efs-sim
// (FUSE), which may not have handled the close yet, was kept under a hidden name.
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "js-values.h"
#include "open-beneath.h"

// The calls a failure names, in the order lambda/seed/boundary/native-writer.ts lists them.
enum failed_call { CALL_NONE, CALL_OPEN, CALL_READ, CALL_WRITE, CALL_FCHOWN, CALL_FSTAT, CALL_CLOSE, CALL_OPEN_SOURCE, CALL_FSTAT_SOURCE,
                   SOURCE_NOT_REGULAR, SOURCE_TOO_LARGE };

// How the job opens a source file beneath the source root: never a link (at any component: openat2's
// RESOLVE_NO_SYMLINKS, or O_NOFOLLOW on each in the walk), and a FIFO swapped in is opened without
// waiting for a writer, then refused by its fstat.
#define OPEN_SOURCE (O_RDONLY | O_NOFOLLOW | O_NONBLOCK)

#define COPY_BUFFER_BYTES (64 * 1024)

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  int dir_fd;
  char *name;
  int source_fd;         // read from here (from offset 0, source_bytes at most) when there is no content buffer
  double source_bytes;
  // Or the source file at source_path beneath source_root, opened by the job: larger than source_limit
  // by its fstat, nothing is made (SOURCE_TOO_LARGE).
  int source_root;
  char *source_path;
  double source_limit;
  // A copy of the content buffer's bytes: a reference to the Buffer keeps the object alive, not its
  // memory, which an ArrayBuffer transferred or detached meanwhile would free under the job.
  char *content;
  size_t content_bytes;
  mode_t mode;
  uid_t uid;
  gid_t gid;
  // results
  int error;
  enum failed_call failed;
  double bytes;
  struct statx stats;
} write_job;

static void free_job(write_job *job) {
  free(job->name);
  free(job->content);
  free(job->source_path);
  free(job);
}

static int write_all(int fd, const char *data, size_t length) {
  while (length > 0) {
    ssize_t n = write(fd, data, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;  // no progress: never spin on it
      return -1;
    }
    data += n;
    length -= (size_t)n;
  }
  return 0;
}

// Copies at most `limit` bytes of the source file `input` (from its start) to `fd`: the bytes
// copied, or -1 with errno and *failed set. A file that grew since its fstat is cut at the size that
// fstat gave (a device swapped in would otherwise be read until the target is full).
static double copy_file(int input, double limit, int fd, enum failed_call *failed) {
  char *buffer = malloc(COPY_BUFFER_BYTES);
  double total = -1;
  if (buffer == NULL) {
    errno = ENOMEM;
    *failed = CALL_READ;
  } else {
    for (total = 0; total < limit;) {
      size_t want = limit - total < COPY_BUFFER_BYTES ? (size_t)(limit - total) : COPY_BUFFER_BYTES;
      ssize_t n = pread(input, buffer, want, (off_t)total);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) *failed = CALL_READ;
      else if (n > 0 && write_all(fd, buffer, (size_t)n) < 0) *failed = CALL_WRITE;
      if (n <= 0 || *failed != CALL_NONE) break;
      total += (double)n;
    }
    if (*failed != CALL_NONE) total = -1;
  }
  int saved = errno;
  free(buffer);
  errno = saved;
  return total;
}

// Opens the job's source file beneath its root and fstats it: its descriptor, with the job's mode
// (permission bits) and source_bytes from that fstat; or -1 with the job's failure set, nothing open.
static int open_source(write_job *job) {
  int source = open_beneath(job->source_root, job->source_path, OPEN_SOURCE, 0);
  if (source < 0) {
    job->error = -source;
    job->failed = CALL_OPEN_SOURCE;
    return -1;
  }
  struct statx st;
  if (statx(source, "", AT_EMPTY_PATH, STATX_TYPE | STATX_MODE | STATX_SIZE, &st) < 0) {
    job->error = errno;
    job->failed = CALL_FSTAT_SOURCE;
  } else if (!S_ISREG(st.stx_mode)) {
    job->error = EINVAL;
    job->failed = SOURCE_NOT_REGULAR;
  } else if ((double)st.stx_size > job->source_limit) {
    job->error = EFBIG;
    job->failed = SOURCE_TOO_LARGE;
  } else {
    job->mode = st.stx_mode & 0777;
    job->source_bytes = (double)st.stx_size;
    return source;
  }
  close(source);
  return -1;
}

static void execute(napi_env env, void *data) {
  (void)env;
  write_job *job = data;
  int source = job->source_fd;
  if (job->source_path != NULL && (source = open_source(job)) < 0) return;
  int fd = openat(job->dir_fd, job->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, job->mode);
  if (fd < 0) {
    job->error = errno;
    job->failed = CALL_OPEN;
    if (job->source_path != NULL) close(source);
    return;
  }
  if (source >= 0) {
    job->bytes = copy_file(source, job->source_bytes, fd, &job->failed);
  } else if (write_all(fd, job->content, job->content_bytes) < 0) {
    job->failed = CALL_WRITE;
  } else {
    job->bytes = (double)job->content_bytes;
  }
  if (job->failed == CALL_NONE && (job->uid != (uid_t)-1 || job->gid != (gid_t)-1) && fchown(fd, job->uid, job->gid) < 0) job->failed = CALL_FCHOWN;
  // statx, as libuv's fstat makes it (glibc 2.28, as old as Node.js 22 runs on; fstat's own symbol
  // is glibc 2.33's): the same inode, size and modification time that fs.lstat reads later.
  if (job->failed == CALL_NONE && statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_SIZE | STATX_MTIME, &job->stats) < 0) job->failed = CALL_FSTAT;
  if (job->failed != CALL_NONE) job->error = errno;
  // On NFS, close sends what is still unwritten and reports a write the server refused.
  if (close(fd) < 0 && job->failed == CALL_NONE) {
    job->error = errno;
    job->failed = CALL_CLOSE;
  }
  // Read only: its close has nothing to report.
  if (job->source_path != NULL) close(source);
}


// Resolves with [0, bytes, ino, size, mtime seconds, mtime nanoseconds] or [errno, failed call].
static void complete(napi_env env, napi_status status, void *data) {
  write_job *job = data;
  napi_value result;
  if (status != napi_ok && job->failed == CALL_NONE) {
    job->error = ECANCELED;
    job->failed = CALL_OPEN;
  }
  if (job->failed != CALL_NONE) {
    napi_create_array_with_length(env, 2, &result);
    napi_set_element(env, result, 0, js_number(env, job->error));
    napi_set_element(env, result, 1, js_number(env, job->failed));
  } else {
    const double fields[] = {0, job->bytes, (double)job->stats.stx_ino, (double)job->stats.stx_size,
                             (double)job->stats.stx_mtime.tv_sec, (double)job->stats.stx_mtime.tv_nsec};
    napi_create_array_with_length(env, 6, &result);
    for (uint32_t i = 0; i < 6; i++) napi_set_element(env, result, i, js_number(env, fields[i]));
  }
  napi_resolve_deferred(env, job->deferred, result);
  napi_delete_async_work(env, job->work);
  free_job(job);
}

// One name in the directory held open: never a path, nor one that leads out of it (NULL is no name).
static bool is_one_name(const char *name) {
  return name != NULL && name[0] != '\0' && strchr(name, '/') == NULL && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

// The job on the thread pool, and the promise it settles; freed and refused where it cannot be queued.
static napi_value queue_job(napi_env env, write_job *job, const char *call) {
  char resource[64];
  snprintf(resource, sizeof resource, "cdk-efs-kit:%s", call);
  napi_value promise = js_queue_work(env, resource, execute, complete, job, &job->deferred, &job->work);
  if (promise == NULL) {
    free_job(job);
    char message[96];
    snprintf(message, sizeof message, "%s: the job could not be queued", call);
    return js_type_error(env, message);
  }
  return promise;
}

// writeNewFile(dirFd, name, mode, content: Buffer | number (an open source file's descriptor), uid, gid, sourceBytes): Promise<number[]>
static napi_value write_new_file(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc != 7) return js_type_error(env, "writeNewFile takes 7 arguments");

  int32_t dir_fd, mode, uid, gid;
  if (napi_get_value_int32(env, argv[0], &dir_fd) != napi_ok || napi_get_value_int32(env, argv[2], &mode) != napi_ok
      || napi_get_value_int32(env, argv[4], &uid) != napi_ok || napi_get_value_int32(env, argv[5], &gid) != napi_ok) {
    return js_type_error(env, "writeNewFile: the directory descriptor, mode, uid and gid must be numbers");
  }
  bool is_buffer;
  napi_valuetype content_type;
  napi_is_buffer(env, argv[3], &is_buffer);
  napi_typeof(env, argv[3], &content_type);
  if (!is_buffer && content_type != napi_number) return js_type_error(env, "writeNewFile: the content must be a Buffer or an open file's descriptor");

  if (dir_fd < 0) return js_type_error(env, "writeNewFile: the directory descriptor must be an open descriptor");

  write_job *job = calloc(1, sizeof(write_job));
  if (job == NULL) return js_type_error(env, "writeNewFile: out of memory");
  job->dir_fd = dir_fd;
  job->source_fd = -1;
  // Permission bits only, never setuid, setgid or sticky, whatever the caller passes (the umask still applies).
  job->mode = (mode_t)mode & 0777;
  job->uid = (uid_t)uid;
  job->gid = (gid_t)gid;
  job->name = js_string_copy(env, argv[1]);
  if (!is_one_name(job->name)) {
    free_job(job);
    return js_type_error(env, "writeNewFile: the name must be one path component (not . or ..) with no NUL");
  }
  if (is_buffer) {
    void *content;
    napi_value array_buffer;
    bool detached = true;
    if (napi_get_typedarray_info(env, argv[3], NULL, NULL, NULL, &array_buffer, NULL) != napi_ok
        || napi_is_detached_arraybuffer(env, array_buffer, &detached) != napi_ok || detached
        || napi_get_buffer_info(env, argv[3], &content, &job->content_bytes) != napi_ok) {
      free_job(job);
      return js_type_error(env, "writeNewFile: the content buffer could not be read (or its memory was detached)");
    }
    job->content = malloc(job->content_bytes > 0 ? job->content_bytes : 1);
    if (job->content == NULL) {
      free_job(job);
      return js_type_error(env, "writeNewFile: out of memory");
    }
    if (job->content_bytes > 0) memcpy(job->content, content, job->content_bytes);
  } else if (napi_get_value_int32(env, argv[3], &job->source_fd) != napi_ok || job->source_fd < 0
             || napi_get_value_double(env, argv[6], &job->source_bytes) != napi_ok || !(job->source_bytes >= 0)) {
    free_job(job);
    return js_type_error(env, "writeNewFile: the source must be an open descriptor, with a size of 0 or more");
  }

  return queue_job(env, job, "writeNewFile");
}

// writeNewFileBeneath(dirFd, name, sourceRoot, sourcePath, uid, gid, limit): Promise<number[]>: writeNewFile
// of the source file at sourcePath beneath the directory sourceRoot holds ('a/b', no '.', '..' or empty
// part), opened and fstat'ed by the job; the new file gets its permission bits. Resolves as
// writeNewFile, or with [errno, call] where the source's open or fstat failed, it is not a regular
// file, or it is larger than `limit` (nothing is made then).
static napi_value write_new_file_beneath(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc != 7) return js_type_error(env, "writeNewFileBeneath takes 7 arguments");
  int32_t dir_fd, root, uid, gid;
  double limit;
  if (napi_get_value_int32(env, argv[0], &dir_fd) != napi_ok || napi_get_value_int32(env, argv[2], &root) != napi_ok
      || napi_get_value_int32(env, argv[4], &uid) != napi_ok || napi_get_value_int32(env, argv[5], &gid) != napi_ok
      || napi_get_value_double(env, argv[6], &limit) != napi_ok) {
    return js_type_error(env, "writeNewFileBeneath: the descriptors, uid, gid and limit must be numbers");
  }
  if (dir_fd < 0 || root < 0) return js_type_error(env, "writeNewFileBeneath: the directory descriptors must be open descriptors");
  if (!(limit >= 0)) return js_type_error(env, "writeNewFileBeneath: the limit must be 0 or more");
  write_job *job = calloc(1, sizeof(write_job));
  if (job == NULL) return js_type_error(env, "writeNewFileBeneath: out of memory");
  job->dir_fd = dir_fd;
  job->source_fd = -1;
  job->source_root = root;
  job->source_limit = limit;
  job->uid = (uid_t)uid;
  job->gid = (gid_t)gid;
  job->name = js_string_copy(env, argv[1]);
  job->source_path = js_string_copy(env, argv[3]);
  if (!is_one_name(job->name)) {
    free_job(job);
    return js_type_error(env, "writeNewFileBeneath: the name must be one path component (not . or ..) with no NUL");
  }
  // A relative path of plain parts: what RESOLVE_BENEATH would refuse, refused before the job (the
  // walk refuses it too, part by part).
  bool plain = job->source_path != NULL && job->source_path[0] != '\0' && job->source_path[0] != '/';
  for (char *part = job->source_path; plain && part != NULL;) {
    char *slash = strchr(part, '/');
    size_t length = slash == NULL ? strlen(part) : (size_t)(slash - part);
    plain = length > 0 && !(length == 1 && part[0] == '.') && !(length == 2 && part[0] == '.' && part[1] == '.');
    part = slash == NULL ? NULL : slash + 1;
  }
  if (!plain) {
    free_job(job);
    return js_type_error(env, "writeNewFileBeneath: the source path must be relative, of parts that are not empty, . or .., with no NUL");
  }
  return queue_job(env, job, "writeNewFileBeneath");
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "writeNewFile", NAPI_AUTO_LENGTH, write_new_file, NULL, &fn);
  napi_set_named_property(env, exports, "writeNewFile", fn);
  napi_create_function(env, "writeNewFileBeneath", NAPI_AUTO_LENGTH, write_new_file_beneath, NULL, &fn);
  napi_set_named_property(env, exports, "writeNewFileBeneath", fn);
  export_open_beneath(env, exports);
  export_at_calls(env, exports);
  return exports;
}
