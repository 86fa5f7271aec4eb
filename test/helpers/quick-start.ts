import * as fs from 'fs';
import * as path from 'path';
import { Match, Template } from 'aws-cdk-lib/assertions';

const root = path.join(__dirname, '..', '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** The first ```<fence> block of a markdown section. */
function firstBlock(file: string, section: string | undefined, heading: string, fence: string): string {
  const block = section === undefined ? undefined : new RegExp('^```' + fence + '\\n([\\s\\S]*?)^```', 'm').exec(section);
  if (!block) throw new Error(`${file} has no \`\`\`${fence} block under "${heading}"`);
  return block[1];
}

/** The README's quick start in one language (TypeScript, Python): the first ```<fence> block under "## Quick start". */
export function readmeQuickStart(fence: string): string {
  return firstBlock('README.md', /^## Quick start\n([\s\S]*?)^## /m.exec(readme)?.[1], '## Quick start', fence);
}

/** The quick start in a language the README leaves to docs/quick-start.md: the first ```<fence> block under "## <language>". */
export function docsQuickStart(language: string, fence: string): string {
  const doc = fs.readFileSync(path.join(root, 'docs', 'quick-start.md'), 'utf8');
  const heading = `## ${language}`;
  return firstBlock('docs/quick-start.md', new RegExp(`^${heading}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm').exec(doc)?.[1], heading, fence);
}

/**
 * What the quick start promises, checked on a template synthesized in any language: the same
 * checks as test/python/test_quickstart.py's.
 */
export function expectQuickStartTemplate(template: Template): void {
  template.hasResourceProperties('AWS::EFS::FileSystem', { ThroughputMode: 'elastic', Encrypted: true });
  template.hasResourceProperties('AWS::EFS::FileSystem', {
    FileSystemPolicy: { Statement: Match.arrayWith([Match.objectLike({ Sid: 'DenyWithoutTls', Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
  });
  template.hasResourceProperties('AWS::EFS::AccessPoint', {
    PosixUser: { Uid: '1000', Gid: '1000' },
    RootDirectory: { Path: '/jobs', CreationInfo: { OwnerUid: '1000', OwnerGid: '1000', Permissions: '750' } },
  });
  template.hasResourceProperties('AWS::Lambda::Function', {
    FileSystemConfigs: [Match.objectLike({ LocalMountPath: '/mnt/jobs' })],
    Environment: { Variables: { UV_THREADPOOL_SIZE: '64' } },
  });
  template.hasResourceProperties('AWS::ECS::TaskDefinition', {
    Volumes: [Match.objectLike({ EFSVolumeConfiguration: Match.objectLike({ TransitEncryption: 'ENABLED', AuthorizationConfig: Match.objectLike({ IAM: 'ENABLED' }) }) })],
  });
  template.hasResourceProperties('AWS::ECS::Service', { DeploymentConfiguration: Match.objectLike({ MinimumHealthyPercent: 100, DeploymentCircuitBreaker: { Enable: true, Rollback: true } }) });
  template.resourceCountIs('Custom::CdkEfsKitSeed', 1);
  template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(15 minutes)' });
  const descriptions = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties.AlarmDescription ?? '');
  expect(descriptions.some((d) => d.startsWith('Permitted throughput used >= 90%'))).toBe(true);
  expect(descriptions.some((d) => d.startsWith('Fewer than 1 client connections'))).toBe(true);
  expect(descriptions.some((d) => d.startsWith('PercentIOLimit'))).toBe(false);
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    Threshold: 100,
    EvaluationPeriods: 15,
    Metrics: Match.arrayWith([Match.objectLike({ Expression: '(datawrite_bytes/1048576)/PERIOD(datawrite_bytes)' })]),
  });
}
