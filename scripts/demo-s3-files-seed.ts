import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import * as fs from 'fs';
import * as path from 'path';
import type { Workload } from '../bench/lib/workloads';
import { runCli } from './demo-cli';

/**
 * The S3 Files demo's seed: `cdk-efs-kit seed <tree> s3://bucket/prefix` into the bucket on moto,
 * with `--mount` where an S3 Files mount is over it; then what is in the bucket (listed) and what
 * shows through the mount (walked, one file read back), counted here, not taken from the seed's word.
 */
/** Where the seed keeps its manifest, under the prefix: not one of the tree's files. */
const SEED_STATE = '.cdk-efs-kit';

export interface DemoBucket {
  readonly client: S3Client;
  readonly endpoint: string;
  readonly name: string;
  readonly prefix: string;
}

/** Runs the seed as a user would, its output on the demo's; throws when it fails. */
export async function seedBucket(tree: Workload, bucket: DemoBucket, mountDir: string | undefined): Promise<void> {
  const args = ['seed', tree.dir, `s3://${bucket.name}/${bucket.prefix}`, '--s3-endpoint', bucket.endpoint, ...(mountDir ? ['--mount', mountDir] : [])];
  console.log(`  $ cdk-efs-kit ${args.join(' ')}`);
  const run = await runCli(args);
  if (run.status !== 0) throw new Error(`the seed failed (exit ${run.status ?? run.signal}): its output is above`);
}

/** The objects under the bucket's prefix, but for the seed's own state. */
export async function objectsInBucket(bucket: DemoBucket): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const prefix = `${bucket.prefix}/`;
  for (let token: string | undefined; ;) {
    const page = await bucket.client.send(new ListObjectsV2Command({ Bucket: bucket.name, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) {
      const key = o.Key!.slice(prefix.length);
      if (!key.startsWith(`${SEED_STATE}/`)) found.set(key, o.Size ?? 0);
    }
    if (!page.IsTruncated) return found;
    token = page.NextContinuationToken;
  }
}

/** The tree's files, by path relative to `dir` with / separators, and their sizes. */
export function filesUnder(dir: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const d of fs.readdirSync(dir, { withFileTypes: true, recursive: true }) as fs.Dirent[]) {
    const parent = (d as any).parentPath ?? (d as any).path;
    const relative = path.relative(dir, path.join(parent, d.name)).split(path.sep).join('/');
    if (d.isFile() && relative.split('/')[0] !== SEED_STATE) found.set(relative, fs.statSync(path.join(parent, d.name)).size);
  }
  return found;
}

/** Paths of `expected` missing from `found` or of another size there. */
export function differences(expected: ReadonlyMap<string, number>, found: ReadonlyMap<string, number>): string[] {
  return [...expected].filter(([p, size]) => found.get(p) !== size).map(([p]) => p);
}

export interface MountView {
  readonly files: number;
  readonly directories: string[];
  /** Files of the source missing through the mount or of another size there. */
  readonly differing: string[];
  /** A file read back through the mount, and whether its bytes are the source's. */
  readonly readBack: { readonly path: string; readonly same: boolean };
}

/** What the mount shows at `mountDir` against the source tree: walked, and its first file read whole. */
export function viewThroughMount(tree: Workload, mountDir: string): MountView {
  const source = filesUnder(tree.dir);
  const seen = filesUnder(mountDir);
  const [first] = [...source.keys()].sort();
  return {
    files: seen.size,
    directories: fs.readdirSync(mountDir).filter((n) => n !== SEED_STATE).sort(),
    differing: differences(source, seen),
    readBack: { path: first, same: fs.readFileSync(path.join(mountDir, first)).equals(fs.readFileSync(path.join(tree.dir, first))) },
  };
}
