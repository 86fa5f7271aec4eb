import { Annotations } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import { IConstruct } from 'constructs';
import { check, isCleanAbsolutePath, isOctalMode, isPosixId } from '../core/validate';

/**
 * Refuses access point settings EFS would refuse at deploy time (path, POSIX ids, creation mode),
 * and warns when a path will not exist for lack of a creation ACL.
 */
export function checkAccessPointOptions(files: IConstruct, id: string, options: efs.AccessPointOptions, kind = 'SharedFileSystem'): void {
  const where = `${kind}(${files.node.path}).addAccessPoint('${id}')`;
  if (options.path !== undefined) {
    check(isCleanAbsolutePath(options.path), where, 'path', options.path, "must be an absolute path without empty, '.' or '..' parts", files);
    check(options.path.length <= 100, where, 'path', options.path, 'must be at most 100 characters (an EFS limit)', files);
  }
  if (options.posixUser) {
    check(isPosixId(options.posixUser.uid), where, 'posixUser.uid', options.posixUser.uid, 'must be an integer from 0 to 4294967295', files);
    check(isPosixId(options.posixUser.gid), where, 'posixUser.gid', options.posixUser.gid, 'must be an integer from 0 to 4294967295', files);
    for (const gid of options.posixUser.secondaryGids ?? []) {
      check(isPosixId(gid), where, 'posixUser.secondaryGids', gid, 'must hold integers from 0 to 4294967295', files);
    }
  }
  if (options.createAcl) {
    check(isPosixId(options.createAcl.ownerUid), where, 'createAcl.ownerUid', options.createAcl.ownerUid, 'must be an integer from 0 to 4294967295', files);
    check(isPosixId(options.createAcl.ownerGid), where, 'createAcl.ownerGid', options.createAcl.ownerGid, 'must be an integer from 0 to 4294967295', files);
    check(isOctalMode(options.createAcl.permissions), where, 'createAcl.permissions', options.createAcl.permissions, "must be an octal mode such as '750'", files);
  }
  if (options.path && options.path !== '/' && !options.createAcl) {
    Annotations.of(files).addWarningV2('cdk-efs-kit:accessPointWithoutCreateAcl',
      `Access point '${id}' has path ${options.path} but no createAcl: EFS will not create the directory, and mounts fail until it exists.`);
  }
}
