/**
 * `npm run demo`: what cdk-efs-kit does, run locally. Synthesizes the quick start and summarises
 * what a deploy would create, seeds a generated tree onto the EFS latency emulator, and probes it.
 * On a machine where efs-sim cannot run (and, as root, cannot be installed), it seeds onto a local
 * directory and says in one line what it left out and the command that brings it back.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { createApp } from '../examples/quickstart';
import { efsSimRemedy, prepareEfsSim } from './demo-efs-sim';
import { runProbeDemo } from './demo-probe';
import { runSeedDemo } from './demo-seed';

function summarizeQuickstart(): void {
  const app = createApp(new App());
  for (const stack of app.node.children.filter((c): c is Stack => Stack.isStack(c))) {
    const template = Template.fromStack(stack).toJSON();
    const resources = Object.values<any>(template.Resources);
    const counts = new Map<string, number>();
    for (const r of resources) counts.set(r.Type, (counts.get(r.Type) ?? 0) + 1);
    console.log(`\n== cdk deploy ${stack.stackName} would create ${resources.length} resources`);
    for (const [type, n] of [...counts].sort()) console.log(`  ${String(n).padStart(3)}  ${type}`);

    const fs = resources.find((r) => r.Type === 'AWS::EFS::FileSystem');
    const p = fs.Properties;
    console.log('\n  The file system:');
    console.log(`    throughput ${p.ThroughputMode}, ${p.PerformanceMode}, encrypted ${p.Encrypted}, backups ${p.BackupPolicy?.Status}, deletion policy ${fs.DeletionPolicy}`);
    console.log(`    lifecycle ${(p.LifecyclePolicies ?? []).map((l: object) => Object.entries(l)[0].join(' ')).join(', ')}`);
    console.log(`    policy: ${p.FileSystemPolicy.Statement.map((s: any) => `${s.Sid} (${s.Effect})`).join(', ')}`);
    for (const ap of resources.filter((r) => r.Type === 'AWS::EFS::AccessPoint')) {
      const a = ap.Properties;
      console.log(`    access point ${a.RootDirectory.Path} as ${a.PosixUser.Uid}:${a.PosixUser.Gid}, created with mode ${a.RootDirectory.CreationInfo.Permissions}`);
    }
    const mounts = new Map<string, number>();
    for (const fn of resources.filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.FileSystemConfigs)) {
      const mount = `at ${fn.Properties.FileSystemConfigs[0].LocalMountPath} with UV_THREADPOOL_SIZE=${fn.Properties.Environment.Variables.UV_THREADPOOL_SIZE}`;
      mounts.set(mount, (mounts.get(mount) ?? 0) + 1);
    }
    for (const [mount, n] of mounts) console.log(`    ${n === 1 ? 'a Lambda function mounts' : `${n} Lambda functions mount`} it ${mount}`);
    for (const td of resources.filter((r) => r.Type === 'AWS::ECS::TaskDefinition' && r.Properties.Volumes)) {
      const v = td.Properties.Volumes[0].EFSVolumeConfiguration;
      console.log(`    ECS tasks mount it with TransitEncryption ${v.TransitEncryption}, IAM ${v.AuthorizationConfig.IAM}`);
    }
  }
}

/** Whether efs-sim runs here; if not, one line says what the demo leaves out and the command that brings it back. */
function efsSimRuns(): boolean {
  const blocker = prepareEfsSim();
  if (blocker) {
    console.log(`\nefs-sim skipped (${blocker.reason}): the seed runs on a local directory, without EFS latency, and the probe is left out; to run both on emulated EFS, ${efsSimRemedy(blocker, 'demo')}`);
  }
  return blocker === undefined;
}

function main(): void {
  console.log('cdk-efs-kit demo');
  summarizeQuickstart();
  const efsSim = efsSimRuns();
  runSeedDemo(efsSim);
  if (efsSim) runProbeDemo();
}

try {
  main();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
}
