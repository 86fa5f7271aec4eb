import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { OperationSummary, ProbeResult } from '../../lambda/probe/result';
import { renderSlowdownTable } from '../../scripts/demo-probe';
import { efsSimUsable } from '../../tools/efs-sim/mount';
import { describeWithFuse } from '../helpers/efs-sim';

// `npm run demo` is `npm run build` (npm test has done it) then scripts/demo.ts, run here as it is.
const root = path.join(__dirname, '..', '..');

function demo(env: Record<string, string | undefined>): { status: number | null; out: string } {
  const result = spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), [path.join(root, 'scripts', 'demo.ts')], {
    cwd: root, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024,
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

function operation(name: string, p50: number, p99: number, opsPerSecond: number, bytesPerSecond = 0): OperationSummary {
  const spread = (mean: number) => ({ mean, min: mean, max: mean, stdev: 0 });
  return {
    operation: name, count: 64, errors: 0, opsPerSecond: spread(opsPerSecond), bytesPerSecond: spread(bytesPerSecond),
    latencyMs: { p50: spread(p50), p90: spread(p99), p99: spread(p99), max: spread(p99) },
  };
}

function result(label: string, summary: OperationSummary[]): ProbeResult {
  return { label, scenarios: [{ scenario: 'metadata', summary }] } as unknown as ProbeResult;
}

describe('the demo\'s probe tables', () => {
  const efs = result('efs-gp', [operation('stat', 0.6, 0.8, 1600), operation('write-1MiB-file', 20, 21, 50, 52e6)]);
  const local = result('local', [operation('stat', 0.05, 1.35, 12800), operation('write-1MiB-file', 1.4, 1.8, 600, 630e6)]);
  const table = renderSlowdownTable(efs, local, { width: 100, markdown: true });
  /** The row of an operation in the latency table (`at` 0) or the throughput table (`at` 1). */
  const row = (name: string, at = 0) => table.split('\n').filter((l) => l.startsWith(`| metadata | ${name} |`))[at].split(' | ');

  test('say how many times slower EFS is, never a negative difference', () => {
    expect(row('stat')[4]).toBe('12x slower');
    expect(table).not.toMatch(/-\d+(\.\d+)?%/);
  });

  test('label a percentile where the local run was the slower one, and explain the label under the table', () => {
    expect(row('stat')[7]).toBe('local slower * |');
    expect(table).toMatch(/\n\* local slower: not an EFS effect\./);
  });

  test('have MB/s and ops/s in a table of their own, MB/s only where data moves', () => {
    expect(table).toContain('| scenario | operation | MB/s EFS | MB/s local | ops/s EFS | ops/s local |');
    expect(row('write-1MiB-file', 1).slice(2)).toEqual(['52.0', '630.0', '50.0', '600.0 |']);
    expect(row('stat', 1).slice(2)).toEqual(['-', '-', '1600.0', '12800.0 |']);
  });

  test('say what their columns are before the tables', () => {
    expect(table.split('\n')[0]).toMatch(/^Each operation ran on efs-sim with EFS General Purpose latencies \(EFS\) and with none \(local\)/);
  });

  test.each([100, 80])('fit a terminal of %i columns, padded', (width) => {
    const text = renderSlowdownTable(efs, local, { width, markdown: false });
    expect(Math.max(...text.split('\n').map((l) => l.length))).toBeLessThanOrEqual(width);
    expect(text).toMatch(/^metadata +stat +0\.60 +0\.05 +12x slower +0\.80 +1\.35 +(local slower \*|local)$/m);
  });
});

describe('npm run demo', () => {
  test('without libfuse3 it runs without efs-sim, and says so in one line with the command that enables it', () => {
    // libfuse3 undiscoverable: pkg-config searches only an empty directory, and efs-sim builds into
    // an empty folder (no daemon left from earlier runs). apt-get fails, as it would offline: the
    // demo must fall back without installing anything. Where FUSE itself is missing or the user is
    // not root, the demo stops before the build and names that instead.
    const reason = efsSimUsable() ? 'libfuse3 is missing' : '(this machine has no /dev/fuse|mounting a FUSE file system needs root)';
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-no-fuse-'));
    const shims = path.join(scratch, 'bin');
    fs.mkdirSync(shims);
    fs.writeFileSync(path.join(shims, 'apt-get'), '#!/bin/sh\necho "apt-get: not on this machine" >&2\nexit 100\n', { mode: 0o755 });
    try {
      const { status, out } = demo({
        PKG_CONFIG_LIBDIR: scratch, PKG_CONFIG_PATH: '', EFS_SIM_BUILD_DIR: path.join(scratch, 'build'), PATH: `${shims}:${process.env.PATH}`,
      });
      expect({ status, out }).toMatchObject({ status: 0 });
      const skipped = out.split('\n').filter((l) => l.includes('efs-sim'));
      expect(skipped).toEqual([expect.stringMatching(new RegExp(`^efs-sim skipped \\(${reason}\\): the seed runs on a local directory, without EFS latency, and the probe is left out; to run both on emulated EFS, .+$`))]);
      if (efsSimUsable()) expect(skipped[0]).toMatch(/: bash tools\/setup\.sh efs-sim && npm run demo$/);
      expect(out).toMatch(/== Seeding 2000 files .* onto a local temporary directory \(no EFS latency\)\n {2}cdk-efs-kit seed: +2000 files written/);
      expect(out).not.toContain('== Probing');
      expect(fs.existsSync(path.join(scratch, 'build', 'efs-sim'))).toBe(false);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }, 300_000);
});

describeWithFuse('npm run demo', () => {
  test('with efs-sim it seeds and probes on emulated EFS and prints the explained tables', () => {
    const { status, out } = demo({});
    expect({ status, out }).toMatchObject({ status: 0 });
    expect(out).not.toContain('efs-sim skipped');
    expect(out).toContain('onto efs-sim with EFS General Purpose latencies');
    // To a pipe: tables padded to 100 columns.
    expect(Math.max(...out.split('\n').map((l) => l.length))).toBeLessThanOrEqual(100);
    expect(out).toMatch(/^scenario +operation +p50 ms/m);
    expect(out).toMatch(/^metadata +create +[\d.]+ +[\d.]+ +[\d.]+x slower /m);
    expect(out).toContain('What the EFS run\'s timed operations would cost on EFS');
  }, 300_000);
});
