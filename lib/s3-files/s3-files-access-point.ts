import { IResource, Resource } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct } from 'constructs';
import type { IS3FilesFileSystem } from './s3-files-file-system-base';

/** An S3 Files access point: a path of the file system that its clients see as root, with a forced POSIX user. */
export interface IS3FilesAccessPoint extends IResource {
  /** Its id (`fsap-…`). */
  readonly accessPointId: string;
  /** Its ARN, which client grants are conditioned on (`s3files:AccessPointArn`). */
  readonly accessPointArn: string;
  /** The file system it belongs to. */
  readonly fileSystem: IS3FilesFileSystem;
}

/** Properties of an [S3FilesAccessPoint](#cdk-efs-kit.S3FilesAccessPoint). */
export interface S3FilesAccessPointProps {
  /** The file system. */
  readonly fileSystem: IS3FilesFileSystem;
  /**
   * The access point's settings, as aws-efs's access points take them (path, POSIX user, creation ACL).
   * @default - the root of the file system, where clients keep their own user
   */
  readonly options?: efs.AccessPointOptions;
}

/**
 * An `AWS::S3Files::AccessPoint`. Make one with
 * [S3FilesFileSystem.addAccessPoint](#cdk-efs-kit.S3FilesFileSystemBase.addAccessPoint), which checks its settings.
 *
 * @example
 * const s3Files = new S3FilesFileSystem(this, 'S3Files', { vpc });
 * const uploads = s3Files.addAccessPoint('Uploads', AccessPointPreset.applicationUser('/uploads', { uid: 33, gid: 33 }));
 * s3Files.grantAccess(ciRole, AccessLevel.READ_ONLY, uploads);
 */
export class S3FilesAccessPoint extends Resource implements IS3FilesAccessPoint {
  public readonly accessPointId: string;
  public readonly accessPointArn: string;
  public readonly fileSystem: IS3FilesFileSystem;

  constructor(scope: Construct, id: string, props: S3FilesAccessPointProps) {
    super(scope, id);
    const options = props.options ?? {};
    const resource = new s3files.CfnAccessPoint(this, 'Resource', {
      fileSystemId: props.fileSystem.fileSystemId,
      posixUser: options.posixUser && {
        uid: options.posixUser.uid, gid: options.posixUser.gid, secondaryGids: options.posixUser.secondaryGids,
      },
      rootDirectory: options.path === undefined && options.createAcl === undefined ? undefined : {
        path: options.path,
        creationPermissions: options.createAcl && {
          ownerUid: options.createAcl.ownerUid, ownerGid: options.createAcl.ownerGid, permissions: options.createAcl.permissions,
        },
      },
    });
    this.accessPointId = resource.attrAccessPointId;
    this.accessPointArn = resource.attrAccessPointArn;
    this.fileSystem = props.fileSystem;
  }
}
