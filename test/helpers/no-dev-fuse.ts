/**
 * Prefixes for a command line that run it in a mount namespace of its own where FUSE is missing or
 * broken for it alone (the machine's /dev and mounts are untouched): a bare machine, as a demo meets
 * one. Both need root (unshare --mount).
 */

/** /dev without fuse: a copy of /dev's nodes on a tmpfs, less fuse, with /dev/pts and /dev/shm bound in. */
export const WITHOUT_DEV_FUSE = ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', [
  'set -e',
  'd=$(mktemp -d)',
  'mount -t tmpfs -o mode=0755 no-fuse-dev "$d"',
  'cp -ax /dev/. "$d"/',
  'rm -f "$d/fuse"',
  'for m in pts shm; do if mountpoint -q "/dev/$m"; then mount --rbind "/dev/$m" "$d/$m"; fi; done',
  'mount --move "$d" /dev',
  'rmdir "$d"',
  'exec "$@"',
].join('\n'), 'sh'];

/** /dev/fuse there, but /dev/null bound over it: what efs-sim checks before it starts passes, the mount fails. */
export const DEV_NULL_AS_FUSE = ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', 'mount --bind /dev/null /dev/fuse && exec "$@"', 'sh'];
