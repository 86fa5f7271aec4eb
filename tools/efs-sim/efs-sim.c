/*
 * efs-sim: a FUSE passthrough file system that behaves like Amazon EFS from a client's point of
 * view: every operation pays a round trip (a sleep, taken without holding any lock, so concurrent
 * requests overlap), data moves through bandwidth token buckets, and faults can be injected.
 * The kernel still serialises creates within one directory, as an NFS client does, which is why
 * spreading work across directories matters on EFS.
 *
 * Build: cc -O2 -Wall -o efs-sim efs-sim.c $(pkg-config fuse3 --cflags --libs) -lpthread
 * Usage: efs-sim BACKING_DIR MOUNTPOINT [--profile efs-gp|efs-2016|s3files|local] [--latency-OP=MS ...]
 *        [--stream-mbps=N] [--aggregate-mbps=N] [--max-write=BYTES] [--attr-timeout=S] [--entry-timeout=S]
 *        [--readdir-entry-us=N] [--s3-read-min-kib=N --s3-stream-mbps=N] [--import-socket=PATH]
 *        [--burst-credits-mib=N --baseline-mbps=N] [--fault=ERRNO:OP[:after=BYTES][:prob=P]] [--stall=MS:OP[:prob=P]]
 *        [--stats-file=PATH] [--threads=N] [-f]
 * S3 Files (--profile s3files): reads of --s3-read-min-kib or more, and every read of a file whose data
 * was not imported (xattr user.s3files.remote on the backing file), are "s3read" operations with their
 * own round trip and bandwidth; with --import-socket, the first access of a directory (listing it, or
 * looking up a name it lacks) waits for the sync agent (s3files-sync.py) to import it from the bucket;
 * with --invalidate-fifo, the kernel's cache of each path the agent writes there is dropped.
 * Signals: SIGUSR1 writes stats JSON to --stats-file; SIGUSR2 resets them. Stats are also written
 * on unmount.
 */
#define FUSE_USE_VERSION 312
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

enum op {
  OP_GETATTR, OP_SETATTR, OP_CREATE, OP_MKNOD, OP_MKDIR, OP_OPEN, OP_OPENDIR, OP_READ, OP_WRITE,
  OP_READDIR, OP_RENAME, OP_UNLINK, OP_RMDIR, OP_SYMLINK, OP_READLINK, OP_LINK, OP_FLUSH,
  OP_RELEASE, OP_FSYNC, OP_STATFS, OP_RELEASEDIR, OP_ACCESS, OP_S3READ, OP_COUNT
};
static const char *op_names[OP_COUNT] = {
  "getattr", "setattr", "create", "mknod", "mkdir", "open", "opendir", "read", "write",
  "readdir", "rename", "unlink", "rmdir", "symlink", "readlink", "link", "flush",
  "release", "fsync", "statfs", "releasedir", "access", "s3read"
};

/* ---- configuration ---- */
static int backing_fd = -1;
static double latency_ms[OP_COUNT];          /* round trip per operation kind */
static double stream_bytes_per_s = 0;        /* per open file; 0 = unlimited */
static double aggregate_bytes_per_s = 0;     /* whole file system; 0 = unlimited */
static double baseline_bytes_per_s = 0;      /* Bursting: rate once credits are gone */
static double credit_bytes = -1;             /* Bursting: credit balance; < 0 = no credit model */
static long max_write = 1048576;
static double attr_timeout_s = 1.0;           /* how long the kernel trusts cached attributes (NFS: actimeo) */
static double entry_timeout_s = 1.0;          /* ... and names it looked up */
static const char *stats_file = NULL;
static double readdir_entry_ms = 0;           /* a listing's cost per entry (NFS READDIR replies hold so many) */
static long s3_read_min_bytes = 0;             /* S3 Files: reads this large stream from S3; 0 = never */
static double s3_stream_bytes_per_s = 0;       /* ... at this rate per read; 0 = unlimited */
static const char *backing_path = NULL;
static const char *import_socket = NULL;       /* the sync agent's socket: import a directory on first access */
static const char *invalidate_fifo = NULL;     /* paths the sync agent changed in the backing store, one a line */
static struct fuse *the_fuse = NULL;
#define XATTR_IMPORTED "user.s3files.imported"
#define XATTR_REMOTE "user.s3files.remote"

struct fault { int err; int op; long long after_bytes; double prob; int active; };
#define MAX_FAULTS 16
static struct fault faults[MAX_FAULTS];
static int fault_count = 0;
struct stall { double ms; int op; double prob; };
static struct stall stalls[MAX_FAULTS];
static int stall_count = 0;

/* ---- statistics ---- */
static atomic_llong op_counts[OP_COUNT];
static atomic_llong bytes_read, bytes_written;
static atomic_int in_flight, peak_in_flight;
static atomic_llong stats_seq;

