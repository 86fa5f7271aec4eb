import * as fs from 'fs';
import * as path from 'path';
import { toSnakeCase } from 'codemaker/lib/case-utils';
import { propName, snakeCaseOf } from '../../../../lib/core/contract/prop-name';

test('names a prop in both spellings where Python\'s differs', () => {
  expect(propName('accessPoint')).toBe('accessPoint (access_point)');
  expect(propName('archiveLimits.maxMemberSize')).toBe('archiveLimits.maxMemberSize (archive_limits.max_member_size)');
  expect(propName('vpc')).toBe('vpc');
  expect(propName('alarms.percentIOLimit')).toBe('alarms.percentIOLimit (alarms.percent_io_limit)');
});

test('spells every prop and parameter of the public API as the Python binding does', () => {
  const assembly = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', '.jsii'), 'utf8'));
  const names = new Set<string>(['throughputMiBps', 'maxKiB', 'sizeGiBMonth', 'ipv6AllowedForDualStack']);
  for (const type of Object.values<{ properties?: { name: string }[]; methods?: { parameters?: { name: string }[] }[] }>(assembly.types)) {
    for (const p of type.properties ?? []) names.add(p.name);
    for (const m of type.methods ?? []) for (const p of m.parameters ?? []) names.add(p.name);
  }
  expect(names.size).toBeGreaterThan(100);
  const differing = [...names].filter((name) => snakeCaseOf(name) !== toSnakeCase(name));
  expect(differing).toEqual([]);
});

test('names the first prop of a longer name, once', () => {
  expect(propName('the function\'s vpcSubnets')).toBe('the function\'s vpcSubnets (vpc_subnets)');
  expect(propName('timeLimit (seconds)')).toBe('timeLimit (time_limit) (seconds)');
  expect(propName(propName('alarms.replicationLag'))).toBe('alarms.replicationLag (alarms.replication_lag)');
});
