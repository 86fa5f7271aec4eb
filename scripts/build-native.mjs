// Compiles the seed's native writer (lambda/seed/native/write-new-file.c) for Linux on x64 (the
// seed's Lambda function) and arm64 (the command line on Graviton), into
// dist/handlers/seed/native/linux-<arch>.node, beside the handler that loads it. N-API's headers
// come from the node-api-headers package, so no download of Node's sources is needed; its symbols
// are resolved from the Node binary that loads the addon. A compiler that is missing skips its
// platform with one line: the seed then writes those files through Node's calls.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { arch } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const source = join(root, 'lambda', 'seed', 'native', 'write-new-file.c');
const outDir = join(root, 'dist', 'handlers', 'seed', 'native');
const headers = join(root, 'node_modules', 'node-api-headers', 'include');

// The compiler for each architecture, from this machine's.
const GNU = { x64: 'x86_64-linux-gnu-gcc', arm64: 'aarch64-linux-gnu-gcc' };
const compilers = Object.fromEntries(Object.entries(GNU).map(([target, cross]) => [target, target === arch() && process.platform === 'linux' ? ['gcc', 'cc', cross] : [cross]]));
// The Debian packages that provide a cross compiler and its C library headers.
const CROSS_PACKAGES = { x64: 'gcc-x86-64-linux-gnu libc6-dev-amd64-cross', arm64: 'gcc-aarch64-linux-gnu libc6-dev-arm64-cross' };

const found = (command) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;

mkdirSync(outDir, { recursive: true });
const built = [];
for (const [target, candidates] of Object.entries(compilers)) {
  const compiler = candidates.find(found);
  if (!compiler) {
    console.log(`native writer for linux-${target} not built (no ${candidates.join(' or ')}; apt-get install ${CROSS_PACKAGES[target]}): the seed writes small files through Node's calls there`);
    continue;
  }
  execFileSync(compiler, [
    '-std=c11', '-O2', '-Wall', '-Wextra', '-Werror', '-fPIC', '-shared', '-fvisibility=hidden', '-s',
    '-I', headers, '-o', join(outDir, `linux-${target}.node`), source,
  ], { stdio: 'inherit' });
  built.push(`linux-${target}`);
}
if (built.length > 0) console.log(`built the native writer for ${built.join(' and ')}`);
