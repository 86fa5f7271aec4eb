import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// `cdk-efs-kit probe` and `compare` as users run them: the built CLI in its own process.
const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
let work: string;
beforeEach(() => { work = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-cli-')); });
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function probeJson(label: string, extra: string[] = []): string {
  const dir = path.join(work, label);
  fs.mkdirSync(dir);
  const out = path.join(work, `${label}.json`);
  const r = cli('probe', '--dir', dir, '--scenarios', 'write-sizes,metadata', '--set', 'write-sizes.files=2', '--set', 'write-sizes.sizesBytes=1KiB,64KiB',
    '--set', 'metadata.files=10', '--rounds', '2', '--pause', '0', '--label', label, '--json', out, ...extra);
  expect(r.stderr).not.toMatch(/error/i);
  expect(r.code).toBe(0);
  return out;
}

test('probe prints a table per scenario and writes the JSON result; scratch files are gone', () => {
  const dir = path.join(work, 'mnt');
  fs.mkdirSync(dir);
  const out = path.join(work, 'r.json');
  const r = cli('probe', '--dir', dir, '--scenarios', 'write-sizes', '--set', 'write-sizes.files=2', '--set', 'write-sizes.sizesBytes=4KiB', '--json', out);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('## write-sizes');
  expect(r.stdout).toMatch(/\| write-4KiB-file \| 2 \| [\d.]+ \| /);
  // 2 files of 4 KiB: 2 x 32 KiB written (the billed minimum), 2 OPENs and 2 CLOSEs of 4 KiB:
  // (8 KiB x $0.03 + 72 KiB x $0.06) / 2^20 KiB = $0.0000043 on Elastic.
  expect(r.stdout).toMatch(/^- cost at us-east-1 list prices, Regional, checked 2026-11-24: seconds [\d.]+; metered MiB read \/ written \/ metadata 0\.0 \/ 0\.1 \/ 0\.0; Elastic \$0\.0000043; Provisioned \$[\d.]+ at [\d.]+ MiB\/s \(\$[\d,.]+ a month\); Bursting \$0\.00, up to 0\.0 MiB of credits$/m);
  // The mount checks, one line each before the tables (a temporary directory: not an NFS mount).
  expect(r.stdout).toMatch(new RegExp(`^## mount of ${dir}\n\nWARN  mount {9}  ${dir} \\(in the mount at /\\S*\\) is not an NFS mount \\(it is \\S+, \\S+\\): these figures are not EFS's -> fix: probe a directory on an EFS mount`));
  expect(r.stdout).toContain(`\nskip  mount-options   mount options: skipped, ${dir} is not on an NFS mount\n`);
  expect(r.stdout).toContain('\nskip  posix-identity  POSIX identity: skipped, the probe was not told the access point it writes through\n');
  const result = JSON.parse(fs.readFileSync(out, 'utf8'));
  expect(result).toMatchObject({ status: 'ok', tool: 'cdk-efs-kit probe (CLI)', target: dir });
  expect(result.mountChecks.map((c: { id: string; status: string }) => `${c.status} ${c.id}`)).toEqual(['warn mount', 'skip mount-options', 'skip posix-identity']);
  expect(result.scenarios[0].params).toEqual({ files: 2, sizesBytes: [4096] });
  expect(fs.readdirSync(dir)).toEqual([]);
});

test('compare prints seed 004\'s side-by-side table for every scenario and operation, and the HTML report', () => {
  const a = probeJson('elastic');
  const b = probeJson('bursting');
  const html = path.join(work, 'report.html');
  const r = cli('compare', a, b, '--html', html);
  expect(r.code).toBe(0);
  const lines = r.stdout.slice(0, r.stdout.indexOf('\n\nCost of')).split('\n');
  expect(lines[0]).toBe('| scenario | operation | elastic p50 ms | bursting p50 ms | difference | elastic p99 ms | bursting p99 ms | difference | elastic throughput | bursting throughput | difference |');
  const operations = lines.slice(2).map((l) => l.split('|').slice(1, 3).map((c) => c.trim()).join('/'));
  expect(operations).toEqual(['write-sizes/write-1KiB-file', 'write-sizes/write-64KiB-file',
    'metadata/create', 'metadata/stat', 'metadata/open-close', 'metadata/readdir', 'metadata/rename', 'metadata/unlink']);
  expect(lines[2]).toMatch(/\| [+-]\d+\.\d% \|.* MB\/s \|/);
  expect(fs.readFileSync(html, 'utf8')).toContain('EFS probe report: elastic vs bursting');
});

test('compare then prints, per scenario and run, the seconds, the MiB metered and the cost under each throughput mode', () => {
  const r = cli('compare', probeJson('elastic'), probeJson('bursting'));
  expect(r.code).toBe(0);
  const lines = r.stdout.slice(r.stdout.indexOf('\n\nCost of')).trim().split('\n');
  expect(lines[0]).toBe('Cost of the timed operations, at us-east-1 list prices, Regional, checked 2026-11-24:');
  expect(lines[2]).toBe('| scenario | run | seconds | metered MiB read / written / metadata | Elastic | Provisioned | Bursting |');
  expect(lines.slice(4).map((l) => l.split('|').slice(1, 3).map((c) => c.trim()).join('/'))).toEqual([
    'write-sizes/elastic', 'write-sizes/bursting', 'metadata/elastic', 'metadata/bursting']);
  // 2 rounds of 2 files of 1 KiB (billed 32 KiB each) and 64 KiB: 0.375 MiB written, and 8 OPENs and 8 CLOSEs of 4 KiB;
  // Bursting spends credits and costs nothing.
  expect(lines[4]).toMatch(/^\| write-sizes \| elastic \| [\d.]+ \| 0\.0 \/ 0\.4 \/ 0\.1 \| \$0\.0000\d+ \| \$0\.\d+ at [\d.]+ MiB\/s \(\$[\d,.]+ a month\) \| \$0\.00, up to 0\.3 MiB of credits \|$/);
});

test('--list shows every scenario with what it reproduces and its parameters', () => {
  const r = cli('probe', '--list');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('write-sizes\n');
  expect(r.stdout).toContain('Reproduces "AWS EFS Elastic vs Burstable throughput (benchmark)" (Dzhuneyt, 2022): 10 files');
  expect(r.stdout).toContain('write-sizes.sizesBytes = [1024,1048576,104857600] (integer[] 1-1073741824): file sizes in bytes');
});

test('fails with exit code 2 and the reasons when the request is invalid', () => {
  const r = cli('probe', '--dir', work, '--scenarios', 'fio', '--set', 'fio.depth=3');
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("cdk-efs-kit probe: the request is invalid:\n  unknown scenario 'fio'; allowed: write-sizes,");
  expect(r.stdout).toBe('');
});

test('fails with exit code 2 when the run does not fit the byte budget', () => {
  const r = cli('probe', '--dir', work, '--scenarios', 'write-sizes', '--max-bytes', '1000');
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/the request is refused:\n  the run would move .* more than the byte budget/);
});

test('fails with a clear message when --dir is missing or a setting is malformed', () => {
  expect(cli('probe').stderr).toBe('cdk-efs-kit: --dir or --function is required: the directory to probe, or the deployed probe to invoke\n');
  const r = cli('probe', '--dir', work, '--set', 'write-sizes.files=ten');
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("'ten' is not a number, a size like 64KiB, or true/false");
});

test('compare fails clearly on a file that is not a probe result', () => {
  const bad = path.join(work, 'bad.json');
  fs.writeFileSync(bad, JSON.stringify({ status: 'refused', errors: ['x'] }));
  const r = cli('compare', bad, bad);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(`cdk-efs-kit: ${bad} is not a probe result (no scenarios); was the request refused? status: refused\n`);
});
