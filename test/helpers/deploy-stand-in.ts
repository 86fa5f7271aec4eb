import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { Moto } from './moto';
import { loopbackAddress } from './nfs-listener';
import { CfnResponse, ProviderFramework } from './provider-framework';

/**
 * A synthesized stack deployed as far as its custom resources need, on this machine: what
 * CloudFormation and the CDK CLI would do between `cdk synth` and the handlers, done here so that
 * the properties a construct writes reach the handler that reads them, unchanged.
 *
 * - The stack's file assets (cdk.out's staged files; a directory zipped, as the CLI does) and its
 *   buckets are created in moto's S3 on 127.0.0.1, under the names the template gives them.
 * - Ref, Fn::GetAtt, Fn::Sub, Fn::Join, Fn::Select and Fn::GetAZs resolve as a deploy to account
 *   123456789012 in us-east-1 would: a bucket to its name, a file system, access point or mount target
 *   to an id of its type (S3 Files' too, their AvailabilityZoneId derived from the subnet's zone),
 *   a mount target's IpAddress to a loopback address of its own, where a test
 *   can listen (test/helpers/nfs-listener.ts). Anything else is an error naming it, so that a
 *   property nobody resolves fails here rather than reaching a handler as an object.
 * - A custom resource is sent through aws-cdk-lib's own Provider framework code
 *   (test/helpers/provider-framework.ts) to the handler its framework function names
 *   (USER_ON_EVENT_FUNCTION_ARN, USER_IS_COMPLETE_FUNCTION_ARN), loaded from that function's code as
 *   staged in cdk.out (the bundle `npm run build` writes to dist/handlers), with the function's
 *   environment and a mount standing in for its FileSystemConfigs.
 */

const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';
const AZS = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const PSEUDO: Record<string, string> = {
  'AWS::AccountId': ACCOUNT, 'AWS::Region': REGION, 'AWS::Partition': 'aws', 'AWS::URLSuffix': 'amazonaws.com', 'AWS::NoValue': '',
};

interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, any>;
}

/** One stack of a cloud assembly directory (cdk.out), as `cdk synth` wrote it. */
export interface SynthesizedStack {
  readonly assemblyDir: string;
  readonly stackName: string;
  readonly template: { Resources: Record<string, Resource> };
}

/** Every stack `cdk synth` wrote into `assemblyDir`. */
export function stacksIn(assemblyDir: string): SynthesizedStack[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(assemblyDir, 'manifest.json'), 'utf8'));
  return Object.entries<any>(manifest.artifacts).filter(([, a]) => a.type === 'aws:cloudformation:stack').map(([id, a]) => ({
    assemblyDir,
    stackName: a.properties?.stackName ?? id,
    template: JSON.parse(fs.readFileSync(path.join(assemblyDir, a.properties.templateFile), 'utf8')),
  }));
}

/** How a mount point of a function is stood in for: the function's mount path -> the directory a test reads. */
export type MountStandIn = (fileSystemId: string, accessPointId: string, localMountPath: string) => string;

export class DeployStandIn {
  private readonly resources: Record<string, Resource>;
  private readonly mountTargetAddresses = new Map<string, string>();

  constructor(readonly stack: SynthesizedStack, private readonly moto: Moto) {
    this.resources = stack.template.Resources;
  }

  /** The logical ids of the stack's resources of `type`. */
  logicalIdsOf(type: string): string[] {
    return Object.entries(this.resources).filter(([, r]) => r.Type === type).map(([id]) => id);
  }

  resource(logicalId: string): Resource {
    const resource = this.resources[logicalId];
    if (!resource) throw new Error(`${this.stack.stackName} has no resource ${logicalId}`);
    return resource;
  }

