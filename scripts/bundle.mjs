// Bundles what runs outside the CDK app, each into one self-contained file, so the package needs no
// runtime dependencies (jsii refuses any it does not bundle) and consumers need neither esbuild nor
// Docker:
// - every lambda/<name>/index.ts into dist/handlers/<name>/index.js, the folder the constructs
//   deploy with lambda.Code.fromAsset;
// - the command line, bin/cdk-efs-kit.ts, into dist/bin/cdk-efs-kit.js (package.json `bin`).
// Worker threads (lambda/<name>/*-thread.ts) are bundled beside their handler; the command line
// starts the seed's from there (dist/handlers/seed), so the package holds each once. So is the seed's
// native writer (scripts/build-native.mjs).
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const outRoot = join(root, 'dist', 'handlers');
rmSync(outRoot, { recursive: true, force: true });
mkdirSync(outRoot, { recursive: true });

const names = readdirSync(join(root, 'lambda'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(root, 'lambda', d.name, 'index.ts')))
  .map((d) => d.name);
const entry = (file) => ({ in: join(root, file), out: basename(file, '.ts') });
const threadsOf = (name) => readdirSync(join(root, 'lambda', name)).filter((f) => f.endsWith('-thread.ts')).map((f) => entry(join('lambda', name, f)));

const bundle = (entryPoints, outdir) => build({
  entryPoints,
  outdir: join(root, outdir),
  bundle: true,
  platform: 'node',
  // Lambda runs nodejs22.x; the handlers and the CLI also run on this machine's Node 20.
  target: 'node20',
  format: 'cjs',
  minify: true,
  keepNames: true,
  legalComments: 'none',
  logLevel: 'warning',
});

await Promise.all([
  ...names.map((name) => bundle([entry(join('lambda', name, 'index.ts')), ...threadsOf(name)], join('dist', 'handlers', name))),
  bundle([entry(join('bin', 'cdk-efs-kit.ts'))], join('dist', 'bin')),
]);
console.log(`bundled ${names.length} handler(s): ${names.join(', ') || '(none)'}, and the cdk-efs-kit command`);
await import('./build-native.mjs');
