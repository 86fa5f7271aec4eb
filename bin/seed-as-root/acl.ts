import { execFileSync } from 'child_process';

/** Whom a POSIX access ACL lets write, beyond the owner: named users and groups, and whether the owning group may. */
export interface AclWriters {
  readonly users: number[];
  readonly groups: number[];
  readonly owningGroup: boolean;
}

/**
 * Who `file`'s access ACL (the system.posix_acl_access attribute, read with getfacl without following
 * a link) lets write it, each entry under the mask as the kernel applies it; undefined when it has
 * only the base entries, where the mode bits say it all. Called only when the group bits (the mask,
 * where there is an ACL) allow writing: without that no named entry can.
 */
export function aclWriters(file: string): AclWriters | undefined {
  let text: string;
  try {
    text = execFileSync('getfacl', ['--access', '--numeric', '--absolute-names', '--physical', '--omit-header', '--skip-base', '--', file],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    const why = e.code === 'ENOENT' ? 'getfacl is not installed (the acl package: apt-get install acl, dnf install acl)' : (e.stderr ?? e.message).trim();
    throw new Error(`refusing to seed as root: the group bits of ${file} allow writing, and its POSIX ACL, which could let other users write it, cannot be read: ${why}`);
  }
  const entries = text.split('\n').map((line) => line.replace(/#.*$/, '').trim()).filter(Boolean).map((line) => line.split(':'));
  if (entries.length === 0) return undefined;
  const mask = entries.find(([tag]) => tag === 'mask')?.[2] ?? 'rwx';
  const writes = (perms: string) => perms.includes('w') && mask.includes('w');
  const named = (tag: string) => entries.filter(([t, id, perms]) => t === tag && id !== '' && writes(perms)).map(([, id]) => Number(id));
  return {
    users: named('user'),
    groups: named('group'),
    owningGroup: entries.some(([tag, id, perms]) => tag === 'group' && id === '' && writes(perms)),
  };
}