  /**
   * Creates the stack's buckets and uploads the file assets its custom resources name to moto, as
   * `cdk deploy` would (Lambda code is not uploaded: the functions run from cdk.out).
   */
  async publish(): Promise<void> {
    const s3 = new S3Client(this.moto.clientConfig);
    const created = new Set<string>();
    const bucket = async (name: string) => {
      if (created.has(name)) return;
      created.add(name);
      await s3.send(new CreateBucketCommand({ Bucket: name })).catch((e) => {
        if (e.name !== 'BucketAlreadyOwnedByYou') throw e;
      });
    };
    for (const id of this.logicalIdsOf('AWS::S3::Bucket')) await bucket(this.resolve({ Ref: id }));
    const manifestFile = path.join(this.stack.assemblyDir, `${this.stack.stackName}.assets.json`);
    const files = fs.existsSync(manifestFile) ? JSON.parse(fs.readFileSync(manifestFile, 'utf8')).files ?? {} : {};
    const named = JSON.stringify(Object.values(this.resources).filter((r) => r.Type.startsWith('Custom::')).map((r) => r.Properties));
    for (const asset of Object.values<any>(files)) {
      if (!Object.values<any>(asset.destinations).some((d) => named.includes(JSON.stringify(d.objectKey)))) continue;
      const source = path.join(this.stack.assemblyDir, asset.source.path);
      for (const destination of Object.values<any>(asset.destinations)) {
        const name = substitute(destination.bucketName);
        await bucket(name);
        await s3.send(new PutObjectCommand({ Bucket: name, Key: destination.objectKey, Body: assetBody(source, asset.source.packaging) }));
      }
    }
  }

