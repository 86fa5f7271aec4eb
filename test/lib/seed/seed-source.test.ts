import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';
import { App, Stack } from 'aws-cdk-lib';
import { SeedSource, SeedSourceFormat } from '../../../lib';

// SeedSource.asset on real archives made by zip and tar: the format the seed is told is the one the
// file's name says, and its first bytes must agree, or synth fails naming the file and what it holds.

let work: string;
const at = (name: string) => path.join(work, name);

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-source-'));
  fs.mkdirSync(at('site'));
  fs.writeFileSync(at('site/index.html'), '<h1>hello</h1>');
  execFileSync('zip', ['-qr', at('site.zip'), '.'], { cwd: at('site') });
  execFileSync('tar', ['-cf', at('site.tar'), '-C', at('site'), '.']);
  execFileSync('tar', ['-czf', at('site.tar.gz'), '-C', at('site'), '.']);
  fs.copyFileSync(at('site.tar.gz'), at('site.tgz'));
  fs.copyFileSync(at('site.tar.gz'), at('SITE.TAR.GZ'));
  // An empty zip is only its end-of-central-directory record.
  fs.writeFileSync(at('empty.zip'), Buffer.concat([Buffer.from('PK\x05\x06'), Buffer.alloc(18)]));
  // Archives under names that say another format.
  fs.copyFileSync(at('site.zip'), at('zip-named.tar.gz'));
  fs.copyFileSync(at('site.tar'), at('tar-named.tgz'));
  fs.copyFileSync(at('site.tar.gz'), at('tar-gz-named.zip'));
  fs.copyFileSync(at('site.zip'), at('zip-named.tar'));
  fs.writeFileSync(at('text-named.tar'), 'hello, not a tar\n'.repeat(64));
  fs.writeFileSync(at('text-in.tar.gz'), zlib.gzipSync('hello, not a tar\n'.repeat(64)));
  fs.writeFileSync(at('short.zip'), 'PK');
  // A pre-POSIX (v7) tar: no magic at offset 257, a valid checksum.
  fs.writeFileSync(at('v7.tar'), v7Tar('index.html', '<h1>hello</h1>'));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A tar as Unix v7's tar wrote it: the header's name, mode, sizes and checksum, no magic. */
function v7Tar(name: string, content: string): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.fill(' ', 148, 156);
  header.write('0', 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const data = Buffer.alloc(512);
  data.write(content);
  return Buffer.concat([header, data, Buffer.alloc(1024)]);
}

const bind = (name: string) => SeedSource.asset(at(name)).bind(new Stack(new App(), 'Test'));

describe('SeedSource.asset', () => {
  test.each([
    ['a directory (CDK zips it)', 'site', SeedSourceFormat.ZIP],
    ['a .zip file', 'site.zip', SeedSourceFormat.ZIP],
    ['an empty .zip file', 'empty.zip', SeedSourceFormat.ZIP],
    ['a .tar file', 'site.tar', SeedSourceFormat.TAR],
    ['a .tar.gz file', 'site.tar.gz', SeedSourceFormat.TAR_GZ],
    ['a .tgz file', 'site.tgz', SeedSourceFormat.TAR_GZ],
    ['a .TAR.GZ file (any case)', 'SITE.TAR.GZ', SeedSourceFormat.TAR_GZ],
  ])('%s is read as its name says', (_, name, format) => {
    expect(bind(name).format).toBe(format);
  });

  test.each([
    ['zip-named.tar.gz', 'is named .tar.gz but is not gzip: its first bytes are a zip archive\'s (50 4b 03 04)'],
    ['tar-named.tgz', 'is named .tgz but is not gzip: its first bytes are a tar archive\'s'],
    ['tar-gz-named.zip', 'is named .zip but is not a zip archive: its first bytes are gzip\'s (1f 8b)'],
    ['zip-named.tar', 'is named .tar but is not a tar archive: its first bytes are a zip archive\'s (50 4b 03 04)'],
    ['text-named.tar', 'is named .tar but is not a tar archive: its first bytes are 68 65 6c 6c, no archive\'s'],
    ['text-in.tar.gz', 'is named .tar.gz but the gzip holds no tar archive: its first bytes are 68 65 6c 6c, no archive\'s'],
    ['short.zip', 'is named .zip but is not a zip archive: its first bytes are 50 4b, no archive\'s'],
    ['v7.tar', 'is named .tar but is a pre-POSIX (v7) tar, which the seed does not read: write it again with GNU tar or bsdtar'],
  ])('fails when the bytes of %s are not what its name says', (name, problem) => {
    expect(() => bind(name)).toThrow(`SeedSource.asset: localPath (local_path) "${at(name)}" ${problem}`);
  });

  test('fails when a file is not an archive', () => {
    expect(() => bind('site/index.html')).toThrow('SeedSource.asset: localPath (local_path) must be a directory or end in .zip, .tar, .tar.gz or .tgz, got "index.html".');
  });
});
