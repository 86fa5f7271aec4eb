import { Annotations, AspectPriority, Aspects, CfnResource, Token } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import { IConstruct } from 'constructs';
import type { IEc2Host } from './client-mount-options';

/**
 * Owners at synth: an access point that enforces a POSIX user makes every file a client creates
 * through it that user's, whoever the client runs as. A client that expects its own uid/gid on
 * its files (databases, ssh, git, anything that checks owners) then refuses them, or fails to
 * chown them. Where the app says who the client is, a read-write mount through such an access
 * point warns, acknowledgeably, naming both identities and the fix. Root clients are left alone:
 * the access point turns root into its user, which is what it is for.
 */

export const OWNER_MISMATCH = 'cdk-efs-kit:mountOwnerMismatch';

/** A POSIX identity; a part the app does not say is undefined. */
interface PosixIds {
  readonly uid?: number;
  readonly gid?: number;
}

/** The user an access point defined in this app enforces, when known at synth. */
function enforcedUser(accessPoint: efs.IAccessPoint): { uid: number; gid: number; secondaryGids: number[] } | undefined {
  const cfn = accessPoint.node.defaultChild;
  if (!CfnResource.isCfnResource(cfn) || cfn.cfnResourceType !== 'AWS::EFS::AccessPoint') return undefined;
  const user = (cfn as efs.CfnAccessPoint).posixUser as efs.CfnAccessPoint.PosixUserProperty | undefined;
  if (user === undefined || Token.isUnresolved(user) || Token.isUnresolved(user.uid) || Token.isUnresolved(user.gid)) return undefined;
  const secondaryGids = Token.isUnresolved(user.secondaryGids) ? [] : (user.secondaryGids ?? []).filter((g) => !Token.isUnresolved(g)).map(Number);
  return { uid: Number(user.uid), gid: Number(user.gid), secondaryGids };
}

/** A user or group as a number: digits, or root; a name the image defines is unknown at synth. */
function posixId(part: string | undefined): number | undefined {
  if (part === undefined || part === '') return undefined;
  if (part === 'root') return 0;
  return /^\d+$/.test(part) ? Number(part) : undefined;
}

/** ECS `user`: `user`, `user:group`, `uid`, `uid:gid`, `uid:group` or `user:gid`. */
function parseUserSpec(spec: string): PosixIds {
  const [user, group] = spec.split(':', 2);
  return { uid: posixId(user), gid: posixId(group) };
}

const idsText = (ids: PosixIds) => `${ids.uid ?? '?'}:${ids.gid ?? '?'}`;

/**
 * mountOnEcsTask: the container's `user` against the access point's POSIX user, on a read-write
 * mount. Nothing when the container runs as root (no `user`: the image's, usually root; or uid 0),
 * when its uid is a name only the image knows, or when the access point enforces no user.
 */
export function warnAboutEcsOwner(container: ecs.ContainerDefinition, accessPoint: efs.IAccessPoint, options: { readonly containerPath: string; readonly readOnly?: boolean }): void {
  if (options.readOnly) return;
  const enforced = enforcedUser(accessPoint);
  const spec = container.renderContainerDefinition().user;
  if (!enforced || spec === undefined || Token.isUnresolved(spec)) return;
  const runs = parseUserSpec(spec);
  if (runs.uid === undefined || runs.uid === 0) return;
  if (runs.uid === enforced.uid && (runs.gid === undefined || runs.gid === enforced.gid)) return;
  const forced = `${enforced.uid}:${enforced.gid}`;
  Annotations.of(container).addWarningV2(OWNER_MISMATCH,
    `container '${container.containerName}' runs as user '${spec}' (${idsText(runs)}), but access point ${accessPoint.node.path} enforces uid ${enforced.uid} and gid ${enforced.gid} `
    + `on its read-write mount at ${options.containerPath}: files the container creates there belong to ${forced}, not to it, and programs that check owners refuse them. `
    + `Set the container's user to '${forced}', or mount through an access point whose posixUser is ${idsText(runs)}.`);
}

/**
 * mountOnEc2: user data runs as root, which the access point turns into its user; the owner the
 * app names is the one of a numeric `chown` of a path in the mount. Such a chown fails (EPERM: the
 * access point's user may not give files away) unless it names that user and one of its groups.
 * Checked when the app is synthesized, so that commands added after the mount count too; the
 * warning is on the host's resource, where acknowledging it on the host reaches it.
 */
export function warnAboutEc2Owner(host: IEc2Host, mountPoint: string, options: { readonly accessPoint?: efs.IAccessPoint; readonly readOnly?: boolean }): void {
  if (options.readOnly || !options.accessPoint) return;
  const accessPoint = options.accessPoint;
  const enforced = enforcedUser(accessPoint);
  if (!enforced) return;
  const warnOn: IConstruct = host.node.defaultChild ?? host;
  Aspects.of(host).add({
    visit(node: IConstruct) {
      if (node !== host) return;
      for (const { line, owner } of chownsUnder(host.userData.render(), mountPoint)) {
        const groupOk = owner.gid === undefined || owner.gid === enforced.gid || enforced.secondaryGids.includes(owner.gid);
        if ((owner.uid === undefined || owner.uid === enforced.uid) && groupOk) continue;
        const forced = `${enforced.uid}:${enforced.gid}`;
        Annotations.of(warnOn).addWarningV2(OWNER_MISMATCH,
          `the user data of ${host.node.path} runs '${line}' (owner ${idsText(owner)}), but access point ${accessPoint.node.path} enforces uid ${enforced.uid} and gid ${enforced.gid} `
          + `on its read-write mount at ${mountPoint}: the chown fails (EPERM) and files there belong to ${forced}. `
          + `Run the application as ${forced} (chown ${forced}), or mount through an access point whose posixUser is the application's.`);
      }
    },
  }, { priority: AspectPriority.READONLY });
}

/** Each `chown [options] owner[:group] path...` in a shell script naming a numeric or root owner and a path at or under `mountPoint`. */
export function chownsUnder(script: string, mountPoint: string): Array<{ line: string; owner: PosixIds }> {
  const found: Array<{ line: string; owner: PosixIds }> = [];
  for (const command of script.split(/\n|;|&&|\|\|/).map((c) => c.trim())) {
    const words = command.split(/\s+/);
    const at = words.findIndex((w) => w === 'chown' || w.endsWith('/chown'));
    if (at < 0) continue;
    const args = words.slice(at + 1).filter((w) => !w.startsWith('-'));
    if (args.length < 2 || Token.isUnresolved(args[0])) continue;
    const [user, group] = args[0].replace(/^['"]|['"]$/g, '').split(/[:.]/, 2);
    const owner = { uid: posixId(user), gid: posixId(group) };
    if (owner.uid === undefined && owner.gid === undefined) continue;
    const paths = args.slice(1).map((p) => p.replace(/^['"]|['"]$/g, '').replace(/\/+$/, '') || '/');
    if (paths.some((p) => p === mountPoint || p.startsWith(`${mountPoint}/`))) found.push({ line: command, owner });
  }
  return found;
}
