// Opening a path beneath a directory the seed holds, never leaving it (open-beneath.c).
#ifndef CDK_EFS_KIT_OPEN_BENEATH_H
#define CDK_EFS_KIT_OPEN_BENEATH_H
#include <node_api.h>
#include <sys/types.h>

// Adds beneathResolution, openBeneathSync, openBeneath, openBeneathStatSync and closeBeneath to the addon's exports.
void export_open_beneath(napi_env env, napi_value exports);

// Opens `path` beneath `dir_fd` (openat2, or the walk where openat2 is refused; decided once per
// process): a descriptor, or -errno. Callable on any thread.
int open_beneath(int dir_fd, const char *path, int flags, mode_t mode);

// Adds atCallSync and atCall (at-calls.c): the target's calls on one name in a held directory.
void export_at_calls(napi_env env, napi_value exports);

// What a stat gives, in Node's order: dev, ino, mode, nlink, uid, gid, rdev, size, blksize, blocks,
// then atime, mtime, ctime and birthtime in milliseconds, as doubles (fs.Stats' numbers).
#define STAT_NUMBERS 14
struct statx;

// `st` as those numbers, computed as Node computes its own (at-calls.c).
void stat_numbers(const struct statx *st, double numbers[STAT_NUMBERS]);

#endif
