import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// `cdk-efs-kit probe` and `compare` as users run them: the built CLI in its own process.
const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
let work: string;
beforeEach(() => { work = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-cli-')); });
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

/** The CLI with standard output to a pipe (reports fit 100 columns), or to the width COLUMNS says. */
function cli(...args: string[]) {
  return cliWith({}, ...args);
}

function cliWith(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, COLUMNS: '', ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const PROBE = ['--scenarios', 'write-sizes,metadata', '--set', 'write-sizes.files=2', '--set', 'write-sizes.sizesBytes=1KiB,64KiB',
  '--set', 'metadata.files=10', '--rounds', '2', '--pause', '0'];

/** A probe run's result, as `probe --json > <label>.json` keeps it. */
function probeJson(label: string): string {
  const dir = path.join(work, label);
  fs.mkdirSync(dir);
  const out = path.join(work, `${label}.json`);
  const r = cli('probe', '--dir', dir, ...PROBE, '--label', label, '--json');
  expect(r.stderr).not.toMatch(/error/i);
  expect(r.code).toBe(0);
  fs.writeFileSync(out, r.stdout);
  return out;
}

const widest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));

test('probe --json prints the result as JSON; scratch files are gone', () => {
  const dir = path.join(work, 'mnt');
  fs.mkdirSync(dir);
  const r = cli('probe', '--dir', dir, '--scenarios', 'write-sizes', '--set', 'write-sizes.files=2', '--set', 'write-sizes.sizesBytes=4KiB', '--json');
  expect(r.code).toBe(0);
  const result = JSON.parse(r.stdout);
  expect(result).toMatchObject({ status: 'ok', tool: 'cdk-efs-kit probe (CLI)', target: dir });
  expect(result.mountChecks.map((c: { id: string; status: string }) => `${c.status} ${c.id}`)).toEqual(['warn mount', 'skip mount-options', 'skip posix-identity']);
  expect(result.scenarios[0].params).toEqual({ files: 2, sizesBytes: [4096] });
  expect(fs.readdirSync(dir)).toEqual([]);
});

test('probe --markdown prints the mount checks and a table per scenario with its cost, a line each', () => {
  const dir = path.join(work, 'mnt');
  fs.mkdirSync(dir);
  const r = cli('probe', '--dir', dir, '--scenarios', 'write-sizes', '--set', 'write-sizes.files=2', '--set', 'write-sizes.sizesBytes=4KiB', '--markdown');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('## write-sizes');
  expect(r.stdout).toContain('| operation | count | p50 ms | p90 ms | p99 ms | max ms | throughput | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|\n');
  expect(r.stdout).toMatch(/\| write-4KiB-file \| 2 \| [\d.]+ \| /);
  // 2 files of 4 KiB: 2 x 32 KiB written (the billed minimum), 2 OPENs and 2 CLOSEs of 4 KiB:
  // (8 KiB x $0.03 + 72 KiB x $0.06) / 2^20 KiB = $0.0000043 on Elastic; on S3 Files the 64 KiB written
  // are exported too, as a read: + 64 KiB x $0.03 / 2^20 KiB = $0.0000062.
  expect(r.stdout).toMatch(/^- cost at us-east-1 list prices, Regional, checked 2026-11-24 and us-east-1 S3 Files list prices, checked 2026-11-28: seconds [\d.]+; metered MiB read \/ written \/ metadata 0\.0 \/ 0\.1 \/ 0\.0; Elastic \$0\.0000043 \(\$[\d,.]+ a month\); Provisioned \$[\d.]+ at [\d.]+ MiB\/s \(\$[\d,.]+ a month\); Bursting \$0\.00, up to 0\.0 MiB of credits; S3 Files \$0\.0000062 \(\$[\d,.]+ a month\)$/m);
  // The mount checks before the tables (a temporary directory: not an NFS mount), a row each.
  expect(r.stdout).toMatch(new RegExp(`^## mount of ${dir}\n\n\\| status \\| check \\| found \\| fix \\|\n\\|---\\|---\\|---\\|---\\|\n\\| WARN \\| mount \\| ${dir} \\(in the mount at /\\S*\\) is not an NFS mount \\(it is \\S+, \\S+\\): these figures are not EFS's \\| probe a directory on an EFS mount`, 'm'));
  expect(r.stdout).toContain(`\n| skip | mount-options | mount options: skipped, ${dir} is not on an NFS mount |  |\n`);
});

describe('probe prints for the terminal', () => {
  let dir: string;
  beforeEach(() => {
    dir = path.join(work, 'mnt');
    fs.mkdirSync(dir);
  });

  test.each([['a pipe', {}, 100], ['COLUMNS=80', { COLUMNS: '80' }, 80]])('to %s: padded tables, and every line fits %#', (_to, env, width) => {
    const r = cliWith(env as Record<string, string>, 'probe', '--dir', dir, ...PROBE);
    expect(r.code).toBe(0);
    expect(widest(r.stdout)).toBeLessThanOrEqual(width as number);
    expect(r.stdout).toMatch(/^== write-sizes\n/m);
    expect(r.stdout).toMatch(/^operation +count +p50 ms +p90 ms +p99 ms +max ms +throughput +errors\n-+ +-+ /m);
    // The operation's name may wrap after a hyphen, the p50's spread under it; the figures stay whole.
    expect(r.stdout).toMatch(/^write-(1KiB-(file)?)? +4 +[\d.]+( \([\d.]+-[\d.]+\))? +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ MB\/s +0$/m);
    expect(r.stdout).toMatch(/^WARN  mount {11}\S/m);
  });

  test('its progress, one line per scenario round, ends on the final count', () => {
    const r = cli('probe', '--dir', dir, ...PROBE);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'probe: round 1/2 write-sizes (0/4 done)', 'probe: round 1/2 metadata (1/4 done)',
      'probe: round 2/2 write-sizes (2/4 done)', 'probe: round 2/2 metadata (3/4 done)', 'probe: 4/4 done',
    ]);
  });
});