/* ---- token buckets: a virtual clock of when the bucket is next free ---- */
static pthread_mutex_t bucket_lock = PTHREAD_MUTEX_INITIALIZER;
static double aggregate_next = 0, credit_updated = 0;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double t) {
  double d = t - now_s();
  if (d <= 0) return;
  struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {}
}

static void sleep_ms(double ms) { if (ms > 0) sleep_until(now_s() + ms / 1000.0); }

/* Reserve `bytes` on the aggregate bucket (and the credit balance) and return when they may pass. */
static double aggregate_reserve(double bytes) {
  double t = now_s();
  pthread_mutex_lock(&bucket_lock);
  double rate = aggregate_bytes_per_s;
  if (credit_bytes >= 0) {
    if (credit_updated == 0) credit_updated = t;
    credit_bytes += (t - credit_updated) * baseline_bytes_per_s; /* credits accrue at the baseline rate */
    credit_updated = t;
    credit_bytes -= bytes;
    if (credit_bytes <= 0) { credit_bytes = 0; rate = baseline_bytes_per_s; }
  }
  double start = aggregate_next > t ? aggregate_next : t;
  double done = rate > 0 ? start + bytes / rate : t;
  if (rate > 0) aggregate_next = done;
  pthread_mutex_unlock(&bucket_lock);
  return done;
}

/* `stable`: opened O_SYNC/O_DSYNC, so every write waits for the server (an NFS stable WRITE).
 * Otherwise writes are write-behind like the NFS client's: they pay bandwidth, and the round trip
 * is paid once by the next flush (close) or fsync (`dirty`). */
struct handle { int fd; int stable; int remote; atomic_int dirty; double next; pthread_mutex_t lock; };

/* Move `bytes` through the stream's and the file system's buckets: wait for the slower of the two. */
static void transfer(struct handle *h, double bytes) {
  double done = aggregate_reserve(bytes);
  if (stream_bytes_per_s > 0 && h) {
    double t = now_s();
    pthread_mutex_lock(&h->lock);
    double start = h->next > t ? h->next : t;
    h->next = start + bytes / stream_bytes_per_s;
    if (h->next > done) done = h->next;
    pthread_mutex_unlock(&h->lock);
  }
  sleep_until(done);
}

static double random01(void) {
  static _Thread_local unsigned int seed = 0;
  if (!seed) seed = (unsigned int)(now_s() * 1e6) ^ (unsigned int)pthread_self();
  return rand_r(&seed) / (double)RAND_MAX;
}

/* The errno a fault rule injects for this operation, or 0. */
static int injected_fault(int op) {
  for (int i = 0; i < fault_count; i++) {
    struct fault *f = &faults[i];
    if (f->op != op && f->op != -1) continue;
    if (f->after_bytes >= 0 && atomic_load(&bytes_written) < f->after_bytes) continue;
    if (f->prob < 1.0 && random01() >= f->prob) continue;
    return f->err;
  }
  return 0;
}

/* Every operation starts here: count it, track concurrency, pay its round trip (unlocked). */
static int begin_paying(int op, double ms) {
  atomic_fetch_add(&op_counts[op], 1);
  int now = atomic_fetch_add(&in_flight, 1) + 1;
  int peak = atomic_load(&peak_in_flight);
  while (now > peak && !atomic_compare_exchange_weak(&peak_in_flight, &peak, now)) {}
  sleep_ms(ms);
  for (int i = 0; i < stall_count; i++) {
    if ((stalls[i].op == op || stalls[i].op == -1) && random01() < stalls[i].prob) sleep_ms(stalls[i].ms);
  }
  return injected_fault(op);
}

static int begin(int op) { return begin_paying(op, latency_ms[op]); }

/* The write-behind round trip a flush or fsync owes for writes since the last one. */
static double owed_write_ms(struct handle *h) { return atomic_exchange(&h->dirty, 0) ? latency_ms[OP_WRITE] : 0; }

static int end(int result) {
  atomic_fetch_sub(&in_flight, 1);
  return result;
}

#define ERR(x) ((x) == -1 ? -errno : 0)
static const char *rel(const char *path) { return path[1] ? path + 1 : "."; }

/* The backing store's path of a mount path (xattr calls have no *at() form). */
static void backing_of(const char *path, char *out, size_t size) { snprintf(out, size, "%s/%s", backing_path, rel(path)); }

static int has_xattr(const char *path, const char *name) {
  char full[PATH_MAX];
  backing_of(path, full, sizeof full);
  return getxattr(full, name, NULL, 0) >= 0;
}

/* S3 Files imports a directory from the bucket the first time it is listed or a name in it is
 * looked up: ask the sync agent and wait for it. The agent marks the directory once imported. */
