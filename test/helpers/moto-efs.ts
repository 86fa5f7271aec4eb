import { CreateAccessPointCommand, CreateFileSystemCommand, CreateMountTargetCommand, EFSClient } from '@aws-sdk/client-efs';
import type { Moto } from './moto';

/**
 * An EFS file system with mount targets in moto, their addresses on loopback: a VPC of 127.X.0.0/16
 * (moto does not refuse it, AWS would) with a subnet per zone, and a mount target in each at an
 * address a test can listen on. EC2 is called through its Query API (the tests have no EC2
 * client); moto reads the service and Region from the Authorization header and checks no signature.
 */
export interface MotoFileSystem {
  readonly fileSystemId: string;
  readonly mountTargets: Array<{ id: string; availabilityZone: string; ipAddress: string }>;
  readonly efs: EFSClient;
}

export async function createMotoFileSystem(moto: Moto, zones: string[]): Promise<MotoFileSystem> {
  const second = 1 + Math.floor(Math.random() * 250);
  const vpcId = tag(await ec2(moto, { Action: 'CreateVpc', CidrBlock: `127.${second}.0.0/16` }), 'vpcId');
  const efs = new EFSClient(moto.clientConfig);
  const fileSystemId = (await efs.send(new CreateFileSystemCommand({ CreationToken: `doctor-${Date.now()}-${second}` }))).FileSystemId!;
  const mountTargets = [];
  for (const [i, zone] of zones.entries()) {
    const subnetId = tag(await ec2(moto, { Action: 'CreateSubnet', VpcId: vpcId, CidrBlock: `127.${second}.${i + 1}.0/24`, AvailabilityZone: zone }), 'subnetId');
    const ipAddress = `127.${second}.${i + 1}.${10 + i}`;
    const created = await efs.send(new CreateMountTargetCommand({ FileSystemId: fileSystemId, SubnetId: subnetId, IpAddress: ipAddress }));
    mountTargets.push({ id: created.MountTargetId!, availabilityZone: created.AvailabilityZoneName!, ipAddress });
  }
  return { fileSystemId, mountTargets, efs };
}

export async function createMotoAccessPoint(fs: MotoFileSystem, posixUser: { Uid: number; Gid: number }, root: { path: string; ownerUid: number; ownerGid: number; permissions: string }): Promise<string> {
  const created = await fs.efs.send(new CreateAccessPointCommand({
    FileSystemId: fs.fileSystemId,
    PosixUser: posixUser,
    RootDirectory: { Path: root.path, CreationInfo: { OwnerUid: root.ownerUid, OwnerGid: root.ownerGid, Permissions: root.permissions } },
  }));
  return created.AccessPointId!;
}

async function ec2(moto: Moto, params: Record<string, string>): Promise<string> {
  const res = await fetch(moto.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'authorization': `AWS4-HMAC-SHA256 Credential=test/20260101/${moto.clientConfig.region}/ec2/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: new URLSearchParams({ ...params, Version: '2016-11-15' }).toString(),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`EC2 ${params.Action} in moto failed: ${text}`);
  return text;
}

function tag(xml: string, name: string): string {
  const match = new RegExp(`<${name}>([^<]+)</${name}>`).exec(xml);
  if (!match) throw new Error(`no <${name}> in ${xml.slice(0, 300)}`);
  return match[1];
}