describe('compare', () => {
  let a: string;
  let b: string;
  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-cli-'));
    [a, b] = [probeJson('elastic'), probeJson('bursting')];
    fs.renameSync(a, a = path.join(os.tmpdir(), `compare-${process.pid}-elastic.json`));
    fs.renameSync(b, b = path.join(os.tmpdir(), `compare-${process.pid}-bursting.json`));
  });
  afterAll(() => [a, b].forEach((f) => fs.rmSync(f, { force: true })));

  test('says which way the difference is taken, then p50, p99 and throughput of every operation a row each, b vs a', () => {
    const html = path.join(work, 'report.html');
    const r = cli('compare', a, b, '--html', html);
    expect(r.code).toBe(0);
    const lines = r.stdout.slice(0, r.stdout.indexOf('\n\nCost of')).split('\n');
    expect(lines.slice(0, 2).join(' ')).toBe('bursting vs elastic: (bursting - elastic) / elastic, so + means bursting\'s figure is higher (slower for p50 and p99, faster for throughput).');
    expect(lines[3]).toMatch(/^scenario +operation +measure +elastic +bursting +bursting vs elastic$/);
    const rows = lines.slice(5);
    expect(rows.filter((l) => /^\S/.test(l)).map((l) => l.split(/ +/).slice(0, 2).join('/'))).toEqual(['write-sizes/write-1KiB-file', 'metadata/create']);
    expect(rows.map((l) => l.trim().split(/ +/)[l.startsWith(' ') ? (/^ {13}\S/.test(l) ? 1 : 0) : 2])).toEqual(
      Array.from({ length: 8 }, () => ['p50', 'p99', 'throughput']).flat());
    // The difference is (b - a) / a: + where bursting's figure is the higher (--json checks the figure itself).
    for (const row of rows) {
      const [fa, fb, diff] = /([\d.]+) \S+ +([\d.]+) \S+ +([+-]?[\d.]+)%$/.exec(row)!.slice(1).map(Number);
      // Rounding keeps order: figures shown apart were apart.
      if (fb !== fa) expect(Math.sign(diff)).toBe(Math.sign(fb - fa));
    }
    expect(widest(r.stdout)).toBeLessThanOrEqual(100);
    expect(fs.readFileSync(html, 'utf8')).toContain('EFS probe report: elastic vs bursting');
  });

  test('fits 80 columns where COLUMNS says so', () => {
    const r = cliWith({ COLUMNS: '80' }, 'compare', a, b);
    expect(r.code).toBe(0);
    expect(widest(r.stdout)).toBeLessThanOrEqual(80);
    expect(r.stdout).toMatch(/^scenario +operation +measure +elastic +bursting +bursting( vs( elastic)?)?$/m);
  });

  test('--markdown prints the same as Markdown tables, a line per row', () => {
    const r = cli('compare', a, b, '--markdown');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^bursting vs elastic: \(bursting - elastic\) \/ elastic, so \+ means bursting's figure is higher \(slower for p50 and p99, faster for throughput\)\.$/);
    expect(lines[2]).toBe('| scenario | operation | measure | elastic | bursting | bursting vs elastic |');
    expect(lines[4]).toMatch(/^\| write-sizes \| write-1KiB-file \| p50 \| [\d.]+ ms \| [\d.]+ ms \| [+-][\d.]+% \|$/);
    expect(lines[5]).toMatch(/^\|  \|  \| p99 \| /);
  });

  test('--json prints each figure of both runs with the difference, and which way it is taken', () => {
    const r = cli('compare', a, b, '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ a: 'elastic', b: 'bursting', difference: expect.stringMatching(/^bursting vs elastic: \(bursting - elastic\) \/ elastic/) });
    expect(out.figures[0]).toMatchObject({ scenario: 'write-sizes', operation: 'write-1KiB-file', measure: 'p50', unit: 'ms' });
    const f = out.figures[2];
    expect(f).toMatchObject({ measure: 'throughput', unit: 'MB/s' });
    expect(f.differencePercent).toBeCloseTo(((f.b - f.a) / f.a) * 100, 6);
  });

  test('--json and --markdown together fail: one format at a time', () => {
    const r = cli('compare', a, b, '--json', '--markdown');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("error: option '--json' cannot be used with option '--markdown'");
  });

  test('then prints, per scenario and run, the seconds, the MiB metered and the cost under each throughput mode', () => {
    const r = cli('compare', a, b, '--markdown');
    expect(r.code).toBe(0);
    const lines = r.stdout.slice(r.stdout.indexOf('\n\nCost of')).trim().split('\n');
    expect(lines[0]).toBe('Cost of the timed operations, at us-east-1 list prices, Regional, checked 2026-11-24 and us-east-1 S3 Files list prices, checked 2026-11-28; '
      + 'a month is the measured rate kept up for 730 hours. S3 Files is priced as if every read came from its high-performance storage (large reads of synchronized '
      + 'data, 1 MiB or more by the S3 User Guide\'s metering page, 128 KiB by its performance page, stream from the bucket at S3 GET prices instead), '
      + 'with the export of each written byte to the bucket as a read:');
    expect(lines[2]).toBe('| scenario | run | seconds | metered MiB read / written / metadata | Elastic | Provisioned | Bursting | S3 Files |');
    expect(lines.slice(4).map((l) => l.split('|').slice(1, 3).map((c) => c.trim()).join('/'))).toEqual([
      'write-sizes/elastic (EFS)', 'write-sizes/bursting (EFS)', 'metadata/elastic (EFS)', 'metadata/bursting (EFS)']);
    // 2 rounds of 2 files of 1 KiB (billed 32 KiB each) and 64 KiB: 0.375 MiB written, and 8 OPENs and 8 CLOSEs of 4 KiB;
    // Bursting spends credits and costs nothing; S3 Files meters the same bytes, at its prices.
    expect(lines[4]).toMatch(/^\| write-sizes \| elastic \(EFS\) \| [\d.]+ \| 0\.0 \/ 0\.4 \/ 0\.1 \| \$0\.0000\d+ \(\$[\d,.]+ a month\) \| \$0\.\d+ at [\d.]+ MiB\/s \(\$[\d,.]+ a month\) \| \$0\.00, up to 0\.3 MiB of credits \| \$0\.0000\d+ \(\$[\d,.]+ a month\) \|$/);
  });

  test('runs with the same label are told apart by their files\' names', () => {
    const same = [a, b].map((file, i) => {
      const copy = path.join(work, `run${i + 1}.json`);
      fs.writeFileSync(copy, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), label: 'probe' }));
      return copy;
    });
    expect(cli('compare', ...same).stdout).toMatch(/^run2 vs run1: \(run2 - run1\) \/ run1/);
  });
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