  /** A template value as CloudFormation hands it to a resource. */
  resolve(value: any): any {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    const fn = keys.length === 1 ? keys[0] : '';
    const arg = value[fn];
    switch (fn) {
      case 'Ref': return PSEUDO[arg] ?? this.physical(arg);
      case 'Fn::GetAtt': return this.physical(arg[0], arg[1]);
      case 'Fn::Join': return this.resolve(arg[1]).join(arg[0]);
      case 'Fn::Select': return this.resolve(arg[1])[Number(arg[0])];
      case 'Fn::GetAZs': return AZS;
      case 'Fn::Sub': {
        const [text, variables = {}] = typeof arg === 'string' ? [arg] : arg;
        return substitute(text, (name) => {
          if (name in variables) return this.resolve(variables[name]);
          const [id, attribute] = name.split('.');
          return attribute ? this.physical(id, attribute) : this.resolve({ Ref: id });
        });
      }
      default:
        if (fn.startsWith('Fn::')) throw new Error(`the stand-in deploy cannot resolve ${JSON.stringify(value)}`);
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v)]));
    }
  }

  /** The id or attribute a deploy would give resource `logicalId`. */
  private physical(logicalId: string, attribute?: string): string {
    const { Type: type, Properties: props = {} } = this.resource(logicalId);
    const hex = createHash('sha256').update(`${this.stack.stackName}/${logicalId}`).digest('hex').slice(0, 17);
    const what = `${attribute ?? 'Ref'} of ${logicalId} (${type})`;
    switch (`${type}.${attribute ?? 'Ref'}`) {
      case 'AWS::S3::Bucket.Ref': return props.BucketName ? this.resolve(props.BucketName) : `${this.stack.stackName}-${logicalId}`.toLowerCase().slice(0, 50) + `-${hex.slice(0, 12)}`;
      case 'AWS::S3::Bucket.Arn': return `arn:aws:s3:::${this.physical(logicalId)}`;
      case 'AWS::EFS::FileSystem.Ref': return `fs-${hex}`;
      case 'AWS::EFS::AccessPoint.Ref': return `fsap-${hex}`;
      case 'AWS::EFS::MountTarget.Ref': return `fsmt-${hex}`;
      case 'AWS::EFS::MountTarget.IpAddress': return this.mountTargetAddress(logicalId);
      case 'AWS::S3Files::FileSystem.FileSystemId': return `fs-${hex}`;
      case 'AWS::S3Files::FileSystem.FileSystemArn': return `arn:aws:s3files:${REGION}:${ACCOUNT}:file-system/fs-${hex}`;
      case 'AWS::S3Files::AccessPoint.AccessPointId': return `fsap-${hex}`;
      case 'AWS::S3Files::MountTarget.MountTargetId': return `fsmt-${hex}`;
      // us-east-1a as use1-az1 and so on: each account maps names to ids its own way; this is one.
      case 'AWS::S3Files::MountTarget.AvailabilityZoneId': return `use1-az${' abcdef'.indexOf(this.zoneOfSubnet(props.SubnetId).slice(-1))}`;
      case 'AWS::StepFunctions::StateMachine.Ref': return `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${logicalId}`;
      case 'AWS::Lambda::Function.Arn': return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${logicalId}`;
      default: throw new Error(`the stand-in deploy cannot resolve the ${what}`);
    }
  }

  /** The Availability Zone name of the subnet `subnetRef` (a Ref to an AWS::EC2::Subnet of the stack). */
  private zoneOfSubnet(subnetRef: { Ref: string }): string {
    return this.resolve(this.resource(subnetRef.Ref).Properties!.AvailabilityZone);
  }

  private mountTargetAddress(logicalId: string): string {
    if (!this.mountTargetAddresses.has(logicalId)) {
      this.mountTargetAddresses.set(logicalId, loopbackAddress());
    }
    return this.mountTargetAddresses.get(logicalId)!;
  }

  /** The Lambda function behind an ARN the template names (`Fn::GetAtt [<id>, Arn]`). */
  functionOf(arn: unknown): DeployedFunction {
    const logicalId = /^arn:aws:lambda:[^:]+:\d+:function:(.+)$/.exec(String(arn))?.[1];
    if (!logicalId || this.resource(logicalId).Type !== 'AWS::Lambda::Function') throw new Error(`${JSON.stringify(arn)} is no function of ${this.stack.stackName}`);
    return new DeployedFunction(this, logicalId);
  }

  /**
   * Sends a Create of custom resource `logicalId` through the Provider framework to its handlers,
   * with `mount` standing in for the file system they mount. Returns CloudFormation's answer.
   */
  async create(logicalId: string, mount: MountStandIn): Promise<CfnResponse> {
    const props = this.resolve(this.resource(logicalId).Properties);
    const framework = this.functionOf(props.ServiceToken).environment;
    const onEvent = this.functionOf(framework.USER_ON_EVENT_FUNCTION_ARN);
    const isComplete = framework.USER_IS_COMPLETE_FUNCTION_ARN ? this.functionOf(framework.USER_IS_COMPLETE_FUNCTION_ARN) : undefined;
    // The handlers read the mount at the path the properties name: it must be where Lambda mounts the file system.
    const mountPath = props.MountPath === undefined ? undefined : onEvent.mountedAt(props.MountPath, mount);
    const resourceProperties = mountPath === undefined ? props : { ...props, MountPath: mountPath };
    const provider = new ProviderFramework({
      onEvent: (event) => onEvent.invoke(event),
      ...isComplete ? { isComplete: (event: unknown) => isComplete.invoke(event) } : {},
    }, logicalId, `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${this.stack.stackName}/11111111-2222-3333-4444-555555555555`);
    return provider.deliver({ RequestType: 'Create', RequestId: `${logicalId}-create`, ResourceProperties: resourceProperties });
  }
}

/** A function of the stack, run here from its staged code. */
export class DeployedFunction {
  private readonly props: Record<string, any>;

  constructor(private readonly deploy: DeployStandIn, readonly logicalId: string) {
    this.props = deploy.resource(logicalId).Properties ?? {};
  }

  get environment(): Record<string, string> {
    return this.deploy.resolve(this.props.Environment?.Variables ?? {});
  }

  /** What the function mounts (its FileSystemConfigs), resolved. */
  get mounts(): Array<{ fileSystemId: string; accessPointId: string; localMountPath: string }> {
    return (this.props.FileSystemConfigs ?? []).map((c: { Arn: any; LocalMountPath: string }) => {
      const accessPoint = c.Arn['Fn::GetAtt']?.[0] ?? this.accessPointOf(c.Arn);
      return {
        fileSystemId: this.deploy.resolve(this.deploy.resource(accessPoint).Properties!.FileSystemId),
        // An S3 Files access point names its id by an attribute; an EFS one's Ref is its id.
        accessPointId: this.deploy.resolve(this.deploy.resource(accessPoint).Type === 'AWS::S3Files::AccessPoint' ? { 'Fn::GetAtt': [accessPoint, 'AccessPointId'] } : { Ref: accessPoint }),
        localMountPath: c.LocalMountPath,
      };
    });
  }

  /**
   * The directory that stands in for the function's mount at `mountPath` (which must be the
   * LocalMountPath of one of its FileSystemConfigs), as `mount` gives it.
   */
  mountedAt(mountPath: string, mount: MountStandIn): string {
    const config = this.mounts.find((m) => m.localMountPath === mountPath);
    if (!config) throw new Error(`${this.logicalId} mounts nothing at ${mountPath} (it mounts ${JSON.stringify(this.mounts.map((m) => m.localMountPath))})`);
    return mount(config.fileSystemId, config.accessPointId, mountPath);
  }

  private accessPointOf(arn: any): string {
    // aws-cdk-lib writes an access point's ARN as Fn::Join of partition, region, account and its Ref.
    const ref = JSON.stringify(arn).match(/"Ref":"([^"]+)"/g)?.map((r) => r.slice(7, -1)).find((id) => this.deploy.stack.template.Resources[id]?.Type === 'AWS::EFS::AccessPoint');
    if (!ref) throw new Error(`${this.logicalId}'s file system ARN names no access point: ${JSON.stringify(arn)}`);
    return ref;
  }

  /** The handler module, from the function's code as cdk.out stages it. */
  module(): Record<string, (event: unknown, context: unknown) => Promise<unknown>> {
    const key = this.props.Code?.S3Key;
    const asset = typeof key === 'string' && path.join(this.deploy.stack.assemblyDir, `asset.${key.replace(/\.zip$/, '')}`);
    if (!asset || !fs.existsSync(asset)) throw new Error(`${this.logicalId}'s code is not a staged asset directory: ${JSON.stringify(this.props.Code)}`);
    const [file, exported] = String(this.props.Handler).split('.');
    return { handler: require(path.join(asset, file))[exported] };
  }

  /** Lambda's invocation: the handler the function names, its environment set, its time limit on the clock. */
  async invoke(event: unknown, mount?: MountStandIn): Promise<unknown> {
    const environment = this.environment;
    // A variable that names a mount path (the probe's PROBE_MOUNT_PATH) names the stand-in instead.
    for (const [name, value] of Object.entries(environment)) {
      if (mount && this.mounts.some((m) => m.localMountPath === value)) environment[name] = this.mountedAt(value, mount);
    }
    const { handler } = this.module();
    if (typeof handler !== 'function') throw new Error(`${this.logicalId}'s handler ${this.props.Handler} is not a function of its code`);
    const saved = Object.fromEntries(Object.keys(environment).map((name) => [name, process.env[name]]));
    Object.assign(process.env, environment);
    const started = Date.now();
    const timeoutMs = Number(this.props.Timeout ?? 3) * 1000;
    try {
      return await handler(event, { getRemainingTimeInMillis: () => timeoutMs - (Date.now() - started) });
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  }
}

function substitute(text: string, variable: (name: string) => string = (name) => PSEUDO[name]): string {
  return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
    const value = PSEUDO[name] ?? variable(name);
    if (value === undefined) throw new Error(`the stand-in deploy cannot substitute \${${name}} in "${text}"`);
    return value;
  });
}

/** An asset's object as the CLI uploads it: a directory zipped, a file as it is. */
function assetBody(source: string, packaging: string): Buffer {
  if (packaging !== 'zip' || !fs.statSync(source).isDirectory()) return fs.readFileSync(source);
  const zip = `${source}.harness.zip`;
  if (!fs.existsSync(zip)) execFileSync('zip', ['-qr', zip, '.'], { cwd: source });
  return fs.readFileSync(zip);
}