static int ensure_imported(const char *dir) {
  if (!import_socket || has_xattr(dir, XATTR_IMPORTED)) return 0;
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  if (s == -1) return -EIO;
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s", import_socket);
  char request[PATH_MAX + 2], answer[8] = "";
  int n = snprintf(request, sizeof request, "%s\n", rel(dir));
  int ok = connect(s, (struct sockaddr *)&addr, sizeof addr) == 0 && write(s, request, n) == n
           && read(s, answer, sizeof answer - 1) > 0 && !strncmp(answer, "ok", 2);
  close(s);
  return ok ? 0 : -EIO;
}

/* The directory a mount path lies in ("/" for a name in the root). */
static void parent_of(const char *path, char *out, size_t size) {
  snprintf(out, size, "%s", path);
  char *slash = strrchr(out, '/');
  if (slash == out) out[1] = '\0'; else *slash = '\0';
}

/* ---- operations: pass through to the backing directory with *at() calls ---- */
static int sim_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  int e = begin(OP_GETATTR); if (e) return end(-e);
  int r = fi ? fstat(((struct handle *)(uintptr_t)fi->fh)->fd, st) : fstatat(backing_fd, rel(path), st, AT_SYMLINK_NOFOLLOW);
  if (r == -1 && errno == ENOENT && import_socket) {
    /* A name missing from a directory not yet imported may be in the bucket. */
    char dir[PATH_MAX];
    parent_of(path, dir, sizeof dir);
    if (!has_xattr(dir, XATTR_IMPORTED)) {
      int ie = ensure_imported(dir);
      if (ie) return end(ie);
      r = fstatat(backing_fd, rel(path), st, AT_SYMLINK_NOFOLLOW);
    } else errno = ENOENT;
  }
  return end(ERR(r));
}

static int sim_access(const char *path, int mask) {
  int e = begin(OP_ACCESS); if (e) return end(-e);
  return end(ERR(faccessat(backing_fd, rel(path), mask, AT_SYMLINK_NOFOLLOW)));
}

static int sim_readlink(const char *path, char *buf, size_t size) {
  int e = begin(OP_READLINK); if (e) return end(-e);
  ssize_t n = readlinkat(backing_fd, rel(path), buf, size - 1);
  if (n == -1) return end(-errno);
  buf[n] = '\0';
  return end(0);
}

static int sim_mkdir(const char *path, mode_t mode) {
  int e = begin(OP_MKDIR); if (e) return end(-e);
  return end(ERR(mkdirat(backing_fd, rel(path), mode)));
}

static int sim_mknod(const char *path, mode_t mode, dev_t rdev) {
  int e = begin(OP_MKNOD); if (e) return end(-e);
  return end(ERR(mknodat(backing_fd, rel(path), mode, rdev)));
}

static int sim_unlink(const char *path) {
  int e = begin(OP_UNLINK); if (e) return end(-e);
  return end(ERR(unlinkat(backing_fd, rel(path), 0)));
}

static int sim_rmdir(const char *path) {
  int e = begin(OP_RMDIR); if (e) return end(-e);
  return end(ERR(unlinkat(backing_fd, rel(path), AT_REMOVEDIR)));
}

static int sim_symlink(const char *target, const char *path) {
  int e = begin(OP_SYMLINK); if (e) return end(-e);
  return end(ERR(symlinkat(target, backing_fd, rel(path))));
}

static int sim_link(const char *from, const char *to) {
  int e = begin(OP_LINK); if (e) return end(-e);
  return end(ERR(linkat(backing_fd, rel(from), backing_fd, rel(to), 0)));
}

static int sim_rename(const char *from, const char *to, unsigned int flags) {
  int e = begin(OP_RENAME); if (e) return end(-e);
  return end(ERR(renameat2(backing_fd, rel(from), backing_fd, rel(to), flags)));
}

static int sim_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
  int e = begin(OP_SETATTR); if (e) return end(-e);
  int r = fi ? fchmod(((struct handle *)(uintptr_t)fi->fh)->fd, mode) : fchmodat(backing_fd, rel(path), mode, 0);
  return end(ERR(r));
}

static int sim_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
  int e = begin(OP_SETATTR); if (e) return end(-e);
  int r = fi ? fchown(((struct handle *)(uintptr_t)fi->fh)->fd, uid, gid) : fchownat(backing_fd, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW);
  return end(ERR(r));
}

static int sim_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
  int e = begin(OP_SETATTR); if (e) return end(-e);
  if (fi) return end(ERR(ftruncate(((struct handle *)(uintptr_t)fi->fh)->fd, size)));
  int fd = openat(backing_fd, rel(path), O_WRONLY);
  if (fd == -1) return end(-errno);
  int r = ftruncate(fd, size);
  int saved = errno;
  close(fd);
  return end(r == -1 ? -saved : 0);
}

