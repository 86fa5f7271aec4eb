import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { renderCompareTable, renderCostTable } from '../bin/report/compare-table';
import { efsSimUsable, withEfsSim } from '../tools/efs-sim/mount';

/**
 * A quick probe on efs-sim with EFS General Purpose latencies and with none (the `local` profile,
 * where FUSE is available), printed side by side as `cdk-efs-kit compare` prints it.
 */
const CLI = path.join(__dirname, '..', 'dist', 'bin', 'cdk-efs-kit.js');
const SETTINGS = ['--scenarios', 'write-sizes,create-files,metadata', '--set', 'write-sizes.files=5', '--set', 'write-sizes.sizesBytes=1KiB,1MiB',
  '--set', 'create-files.files=256', '--set', 'create-files.threads=32', '--set', 'create-files.directories=16', '--set', 'metadata.files=64'];

function probeOn(profile: string, out: string): void {
  withEfsSim({ profile }, (mount) =>
    execFileSync(process.execPath, [CLI, 'probe', '--dir', mount, ...SETTINGS, '--label', profile, '--json', out], { stdio: 'ignore' }));
}

export function runProbeDemo(): void {
  if (!efsSimUsable()) {
    console.log('\n== Probe: skipped (efs-sim needs root and /dev/fuse); try `npx cdk-efs-kit probe --dir <a mounted EFS>`');
    return;
  }
  console.log('\n== Probing efs-sim with EFS General Purpose latencies (efs-gp) and with none (local)');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-probe-'));
  try {
    const [gp, local] = ['efs-gp', 'local'].map((profile) => {
      const out = path.join(work, `${profile}.json`);
      probeOn(profile, out);
      return JSON.parse(fs.readFileSync(out, 'utf8'));
    });
    console.log(`${renderCompareTable(gp, local)}\n\n${renderCostTable(gp, local)}`);
    console.log('Every create, open and small write pays a round trip on EFS: spread them over threads and directories (create-many-directories).');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
