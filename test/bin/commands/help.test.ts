import { spawnSync } from 'child_process';
import * as path from 'path';

// Each command's --help as users read it: the built CLI in its own process.
const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
const help = (command: string) => spawnSync(process.execPath, [CLI, command, '--help'], { encoding: 'utf8', env: { ...process.env, COLUMNS: '100' } }).stdout;

/** Each option's entry: its flags line and the lines its description wraps onto. */
function optionEntries(text: string): string[] {
  const options = text.slice(text.indexOf('Options:\n') + 9).split('\n\n')[0];
  return options.split(/\n(?= {2}-)/).map((entry) => entry.replace(/\s+/g, ' ').trim());
}

describe.each(['seed', 'probe', 'compare', 'advise', 'doctor'])('cdk-efs-kit %s --help', (command) => {
  const entries = optionEntries(help(command));

  test('writes defaults as a person does: no JSON quotes, no {} or [], no "false" for a switch', () => {
    expect(entries.length).toBeGreaterThan(2);
    expect(entries.filter((e) => /\(default: ("|\{|\[|false\))/.test(e))).toEqual([]);
  });

  test('gives an option\'s default once, as "(default: ...)"', () => {
    expect(entries.filter((e) => (e.match(/default/g) ?? []).length > 1)).toEqual([]);
    expect(entries.filter((e) => /\(default [^:]/.test(e))).toEqual([]);
  });

  test('writes units as GiB, MiB and KiB', () => {
    expect(entries.filter((e) => /\d ?(KIB|MIB|GIB|TIB)\b/.test(e))).toEqual([]);
  });
});

test('the defaults people read: advise\'s days, cold, hot and cache-hit shares, seed\'s archive limits and workers', () => {
  expect(optionEntries(help('advise'))).toEqual(expect.arrayContaining([
    expect.stringMatching(/^--days <n> .*\(default: 14\)$/),
    expect.stringMatching(/^--cold-percent <n> .*\(default: 80\)$/),
    expect.stringMatching(/^--hot-percent <n> .*\(default: 20\)$/),
    expect.stringMatching(/^--cache-hit-percent <n> .*\(default: 100\)$/),
  ]));
  expect(optionEntries(help('seed'))).toEqual(expect.arrayContaining([
    expect.stringMatching(/^--max-member-size <size> .*\(default: \d+ GiB\)$/),
    expect.stringMatching(/^--max-entries <n> .*\(default: 1,000,000\)$/),
    expect.stringMatching(/^--workers <n> .*\(default: one per vCPU beyond the first, none below 3 vCPUs: \d+ here\)$/),
    '--prune delete files an earlier seed wrote that the source no longer has',
  ]));
  expect(optionEntries(help('doctor'))).toContainEqual(expect.stringMatching(/^--dns-server <ip\[:port\]> .*\(repeatable\)$/));
});

test.each([
  [['probe', '--bogus'], "error: unknown option '--bogus'"],
  [['seed', 'only-a-source'], "error: missing required argument 'target'"],
  [['probe', '--dir', '/tmp', 'extra'], "error: too many arguments for 'probe'. Expected 0 arguments but got 1."],
])('bad usage (%j) is bad input: exit 2, the error and a pointer to --help, no wall of help', (args, error) => {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  expect(run.status).toBe(2);
  expect(run.stderr.trim().split('\n')).toEqual([error, '(run with --help for the options)']);
});

test('--help and --version still exit 0', () => {
  expect(spawnSync(process.execPath, [CLI, 'seed', '--help']).status).toBe(0);
  expect(spawnSync(process.execPath, [CLI, '--version']).status).toBe(0);
});
