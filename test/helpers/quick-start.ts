import { execFileSync } from 'child_process';
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
 * Runs the README's TypeScript quick start as `cdk synth` would, in `dir` (which holds its `site/`),
 * against this checkout's lib/, with tsx; returns the cloud assembly directory it wrote.
 */
export function synthesizeQuickStart(dir: string): string {
  const app = readmeQuickStart('tsx').replace(/from 'cdk-efs-kit'/, `from ${JSON.stringify(path.join(root, 'lib'))}`);
  fs.writeFileSync(path.join(dir, 'app.ts'), `${app}\napp.synth();\n`);
  const outdir = path.join(dir, 'cdk.out');
  execFileSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['app.ts'], {
    cwd: dir, stdio: 'pipe',
    // CDK_OUTDIR is how the CLI tells an app where to write; NODE_PATH finds aws-cdk-lib from a directory outside the checkout.
    env: { ...process.env, CDK_OUTDIR: outdir, NODE_PATH: path.join(root, 'node_modules') },
  });
  return outdir;
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