test('S3 Files\' scenarios need --bucket, which goes with --dir; a bad bucket URL is one line', () => {
  const r = cli('probe', '--dir', work, '--scenarios', 'import');
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("scenario 'import' measures S3 Files through its bucket, and this probe has none: give --bucket s3://<bucket>/<prefix>");
  expect(cli('probe', '--function', 'probe', '--bucket', 's3://b/').stderr).toBe('cdk-efs-kit: --bucket applies to --dir only: a deployed probe on S3 Files has its bucket already\n');
  expect(cli('probe', '--dir', work, '--s3-endpoint', 'http://127.0.0.1:9').stderr).toBe('cdk-efs-kit: --s3-endpoint applies to --bucket only\n');
  expect(cli('probe', '--dir', work, '--bucket', 'bucket/prefix').stderr).toBe("cdk-efs-kit: the bucket must be given as s3://<bucket>/<prefix the directory is>, got 'bucket/prefix'\n");
  expect(cli('probe', '--list').stdout).toMatch(/\nexport-lag\n[^\n]*Needs the bucket \(--bucket\)/);
});

test('compare fails clearly on a file that is not a probe result', () => {
  const bad = path.join(work, 'bad.json');
  fs.writeFileSync(bad, JSON.stringify({ status: 'refused', errors: ['x'] }));
  const r = cli('compare', bad, bad);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(`cdk-efs-kit: ${bad} is not a probe result (no scenarios); was the request refused? status: refused\n`);
});
