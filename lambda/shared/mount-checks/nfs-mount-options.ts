import { RECOMMENDED_NFS_OPTIONS } from '../../../lib/file-system/contract/recommended-nfs-options';
import { CheckResult, pass, warn } from './check-result';
import { MountEntry, optionMap } from './mountinfo';

/**
 * A mounted NFS file system's options against the ones EFS recommends (RECOMMENDED_NFS_OPTIONS,
 * the set NfsMountOptions.recommendedNfs() and so the library writes: nfsvers=4.1, rsize/wsize 1 MiB, hard, timeo=600, retrans=2,
 * noresvport), in the kernel's spelling: mountinfo shows `vers=` for `nfsvers=`, always shows
 * `hard` or `soft`, and shows `actimeo=0` as `acregmax=0,acdirmax=0`.
 */

/** Options the kernel shows that EFS advises against, and what they cost. */
const ADVISED_AGAINST: Array<{ present: (o: Map<string, string>) => boolean; name: string; why: string }> = [
  { present: (o) => o.has('noac'), name: 'noac', why: 'no attribute cache: every stat is a round trip to EFS' },
  { present: (o) => o.get('acregmax') === '0' && o.get('acdirmax') === '0', name: 'actimeo=0', why: 'no attribute cache: every stat is a round trip to EFS' },
  { present: (o) => o.get('lookupcache') === 'none', name: 'lookupcache=none', why: 'no lookup cache: every path walk is a round trip to EFS' },
  { present: (o) => o.has('fsc'), name: 'fsc', why: 'FS-Cache is not supported on EFS and can serve stale data' },
];

export const MOUNT_OPTIONS_CHECK = 'mount-options';

export function judgeNfsOptions(entry: MountEntry): CheckResult {
  const options = optionMap(entry.superOptions);
  const wanted = optionMap([...RECOMMENDED_NFS_OPTIONS]);
  const problems: string[] = [];

  const version = options.get('vers') ?? '';
  if (version !== wanted.get('nfsvers')) {
    problems.push(`vers=${version || '?'} (EFS recommends ${wanted.get('nfsvers')}${Number(version) < 4 ? '; EFS serves only NFSv4' : ''})`);
  }
  for (const size of ['rsize', 'wsize']) {
    if (Number(options.get(size)) < Number(wanted.get(size))) {
      problems.push(`${size}=${options.get(size)} (smaller I/O than EFS's ${wanted.get(size)}: more requests per MiB, lower throughput)`);
    }
  }
  if (!options.has('hard')) {
    problems.push(`${options.has('softerr') ? 'softerr' : 'soft'} (a request that times out fails with an I/O error the application may not expect, which can corrupt data; EFS recommends hard)`);
  }
  for (const name of ['timeo', 'retrans']) {
    if (options.get(name) !== wanted.get(name)) problems.push(`${name}=${options.get(name) ?? '?'} (EFS recommends ${wanted.get(name)})`);
  }
  if (!options.has('noresvport')) {
    problems.push('no noresvport (after a network interruption the client reconnects from a reserved port and may stay disconnected)');
  }
  for (const advice of ADVISED_AGAINST) {
    if (advice.present(options)) problems.push(`${advice.name} (${advice.why})`);
  }

  const shown = ['vers', 'rsize', 'wsize', 'hard', 'timeo', 'retrans', 'noresvport']
    .filter((o) => options.has(o)).map((o) => (options.get(o) ? `${o}=${options.get(o)}` : o)).join(',');
  if (problems.length === 0) return pass(MOUNT_OPTIONS_CHECK, `${entry.fsType} options are what EFS recommends (${shown})`);
  const differ = problems.length === 1 ? '1 option differs' : `${problems.length} options differ`;
  return warn(MOUNT_OPTIONS_CHECK, `${differ} from EFS's recommendations: ${problems.join('; ')}`,
    `remount with -o ${RECOMMENDED_NFS_OPTIONS.join(',')} (mount -t efs sets them for you)`);
}