static int sim_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
  /* FUSE's write-back cache keeps a file's times itself and sends them (mtime and ctime, atime left
   * alone) when the file is flushed and after every rename, waiting for the answer; an NFS client
   * sends nothing, the server stamps the times. So those cost no round trip here. A utimes() or
   * touch sets atime too, and pays one; an application's own mtime-only call (touch -m) looks like
   * the cache's and is free here, though it would cost a round trip on EFS. */
  int page_cache_times = tv[0].tv_nsec == UTIME_OMIT;
  int e = begin_paying(OP_SETATTR, page_cache_times ? 0 : latency_ms[OP_SETATTR]); if (e) return end(-e);
  int r = fi ? futimens(((struct handle *)(uintptr_t)fi->fh)->fd, tv) : utimensat(backing_fd, rel(path), tv, AT_SYMLINK_NOFOLLOW);
  return end(ERR(r));
}

static int open_handle(int fd, struct fuse_file_info *fi) {
  struct handle *h = calloc(1, sizeof *h);
  if (!h) { close(fd); return -ENOMEM; }
  h->fd = fd;
  /* Data the import left in the bucket is read from S3; written through the mount, it is here. */
  if (s3_read_min_bytes > 0) {
    if ((fi->flags & O_ACCMODE) != O_RDONLY) fremovexattr(fd, XATTR_REMOTE);
    else h->remote = fgetxattr(fd, XATTR_REMOTE, NULL, 0) >= 0;
  }
  h->stable = (fi->flags & (O_SYNC | O_DSYNC)) != 0;
  pthread_mutex_init(&h->lock, NULL);
  fi->fh = (uint64_t)(uintptr_t)h;
  return 0;
}

/* O_DIRECT is the client's business: it skips the client's page cache (the kernel's FUSE layer does
 * that here, as the NFS client does on EFS) and the server never sees it. Passed on, tmpfs would
 * refuse the open. */
static int backing_flags(const struct fuse_file_info *fi) { return fi->flags & ~(O_NOFOLLOW | O_DIRECT); }

static int sim_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
  int e = begin(OP_CREATE); if (e) return end(-e);
  int fd = openat(backing_fd, rel(path), backing_flags(fi) | O_CREAT, mode);
  if (fd == -1) return end(-errno);
  return end(open_handle(fd, fi));
}

static int sim_open(const char *path, struct fuse_file_info *fi) {
  int e = begin(OP_OPEN); if (e) return end(-e);
  int fd = openat(backing_fd, rel(path), backing_flags(fi));
  if (fd == -1) return end(-errno);
  return end(open_handle(fd, fi));
}

static int sim_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  (void)path;
  struct handle *h = (struct handle *)(uintptr_t)fi->fh;
  /* S3 Files streams large reads, and data it has not imported, directly from S3. */
  int from_s3 = s3_read_min_bytes > 0 && (h->remote || (long)size >= s3_read_min_bytes);
  int e = begin(from_s3 ? OP_S3READ : OP_READ); if (e) return end(-e);
  ssize_t n = pread(h->fd, buf, size, off);
  if (n == -1) return end(-errno);
  if (from_s3 && s3_stream_bytes_per_s > 0) sleep_ms(n * 1000.0 / s3_stream_bytes_per_s);
  else transfer(h, (double)n);
  atomic_fetch_add(&bytes_read, n);
  return end((int)n);
}

static int sim_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  (void)path;
  struct handle *h = (struct handle *)(uintptr_t)fi->fh;
  int e = begin_paying(OP_WRITE, h->stable ? latency_ms[OP_WRITE] : 0); if (e) return end(-e);
  if (!h->stable) atomic_store(&h->dirty, 1);
  transfer(h, (double)size);
  ssize_t n = pwrite(h->fd, buf, size, off);
  if (n == -1) return end(-errno);
  atomic_fetch_add(&bytes_written, n);
  return end((int)n);
}

static int sim_statfs(const char *path, struct statvfs *st) {
  (void)path;
  int e = begin(OP_STATFS); if (e) return end(-e);
  return end(ERR(fstatvfs(backing_fd, st)));
}

static int sim_flush(const char *path, struct fuse_file_info *fi) {
  (void)path;
  struct handle *h = (struct handle *)(uintptr_t)fi->fh;
  int e = begin_paying(OP_FLUSH, latency_ms[OP_FLUSH] + owed_write_ms(h)); if (e) return end(-e);
  /* close(dup()) flushes like close() without giving up the descriptor. */
  return end(ERR(close(dup(h->fd))));
}

static int sim_release(const char *path, struct fuse_file_info *fi) {
  (void)path;
  begin(OP_RELEASE);
  struct handle *h = (struct handle *)(uintptr_t)fi->fh;
  close(h->fd);
  pthread_mutex_destroy(&h->lock);
  free(h);
  return end(0);
}

