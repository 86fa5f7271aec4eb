import { efsSimUsable } from '../../tools/efs-sim/mount';
import { refuseInUnitProject } from './test-project';

refuseInUnitProject('efs-sim');

export type { EfsSim } from '../../tools/efs-sim/mount';
export { onEfsSim, startEfsSim } from '../../tools/efs-sim/mount';

if (!efsSimUsable()) {
  console.warn('efs-sim tests are skipped: /dev/fuse is missing or not usable by this user (they need root and /dev/fuse).');
}

/** `describe` where FUSE works, `describe.skip` (with the message above) where it does not. */
export const describeWithFuse: jest.Describe = efsSimUsable() ? describe : describe.skip;
