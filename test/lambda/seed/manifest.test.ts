import { emptyManifest, parseManifest, serializeManifest } from '../../../lambda/seed/state/manifest';

// The manifest as saved and read back: what each file was written from and what was written, in a flat
// list that parses fast; an older version's object of paths still reads (with no identity of what was written).
test('what is saved reads back the same, with what was written and whether a run was under way', () => {
  const manifest = emptyManifest();
  manifest.files.set('a/b.txt', '12:1700000000000');
  manifest.written.set('a/b.txt', '9007199254740993:12:1700000000000123456');
  manifest.files.set('a/l', 'link:../x');
  manifest.directories.add('a');
  const read = parseManifest(serializeManifest(manifest, true));
  expect(read).toEqual({ ...manifest, running: true, problems: [] });
  expect(parseManifest(serializeManifest(manifest, false)).running).toBe(false);
});

test('a version 2 manifest (an object of paths) reads, with no identity of what was written', () => {
  const read = parseManifest(JSON.stringify({ version: 2, files: { 'a/b.txt': '12:1700000000000' }, directories: ['a'] }));
  expect([...read.files]).toEqual([['a/b.txt', '12:1700000000000']]);
  expect(read.written.size).toBe(0);
  expect([...read.directories]).toEqual(['a']);
});

test('entries that are not normal paths, or not strings, are dropped and reported', () => {
  const read = parseManifest(JSON.stringify({ version: 3, files: ['../x', 's', '', 'ok', 's', '', 'bad', 7, ''], directories: ['/etc'] }));
  expect([...read.files.keys()]).toEqual(['ok']);
  expect(read.problems).toEqual(['ignored 3 manifest entries that are not normal paths in the target ("../x", "bad", "/etc"): nothing is deleted or written for them']);
});

test('a request\'s additions read back only where the manifest records them: nothing else is ever removed for it', () => {
  const manifest = emptyManifest();
  manifest.files.set('added/x', '1:1');
  manifest.directories.add('added');
  manifest.pending = { request: 'r2', added: new Set(['added/x']), directories: new Set(['added']) };
  manifest.committed = { request: 'r1', added: new Set(['added/x']), directories: new Set(['added']), from: 'v1', to: 'v2' };
  expect(parseManifest(serializeManifest(manifest, false))).toEqual({ ...manifest, problems: [] });
  const planted = JSON.parse(serializeManifest(manifest, false));
  planted.committed.added.push('etc/passwd');
  planted.committed.directories.push('etc');
  expect(parseManifest(JSON.stringify(planted)).committed).toEqual(manifest.committed);
});