static int sim_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)path; (void)datasync;
  struct handle *h = fi ? (struct handle *)(uintptr_t)fi->fh : NULL;
  int e = begin_paying(OP_FSYNC, latency_ms[OP_FSYNC] + (h ? owed_write_ms(h) : 0)); if (e) return end(-e);
  /* The backing store is tmpfs: durability is the round trip we already paid. */
  return end(0);
}

static int sim_opendir(const char *path, struct fuse_file_info *fi) {
  int e = begin(OP_OPENDIR); if (e) return end(-e);
  if ((e = ensure_imported(path))) return end(e);
  int fd = openat(backing_fd, rel(path), O_RDONLY | O_DIRECTORY);
  if (fd == -1) return end(-errno);
  DIR *d = fdopendir(fd);
  if (!d) { int saved = errno; close(fd); return end(-saved); }
  fi->fh = (uint64_t)(uintptr_t)d;
  return end(0);
}

static int sim_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off, struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
  (void)path; (void)off; (void)flags;
  int e = begin(OP_READDIR); if (e) return end(-e);
  DIR *d = (DIR *)(uintptr_t)fi->fh;
  rewinddir(d);
  struct dirent *de;
  long entries = 0;
  while ((de = readdir(d)) != NULL) {
    struct stat st = { .st_ino = de->d_ino, .st_mode = (mode_t)de->d_type << 12 };
    entries++;
    if (fill(buf, de->d_name, &st, 0, 0)) break;
  }
  sleep_ms(entries * readdir_entry_ms);
  return end(0);
}

static int sim_releasedir(const char *path, struct fuse_file_info *fi) {
  (void)path;
  begin(OP_RELEASEDIR);
  closedir((DIR *)(uintptr_t)fi->fh);
  return end(0);
}

static void *sim_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
  /* EFS clients mount with wsize=rsize=1 MiB: one request carries up to that much. */
  conn->max_write = (unsigned)max_write;
  /* Like an NFS client, the kernel gathers small writes in its page cache and sends them in large
   * requests (up to max_write) when the file is flushed, synced or written back. */
  /* Not when the backing store also changes from outside (the S3 Files sync): with it the kernel
   * trusts its own file sizes over the server's for as long as it keeps the inode. */
  if ((conn->capable & FUSE_CAP_WRITEBACK_CACHE) && !invalidate_fifo) conn->want |= FUSE_CAP_WRITEBACK_CACHE;
  cfg->use_ino = 1;
  /* Attribute and entry caching in the spirit of an NFS client: short-lived, no negative caching. */
  cfg->entry_timeout = entry_timeout_s;
  cfg->attr_timeout = attr_timeout_s;
  cfg->negative_timeout = 0;
  cfg->nullpath_ok = 1;
  /* Close-to-open consistency, as NFS: a file opened again keeps its cached pages while its mtime
   * and size are unchanged (FUSE's default drops them at every open). */
  cfg->auto_cache = 1;
  return NULL;
}

static const struct fuse_operations sim_ops = {
  .init = sim_init, .getattr = sim_getattr, .access = sim_access, .readlink = sim_readlink,
  .mkdir = sim_mkdir, .mknod = sim_mknod, .unlink = sim_unlink, .rmdir = sim_rmdir,
  .symlink = sim_symlink, .link = sim_link, .rename = sim_rename, .chmod = sim_chmod,
  .chown = sim_chown, .truncate = sim_truncate, .utimens = sim_utimens, .create = sim_create,
  .open = sim_open, .read = sim_read, .write = sim_write, .statfs = sim_statfs,
  .flush = sim_flush, .release = sim_release, .fsync = sim_fsync, .opendir = sim_opendir,
  .readdir = sim_readdir, .releasedir = sim_releasedir,
};

/* ---- stats ---- */
static void write_stats(void) {
  if (!stats_file) return;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", stats_file);
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  fprintf(f, "{\"seq\":%lld,\"ops\":{", atomic_fetch_add(&stats_seq, 1) + 1);
  for (int i = 0; i < OP_COUNT; i++) fprintf(f, "%s\"%s\":%lld", i ? "," : "", op_names[i], atomic_load(&op_counts[i]));
  fprintf(f, "},\"bytesRead\":%lld,\"bytesWritten\":%lld,\"peakInFlight\":%d,\"inFlight\":%d}\n",
          atomic_load(&bytes_read), atomic_load(&bytes_written), atomic_load(&peak_in_flight), atomic_load(&in_flight));
  fclose(f);
  rename(tmp, stats_file);
}

static void reset_stats(void) {
  for (int i = 0; i < OP_COUNT; i++) atomic_store(&op_counts[i], 0);
  atomic_store(&bytes_read, 0);
  atomic_store(&bytes_written, 0);
  atomic_store(&peak_in_flight, atomic_load(&in_flight));
}

