import { spawnSync } from 'child_process';
import * as path from 'path';
import { efsSimBlocker, EfsSimBlocker } from '../tools/efs-sim/mount';

/**
 * Whether efs-sim runs here, for the demos. Where the packages it builds with are what is missing,
 * they are installed as `npm test` installs them (tools/setup.sh, as root: the only case that
 * reaches the build); what still stops it is returned, for the demo to say in one line.
 */
export function prepareEfsSim(): EfsSimBlocker | undefined {
  let blocker = efsSimBlocker();
  if (blocker?.kind === 'build') {
    const setup = spawnSync('bash', [path.join(__dirname, '..', 'tools', 'setup.sh'), 'efs-sim'], { stdio: 'inherit' });
    if (setup.status === 0) blocker = efsSimBlocker();
  }
  return blocker;
}

/** The command (or machine) that lets efs-sim run, by what stops it; `demo` is the npm script to run again. */
export function efsSimRemedy(blocker: EfsSimBlocker, demo: string): string {
  switch (blocker.kind) {
    case 'no-fuse': return 'use a machine with FUSE (in Docker: --device /dev/fuse --cap-add SYS_ADMIN)';
    case 'not-root': return `run it as root: sudo npm run ${demo}`;
    case 'build': return `install what efs-sim builds with, as root, and run it again: bash tools/setup.sh efs-sim && npm run ${demo}`;
  }
}
