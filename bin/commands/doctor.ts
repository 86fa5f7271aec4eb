import * as fs from 'fs';
import * as net from 'net';
import { Command, Option } from 'commander';
import { ACCESS_POINT_ID, FILE_SYSTEM_ID, REGION } from '../../lib/file-system/contract/efs-names';
import { AVAILABILITY_ZONE_ID } from '../../lib/s3-files/contract/s3-files-names';
import { MOUNTINFO } from '../../lambda/shared/mount-checks/mountinfo';
import { processIdentity } from '../../lambda/shared/mount-checks/posix-identity';
import { jsonOption, markdownOption, OutputOptions } from '../output-options';
import { outputLayout } from '../report/text-layout';

/** `cdk-efs-kit doctor fs-…`: why a mount fails, or proof that it works, one check per line. */
export function register(program: Command): void {
  program.command('doctor')
    .description('check, on a client, each step an EFS or S3 Files mount needs (DNS, TCP 2049, the mount and its options, TLS, amazon-efs-utils, the file system policy for this identity, the access point\'s user, a write/read round trip) and say what to fix; exit 0 when nothing failed, 1 when something did')
    .argument('<file-system-id>', 'the file system, e.g. fs-0123456789abcdef0')
    .addOption(new Option('--kind <kind>', 'what the file system is: efs, or s3files (Amazon S3 Files: its names, mount.s3files, s3files:ClientMount)').choices(['efs', 's3files']).default('efs'))
    .option('--az-id <id>', 'S3 Files: a zone (ID, e.g. use1-az1) whose mount target name <az-id>.fs-….s3files.<region>.on.aws to check (repeatable)', collect, [])
    .option('--access-point <id>', 'the access point the client mounts through, e.g. fsap-0123456789abcdef0')
    .option('--mount-point <dir>', 'the directory to check (default: the file system\'s mount, if this machine has one)')
    .option('--region <region>', 'the file system\'s Region (default: AWS_REGION, or the profile\'s)')
    .option('--profile <name>', 'named profile of the AWS config files (default: AWS_PROFILE)')
    .option('--endpoint <url>', 'endpoint for every AWS call, e.g. a local test server')
    .option('--dns-server <ip[:port]>', 'ask this DNS server instead of the system\'s, e.g. the VPC resolver 169.254.169.253 (repeatable)', collect, [])
    .option('--no-aws', 'run only the checks that need no AWS credentials, nor a Region (without one, the file system\'s DNS name goes unchecked)')
    .addOption(jsonOption('the checks'))
    .addOption(markdownOption())
    .addHelpText('after', `
Checks that need AWS credentials (the mount targets, the file system policy, the access point)
are skipped, and say so, when there are none.

Examples:
  $ cdk-efs-kit doctor fs-0123456789abcdef0 --region eu-west-1
  $ cdk-efs-kit doctor fs-0123456789abcdef0 --access-point fsap-0123456789abcdef0 --mount-point /mnt/efs
  $ cdk-efs-kit doctor fs-0123456789abcdef0 --no-aws --json
  $ cdk-efs-kit doctor fs-0123456789abcdef01 --kind s3files --az-id use1-az1 --region us-east-1`)
    .action(async (fileSystemId: string, opts: DoctorCliOptions) => {
      const region = await checkInput(fileSystemId, opts);
      // Loaded here, not at start: every `cdk-efs-kit` command would pay for them.
      const { runDoctor } = await import('../doctor/run-doctor');
      const aws = await awsFacts(fileSystemId, region, opts);
      const kind = opts.kind === 's3files' ? 'S3_FILES' : 'EFS';
      const report = await runDoctor({ fileSystemId, region, accessPointId: opts.accessPoint, mountPoint: opts.mountPoint, kind, availabilityZoneIds: opts.azId }, {
        aws,
        dnsServers: opts.dnsServer.length ? opts.dnsServer : undefined,
        mountinfo: () => fs.readFileSync(MOUNTINFO, 'utf8'),
        identity: processIdentity(),
      });
      console.log(opts.json ? JSON.stringify(report, null, 2) : (await import('../doctor/render')).renderDoctorReport(report, outputLayout(opts)));
      process.exitCode = report.counts.fail > 0 ? 1 : 0;
    });
}