static void *signal_thread(void *arg) {
  sigset_t *set = arg;
  for (;;) {
    int sig;
    if (sigwait(set, &sig) != 0) continue;
    if (sig == SIGUSR2) reset_stats();
    write_stats(); /* after a reset too, so a waiter sees the new sequence number */
  }
  return NULL;
}

/* The sync agent changed these paths behind the kernel's back: drop its cached attributes and pages. */
static void *invalidate_thread(void *arg) {
  (void)arg;
  /* Read and write: the FIFO never reports end of file, whoever comes and goes on the other end. */
  FILE *f = fopen(invalidate_fifo, "r+");
  if (!f) { perror(invalidate_fifo); return NULL; }
  char line[PATH_MAX + 2];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    fuse_invalidate_path(the_fuse, line); /* ENOENT: the kernel holds nothing of it */
  }
  return NULL;
}

/* ---- options ---- */
static int op_index(const char *name) {
  if (!strcmp(name, "lookup")) return OP_GETATTR; /* the high-level API resolves lookups with getattr */
  if (!strcmp(name, "any")) return -1;
  for (int i = 0; i < OP_COUNT; i++) if (!strcmp(name, op_names[i])) return i;
  fprintf(stderr, "efs-sim: unknown operation '%s'\n", name);
  exit(2);
}

static int errno_named(const char *name) {
  if (!strcmp(name, "EIO")) return EIO;
  if (!strcmp(name, "ENOSPC")) return ENOSPC;
  if (!strcmp(name, "EDQUOT")) return EDQUOT;
  if (!strcmp(name, "EACCES")) return EACCES;
  fprintf(stderr, "efs-sim: unknown errno '%s' (EIO, ENOSPC, EDQUOT, EACCES)\n", name);
  exit(2);
}

static void set_profile(const char *name) {
  for (int i = 0; i < OP_COUNT; i++) latency_ms[i] = 0;
  stream_bytes_per_s = aggregate_bytes_per_s = s3_stream_bytes_per_s = readdir_entry_ms = 0;
  s3_read_min_bytes = 0;
  if (!strcmp(name, "local")) return;
  if (!strcmp(name, "s3files")) {
    /* Amazon S3 Files (NFS 4.2 on EFS, the bucket behind it), calibrated to the published figures in
     * docs/efs-sim.md (tools/efs-sim/calibrate.sh reproduces them). */
    latency_ms[OP_GETATTR] = 1.0;  latency_ms[OP_ACCESS] = 1.0;
    latency_ms[OP_CREATE] = 3.0;   latency_ms[OP_MKNOD] = 3.0;  latency_ms[OP_MKDIR] = 3.0;
    latency_ms[OP_SETATTR] = 1.6;  latency_ms[OP_OPEN] = 1.3;   latency_ms[OP_OPENDIR] = 1.0;
    latency_ms[OP_RENAME] = 3.0;   latency_ms[OP_UNLINK] = 3.0; latency_ms[OP_RMDIR] = 3.0;
    latency_ms[OP_SYMLINK] = 3.0;  latency_ms[OP_LINK] = 3.0;   latency_ms[OP_READLINK] = 1.0;
    latency_ms[OP_READDIR] = 1.0;  latency_ms[OP_READ] = 0.55;  latency_ms[OP_WRITE] = 2.5;
    latency_ms[OP_FLUSH] = 0.5;    latency_ms[OP_RELEASE] = 0.2; latency_ms[OP_FSYNC] = 17.0;
    latency_ms[OP_STATFS] = 1.0;   latency_ms[OP_S3READ] = 28.0;
    readdir_entry_ms = 0.028;
    s3_read_min_bytes = 128 * 1024;
    s3_stream_bytes_per_s = 210e6;
    stream_bytes_per_s = 550e6;
    aggregate_bytes_per_s = 3.0 * 1073741824;
    return;
  }
  if (!strcmp(name, "efs-gp")) {
    /* Today's General Purpose + Elastic, calibrated to seed 003 (tools/efs-sim/calibrate.sh reproduces the figures). */
    latency_ms[OP_GETATTR] = 0.5;  latency_ms[OP_ACCESS] = 0.5;
    latency_ms[OP_CREATE] = 2.9;   latency_ms[OP_MKNOD] = 2.9;  latency_ms[OP_MKDIR] = 2.9;
    latency_ms[OP_SETATTR] = 1.6;  latency_ms[OP_OPEN] = 0.8;   latency_ms[OP_OPENDIR] = 0.8;
    latency_ms[OP_RENAME] = 2.9;   latency_ms[OP_UNLINK] = 2.9; latency_ms[OP_RMDIR] = 2.9;
    latency_ms[OP_SYMLINK] = 2.9;  latency_ms[OP_LINK] = 2.9;   latency_ms[OP_READLINK] = 0.5;
    latency_ms[OP_READDIR] = 1.0;  latency_ms[OP_READ] = 0.5;   latency_ms[OP_WRITE] = 2.5;
    latency_ms[OP_FLUSH] = 0.3;    latency_ms[OP_RELEASE] = 0.2; latency_ms[OP_FSYNC] = 17.0;
    latency_ms[OP_STATFS] = 0.5;
    stream_bytes_per_s = 95e6;
    aggregate_bytes_per_s = 1500.0 * 1048576;
    return;
  }
  if (!strcmp(name, "efs-2016")) {
    /* 2016-era EFS as seed 000 saw it: untar at about 48 ms per file (tools/efs-sim/calibrate.sh reproduces the figures). */
    latency_ms[OP_GETATTR] = 2.4;  latency_ms[OP_ACCESS] = 2.4;
    latency_ms[OP_CREATE] = 8.0;   latency_ms[OP_MKNOD] = 8.0;  latency_ms[OP_MKDIR] = 8.0;
    latency_ms[OP_SETATTR] = 5.5;  latency_ms[OP_OPEN] = 3.0;   latency_ms[OP_OPENDIR] = 3.0;
    latency_ms[OP_RENAME] = 8.0;   latency_ms[OP_UNLINK] = 8.0; latency_ms[OP_RMDIR] = 8.0;
    latency_ms[OP_SYMLINK] = 8.0;  latency_ms[OP_LINK] = 8.0;   latency_ms[OP_READLINK] = 2.4;
    latency_ms[OP_READDIR] = 4.0;  latency_ms[OP_READ] = 2.4;   latency_ms[OP_WRITE] = 8.0;
    latency_ms[OP_FLUSH] = 1.5;    latency_ms[OP_RELEASE] = 1.0; latency_ms[OP_FSYNC] = 30.0;
    latency_ms[OP_STATFS] = 2.4;
    stream_bytes_per_s = 100e6;
    aggregate_bytes_per_s = 100.0 * 1048576;
    return;
  }
  fprintf(stderr, "efs-sim: unknown profile '%s' (efs-gp, efs-2016, s3files, local)\n", name);
  exit(2);
}

