// Pre-bundles every lambda/<name>/index.ts into dist/handlers/<name>/index.js, the folder the
// constructs deploy with lambda.Code.fromAsset: consumers need neither esbuild nor Docker.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const outRoot = join(root, 'dist', 'handlers');
rmSync(outRoot, { recursive: true, force: true });
mkdirSync(outRoot, { recursive: true });

const names = readdirSync(join(root, 'lambda'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(root, 'lambda', d.name, 'index.ts')))
  .map((d) => d.name);

// Worker threads a handler starts (lambda/<name>/*-thread.ts) are bundled beside its index.js.
const entriesOf = (name) => readdirSync(join(root, 'lambda', name))
  .filter((file) => file === 'index.ts' || file.endsWith('-thread.ts'))
  .map((file) => join(root, 'lambda', name, file));

await Promise.all(names.map((name) => build({
  entryPoints: entriesOf(name),
  outdir: join(outRoot, name),
  bundle: true,
  platform: 'node',
  // Lambda runs nodejs22.x; the handlers are also run by the tests on this machine's Node 20.
  target: 'node20',
  format: 'cjs',
  minify: true,
  keepNames: true,
  legalComments: 'none',
  logLevel: 'warning',
})));
console.log(`bundled ${names.length} handler(s): ${names.join(', ') || '(none)'}`);
