// Compiles the seed's native writer (lambda/seed/boundary/native/*.c) for Linux on x64 (the
// seed's Lambda function) and arm64 (the command line on Graviton), into
// dist/handlers/seed/native/linux-<arch>.node, beside the handler that loads it. N-API's headers
// come from the node-api-headers package, so no download of Node's sources is needed; its symbols
// are resolved from the Node binary that loads the addon. A compiler that is missing skips its
// platform, which the one line the build prints names: the seed writes small files through Node's
// calls there.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { arch } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const sourceDir = join(root, 'lambda', 'seed', 'boundary', 'native');
const sources = readdirSync(sourceDir).filter((file) => file.endsWith('.c')).sort().map((file) => join(sourceDir, file));
const outDir = join(root, 'dist', 'handlers', 'seed', 'native');
const headers = join(root, 'node_modules', 'node-api-headers', 'include');

// Each architecture's compiler, and the Debian packages with it and its C library's headers: this
// machine's own, or a cross compiler.
const CROSS = {
  x64: { compiler: 'x86_64-linux-gnu-gcc', packages: 'gcc-x86-64-linux-gnu libc6-dev-amd64-cross' },
  arm64: { compiler: 'aarch64-linux-gnu-gcc', packages: 'gcc-aarch64-linux-gnu libc6-dev-arm64-cross' },
};
const native = (target) => target === arch() && process.platform === 'linux';
const compilers = (target) => (native(target) ? ['gcc', 'cc', CROSS[target].compiler] : [CROSS[target].compiler]);
const packages = (target) => (native(target) ? 'gcc libc6-dev' : CROSS[target].packages);

const found = (command) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;

mkdirSync(outDir, { recursive: true });
const built = [];
const missing = [];
for (const target of Object.keys(CROSS)) {
  const compiler = compilers(target).find(found);
  if (!compiler) {
    missing.push(`linux-${target} (no ${compilers(target).join(' or ')}: apt-get install ${packages(target)})`);
    continue;
  }
  execFileSync(compiler, [
    '-std=c11', '-O2', '-Wall', '-Wextra', '-Werror', '-fPIC', '-shared', '-fvisibility=hidden', '-s',
    '-I', headers, '-o', join(outDir, `linux-${target}.node`), ...sources,
  ], { stdio: 'inherit' });
  built.push(`linux-${target}`);
}
// One line, whatever was built.
const notBuilt = missing.length > 0 ? `for ${missing.join(' or ')}, where the seed writes small files through Node's calls` : '';
console.log(built.length === 0 ? `native writer not built ${notBuilt}`
  : `built the native writer for ${built.join(' and ')}${notBuilt ? `; not ${notBuilt}` : ''}`);
