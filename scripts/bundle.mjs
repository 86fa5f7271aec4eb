// Bundles what runs outside the CDK app, each into one self-contained file, so the package needs no
// runtime dependencies (jsii refuses any it does not bundle) and consumers need neither esbuild nor
// Docker:
// - every lambda/<name>/index.ts into dist/handlers/<name>/index.js, the folder the constructs
//   deploy with lambda.Code.fromAsset;
// - the command line, bin/cdk-efs-kit.ts, into dist/bin/cdk-efs-kit.js (package.json `bin`).
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

const bundle = (entry, outfile) => build({
  entryPoints: [join(root, entry)],
  outfile: join(root, outfile),
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
  ...names.map((name) => bundle(join('lambda', name, 'index.ts'), join('dist', 'handlers', name, 'index.js'))),
  bundle(join('bin', 'cdk-efs-kit.ts'), join('dist', 'bin', 'cdk-efs-kit.js')),
]);
console.log(`bundled ${names.length} handler(s): ${names.join(', ') || '(none)'}, and the cdk-efs-kit command`);