interface DoctorCliOptions extends OutputOptions {
  kind: 'efs' | 's3files';
  azId: string[];
  accessPoint?: string;
  mountPoint?: string;
  region?: string;
  profile?: string;
  endpoint?: string;
  dnsServer: string[];
  aws: boolean;
}

function collect(value: string, into: string[]): string[] {
  return [...into, value];
}

/** Every option checked before anything runs: a bad one ends the command with one line naming it. Returns the Region, if any. */
async function checkInput(fileSystemId: string, opts: DoctorCliOptions): Promise<string | undefined> {
  if (!FILE_SYSTEM_ID.test(fileSystemId)) throw new Error(`'${fileSystemId}' is not a file system id: expected fs- and 8 to 40 hex digits, e.g. fs-0123456789abcdef0`);
  if (opts.accessPoint !== undefined && !ACCESS_POINT_ID.test(opts.accessPoint)) {
    throw new Error(`--access-point '${opts.accessPoint}' is not an access point id: expected fsap- and 8 to 40 hex digits`);
  }
  if (opts.azId.length && opts.kind !== 's3files') throw new Error('--az-id applies to S3 Files (--kind s3files); an EFS file system\'s zones come from DescribeMountTargets');
  for (const zoneId of opts.azId) {
    if (!AVAILABILITY_ZONE_ID.test(zoneId)) throw new Error(`--az-id '${zoneId}' is not an Availability Zone ID such as use1-az1 (the ID, not the name us-east-1a)`);
  }
  if (opts.mountPoint !== undefined && !fs.statSync(opts.mountPoint, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`--mount-point ${opts.mountPoint} is not a directory`);
  }
  for (const server of opts.dnsServer) {
    const match = /^\[([^\]]+)\](?::(\d+))?$|^([^:]+)(?::(\d+))?$|^([0-9a-fA-F:]+)$/.exec(server);
    const address = match?.[1] ?? match?.[3] ?? match?.[5];
    const port = Number(match?.[2] ?? match?.[4] ?? 53);
    if (!address || net.isIP(address) === 0 || port < 1 || port > 65535) throw new Error(`--dns-server '${server}' is not an IP address with an optional port (10.0.0.2, 10.0.0.2:53, [fd00::2]:53)`);
  }
  if (opts.endpoint !== undefined && !/^https?:\/\/[^/\s]+/.test(opts.endpoint)) throw new Error(`--endpoint must be an http or https URL; got '${opts.endpoint}'`);
  const region = opts.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION
    ?? (opts.aws ? await (await import('../doctor/aws-facts')).defaultRegion(opts.profile) : undefined);
  // Without AWS, the Region only names the file system's DNS name: that check says it was skipped.
  if (!region && opts.aws) throw new Error('no AWS Region: give --region (the file system\'s DNS names contain it), set AWS_REGION, or check without AWS (--no-aws)');
  if (region !== undefined && !REGION.test(region)) throw new Error(`--region '${region}' is not a Region name such as us-east-1`);
  return region;
}

async function awsFacts(fileSystemId: string, region: string | undefined, opts: DoctorCliOptions) {
  if (!opts.aws || region === undefined) return { skipped: 'as --no-aws asks' };
  const { missingCredentials, readAwsFacts, readS3FilesAwsFacts } = await import('../doctor/aws-facts');
  const target = { region, profile: opts.profile, endpoint: opts.endpoint };
  const missing = await missingCredentials(target);
  if (missing) return { skipped: missing };
  return opts.kind === 's3files' ? readS3FilesAwsFacts(target) : readAwsFacts(fileSystemId, opts.accessPoint, target);
}
