import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as ts from 'typescript';
import { AccessLevel, FileSystemKind, IMountableFileSystem, S3FilesFileSystem, SharedFileSystem } from '../../../lib';

// The acceptance of issue #42: the same code with SharedFileSystem swapped for S3FilesFileSystem
// compiles. jest transpiles without type checks, so this runs the TypeScript compiler on both.
const LIB = path.join(__dirname, '..', '..', '..', 'lib');
const app = (cls: string) => `
import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessLevel, AccessPointPreset, IMountableFileSystem, SeedEngine, SeedSource, ${cls} } from ${JSON.stringify(LIB)};

const stack = new Stack(new App(), 'S');
const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2 });
const files = new ${cls}(stack, 'Files', { vpc });
const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
const fn = new lambda.Function(stack, 'Fn', {
  runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('x'), vpc,
});
files.mountOnLambda(fn, web, { mountPath: '/mnt/web', readOnly: true });
const task = new ecs.FargateTaskDefinition(stack, 'Task');
task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/nginx/nginx:stable') });
files.mountOnEcsTask(task, web, { containerPath: '/data' });
files.grantAccess(task.taskRole, AccessLevel.READ_ONLY, web);
// Each kind declares its own seed options; these compile with both (at synth, S3 Files takes an
// access point only with through: SeedThrough.MOUNT, and says so).
files.addSeed('Datasets', { accessPoint: web, source: SeedSource.s3(new s3.Bucket(stack, 'Sources'), 'datasets/'), engine: SeedEngine.dataSync() });
files.addProbe('Probe');
const helpers: IMountableFileSystem = files;
helpers.grantClientAccess(fn, AccessLevel.READ_ONLY);
export const names = [helpers.fileSystemDnsName, helpers.mountTargetDnsName('zone')];
`;

test('the same app compiles with SharedFileSystem and with S3FilesFileSystem', () => {
  const sources: Record<string, string> = {
    [path.join(__dirname, '__efs__.ts')]: app('SharedFileSystem'),
    [path.join(__dirname, '__s3files__.ts')]: app('S3FilesFileSystem'),
  };
  const options: ts.CompilerOptions = { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, esModuleInterop: true, types: ['node'] };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (file) => sources[file] ?? read(file);
  const exists = host.fileExists.bind(host);
  host.fileExists = (file) => file in sources || exists(file);
  const program = ts.createProgram(Object.keys(sources), options, host);
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  expect(diagnostics).toEqual([]);
});

test('a helper written against IMountableFileSystem grants each kind its own client actions', () => {
  const stack = new Stack(new App(), 'S');
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2 });
  const grantReaders = (files: IMountableFileSystem, id: string) => {
    const role = new iam.Role(stack, id, { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') });
    files.grantClientAccess(role, AccessLevel.READ_ONLY);
    return files.fileSystemKind;
  };
  expect(grantReaders(new SharedFileSystem(stack, 'Efs', { vpc }), 'EfsReader')).toBe(FileSystemKind.EFS);
  expect(grantReaders(new S3FilesFileSystem(stack, 'S3Files', { vpc }), 'S3FilesReader')).toBe(FileSystemKind.S3_FILES);
  const actions = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'))
    .flatMap((p: any) => p.Properties.PolicyDocument.Statement.map((s: any) => s.Action));
  expect(actions).toEqual(expect.arrayContaining(['elasticfilesystem:ClientMount', 's3files:ClientMount']));
});
