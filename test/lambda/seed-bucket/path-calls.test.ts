/**
 * The bucket seed keeps the EFS seed's discipline for paths (see test/lambda/seed/path-calls.test.ts):
 * a local source is read only through the EFS seed's boundary (a held root, files opened beneath it),
 * and the only path-taking calls of lambda/seed-bucket are in its boundary/ folder (the lookups
 * through the S3 Files mount the caller names). Elsewhere in it, Node's fs is not imported, and of
 * lambda/shared/fs-calls only calls on a descriptor are.
 */
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..', '..', 'lambda', 'seed-bucket');
const DESCRIPTOR_CALLS = new Set(['read', 'close', 'fstat']);

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'boundary' ? [] : sources(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

test('outside lambda/seed-bucket/boundary, no module takes a path to the file system', () => {
  const found: string[] = [];
  for (const file of sources(ROOT)) {
    const text = fs.readFileSync(file, 'utf8');
    const name = path.relative(ROOT, file);
    for (const m of text.matchAll(/^import\s+(type\s+)?(.*?)\s+from\s+'([^']+)';/gms)) {
      const [, typeOnly, bindings, module] = m;
      if (typeOnly) continue;
      if (/^(node:)?fs(\/promises)?$/.test(module)) found.push(`${name}: imports ${module}`);
      if (module.endsWith('/shared/fs-calls')) {
        for (const b of bindings.replace(/[{}]/g, '').split(',').map((s) => s.trim().split(/\s+as\s+/)[0]).filter(Boolean)) {
          if (!DESCRIPTOR_CALLS.has(b)) found.push(`${name}: imports ${b} from fs-calls`);
        }
      }
    }
    if (/require\(['"](node:)?fs/.test(text) || /import\(['"](node:)?fs/.test(text)) found.push(`${name}: loads fs`);
  }
  expect(found).toEqual([]);
  // The check sees the module that does import a descriptor call.
  expect(fs.readFileSync(path.join(ROOT, 'object-body.ts'), 'utf8')).toMatch(/import \{ read \} from '\.\.\/shared\/fs-calls'/);
});