static void parse_fault(char *spec) {
  if (fault_count == MAX_FAULTS) { fprintf(stderr, "efs-sim: too many --fault rules\n"); exit(2); }
  struct fault f = { .after_bytes = -1, .prob = 1.0, .active = 1 };
  char *save = NULL;
  f.err = errno_named(strtok_r(spec, ":", &save));
  char *op = strtok_r(NULL, ":", &save);
  if (!op) { fprintf(stderr, "efs-sim: --fault=ERRNO:OP[:after=BYTES][:prob=P]\n"); exit(2); }
  f.op = op_index(op);
  for (char *kv; (kv = strtok_r(NULL, ":", &save));) {
    if (!strncmp(kv, "after=", 6)) f.after_bytes = atoll(kv + 6);
    else if (!strncmp(kv, "prob=", 5)) f.prob = atof(kv + 5);
    else { fprintf(stderr, "efs-sim: unknown fault option '%s'\n", kv); exit(2); }
  }
  faults[fault_count++] = f;
}

static void parse_stall(char *spec) {
  if (stall_count == MAX_FAULTS) { fprintf(stderr, "efs-sim: too many --stall rules\n"); exit(2); }
  struct stall s = { .prob = 1.0 };
  char *save = NULL;
  s.ms = atof(strtok_r(spec, ":", &save));
  char *op = strtok_r(NULL, ":", &save);
  if (!op) { fprintf(stderr, "efs-sim: --stall=MS:OP[:prob=P]\n"); exit(2); }
  s.op = op_index(op);
  for (char *kv; (kv = strtok_r(NULL, ":", &save));) {
    if (!strncmp(kv, "prob=", 5)) s.prob = atof(kv + 5);
    else { fprintf(stderr, "efs-sim: unknown stall option '%s'\n", kv); exit(2); }
  }
  stalls[stall_count++] = s;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: efs-sim BACKING_DIR MOUNTPOINT [--profile NAME] [options] (see the header of efs-sim.c)\n");
    return 2;
  }
  const char *backing = argv[1], *mountpoint = argv[2];
  int threads = 1024, foreground = 0;
  set_profile("efs-gp");
  /* The profile first, so flags given in any order override it. */
  for (int i = 3; i < argc; i++) {
    if (!strcmp(argv[i], "--profile") && i + 1 < argc) set_profile(argv[++i]);
    else if (!strncmp(argv[i], "--profile=", 10)) set_profile(argv[i] + 10);
  }
  for (int i = 3; i < argc; i++) {
    char *a = argv[i];
    if (!strcmp(a, "--profile")) { i++; continue; }
    if (!strncmp(a, "--profile=", 10)) continue;
    if (!strcmp(a, "-f")) foreground = 1;
    else if (!strncmp(a, "--latency-", 10)) {
      char *eq = strchr(a, '=');
      if (!eq) { fprintf(stderr, "efs-sim: %s needs =MS\n", a); return 2; }
      *eq = '\0';
      int op = op_index(a + 10);
      if (op == -1) { for (int k = 0; k < OP_COUNT; k++) latency_ms[k] = atof(eq + 1); }
      else latency_ms[op] = atof(eq + 1);
    }
    else if (!strncmp(a, "--stream-mbps=", 14)) stream_bytes_per_s = atof(a + 14) * 1e6;
    else if (!strncmp(a, "--aggregate-mbps=", 17)) aggregate_bytes_per_s = atof(a + 17) * 1e6;
    else if (!strncmp(a, "--baseline-mbps=", 16)) baseline_bytes_per_s = atof(a + 16) * 1e6;
    else if (!strncmp(a, "--burst-credits-mib=", 20)) credit_bytes = atof(a + 20) * 1048576;
    else if (!strncmp(a, "--max-write=", 12)) max_write = atol(a + 12);
    else if (!strncmp(a, "--attr-timeout=", 15)) attr_timeout_s = atof(a + 15);
    else if (!strncmp(a, "--entry-timeout=", 16)) entry_timeout_s = atof(a + 16);
    else if (!strncmp(a, "--fault=", 8)) parse_fault(a + 8);
    else if (!strncmp(a, "--stall=", 8)) parse_stall(a + 8);
    else if (!strncmp(a, "--stats-file=", 13)) stats_file = a + 13;
    else if (!strncmp(a, "--readdir-entry-us=", 19)) readdir_entry_ms = atof(a + 19) / 1000.0;
    else if (!strncmp(a, "--s3-read-min-kib=", 18)) s3_read_min_bytes = atol(a + 18) * 1024;
    else if (!strncmp(a, "--s3-stream-mbps=", 17)) s3_stream_bytes_per_s = atof(a + 17) * 1e6;
    else if (!strncmp(a, "--import-socket=", 16)) import_socket = a + 16;
    else if (!strncmp(a, "--invalidate-fifo=", 18)) invalidate_fifo = a + 18;
    else if (!strncmp(a, "--threads=", 10)) threads = atoi(a + 10);
    else { fprintf(stderr, "efs-sim: unknown option '%s'\n", a); return 2; }
  }
  if (credit_bytes >= 0 && baseline_bytes_per_s <= 0) { fprintf(stderr, "efs-sim: --burst-credits-mib needs --baseline-mbps\n"); return 2; }

  /* Sleeps are the model: let them end on time (the default 50 us slack shows in short latencies).
   * Worker threads inherit this from the main thread. */
  prctl(PR_SET_TIMERSLACK, 1000UL);

  backing_path = backing;
  backing_fd = open(backing, O_RDONLY | O_DIRECTORY);
  if (backing_fd == -1) { perror(backing); return 1; }

  /* No default_permissions: with it the kernel re-reads a directory's attributes on every path walk
   * after each create in it, round trips an NFS client saves with its access cache. The daemon runs
   * as root and does not check permissions: efs-sim models latency, not access control. */
  char *fargv[] = { argv[0], "-ofsname=efs-sim,subtype=efs-sim,allow_other", NULL };
  struct fuse_args args = FUSE_ARGS_INIT(2, fargv);
  struct fuse *fuse = fuse_new(&args, &sim_ops, sizeof sim_ops, NULL);
  if (!fuse) return 1;
  if (fuse_mount(fuse, mountpoint) != 0) { fuse_destroy(fuse); return 1; }
  if (fuse_daemonize(foreground) != 0) return 1;
  the_fuse = fuse;

  /* Stats signals go to one thread that sigwaits; every other thread blocks them. */
  static sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  pthread_t tid;
  pthread_create(&tid, NULL, signal_thread, &set);
  pthread_detach(tid);
  if (invalidate_fifo) {
    pthread_create(&tid, NULL, invalidate_thread, NULL);
    pthread_detach(tid);
  }

  struct fuse_session *se = fuse_get_session(fuse);
  if (fuse_set_signal_handlers(se) != 0) return 1;
  struct fuse_loop_config *cfg = fuse_loop_cfg_create();
  fuse_loop_cfg_set_max_threads(cfg, threads);
  fuse_loop_cfg_set_idle_threads(cfg, threads);
  int rc = fuse_loop_mt(fuse, cfg);
  fuse_loop_cfg_destroy(cfg);
  write_stats();
  fuse_remove_signal_handlers(se);
  fuse_unmount(fuse);
  fuse_destroy(fuse);
  return rc ? 1 : 0;
}
