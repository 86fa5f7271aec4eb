const fs = require('fs');

// See tmpdir-setup.js. A mount still live in it (a test that failed to stop its efs-sim) is left,
// with a warning, rather than emptied through.
module.exports = async () => {
  const dir = globalThis.testRunTmpdir;
  if (!dir) return;
  // No /proc/mounts (not Linux): no efs-sim either.
  const mounts = fs.existsSync('/proc/mounts') ? fs.readFileSync('/proc/mounts', 'utf8') : '';
  const mounted = mounts.split('\n').some((line) => line.split(' ')[1]?.startsWith(`${dir}/`));
  if (mounted) {
    console.warn(`test temporary directory ${dir} left in place: something is still mounted in it`);
    return;
  }
  fs.rmSync(dir, { recursive: true, force: true });
};
