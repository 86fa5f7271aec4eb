import { safeRelativePath } from '../../../lib/seed/contract/entry-path';
import { LinkGraph } from '../../../lambda/seed/target/link-graph';

// Entry names from archives and buckets: normal ones pass unchanged (checked by one regular
// expression), the others are normalised or refused, with the same result either way.
describe('safeRelativePath', () => {
  test.each([
    ['a', 'a'], ['a/b/c.tar.gz', 'a/b/c.tar.gz'], ['x/.hidden/y', 'x/.hidden/y'], ['..a', '..a'], ['a..', 'a..'], ['a/.../b', 'a/.../b'],
    ['a/b/', 'a/b'], ['./a', 'a'], ['a/./b', 'a/b'], ['a//b', 'a/b'], ['a\\b', 'a/b'], ['a/.', 'a'], ['.', ''], ['', ''],
    ['é'.repeat(85), 'é'.repeat(85)], ['a\nb/c', 'a\nb/c'], ['é'.repeat(86), 'é'.repeat(86)],
  ])('%j is %j', (raw, normal) => {
    expect(safeRelativePath(raw)).toBe(normal);
  });

  test.each([
    ['a/../b', "'..' is not allowed"], ['..', "'..' is not allowed"], ['a/..', "'..' is not allowed"], ['a\nb/../x', "'..' is not allowed"], ['a\n/..', "'..' is not allowed"],
    ['/etc/x', 'absolute paths are not allowed'], ['C:/x', 'absolute paths are not allowed'], ['C:\\x', 'absolute paths are not allowed'],
    ['a\0b', 'NUL'], ['é'.repeat(128), 'longer than 255 bytes'], ['a/'.repeat(1001), 'deeper than 1000'],
  ])('%j is refused: %s', (raw, reason) => {
    expect(() => safeRelativePath(raw)).toThrow(reason);
  });
});

// Where links resolve, against what a lookup says is at each path (a link and its target, or anything else).
describe('LinkGraph', () => {
  const judge = async (links: Record<string, string>, only?: string[]) => {
    const graph = new LinkGraph((key) => (key in links ? { kind: 'link', target: links[key] } : { kind: 'other' }));
    const refused = await graph.refusals(only ?? Object.keys(links));
    return { refused: Object.fromEntries([...refused].map(([link, err]) => [link, err.message])), steps: graph.steps };
  };

  test('a link that stays inside is not refused; one that climbs out, directly or through others, is', async () => {
    const { refused } = await judge({ 'a/l': '..', 'ok': 'a/l/a', 'x': 'a/l/a/l/../../etc', 'y': 'x/z', 'abs': '/etc', 'state': '.cdk-efs-kit/lock', 'loop': 'loop/x' });
    expect(refused).toEqual({
      x: 'refused "x": the link points outside the target (a/l/a/l/../../etc)',
      y: 'refused "y": the link leads through the link "x", which leaves the target or is refused',
      abs: 'refused "abs": the link points to an absolute path (/etc)',
      state: 'refused "state": the link points into the seed\'s own state (.cdk-efs-kit/lock)',
      loop: 'refused "loop": the link leads through the link "loop", which leaves the target or is refused',
    });
  });

  test('a name that is not a link could become a directory: .. after it climbs lexically', async () => {
    expect((await judge({ x: 'file-or-missing/../../y' })).refused).toEqual({ x: 'refused "x": the link points outside the target (file-or-missing/../../y)' });
  });

  test('links only the lookup knows (already in the target) are followed, and judged only where asked', async () => {
    expect((await judge({ up: '../..', x: 'up/outside/secret' }, ['x'])).refused).toEqual({ x: 'refused "x": the link leads through the link "up", which leaves the target or is refused' });
  });

  test('each link\'s target is walked once: chains of long targets cost steps linear in their total length', async () => {
    const k = 500;
    const links = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`l${i + 1}`, `l${i}${'/s/..'.repeat(k)}`]));
    const { refused, steps } = await judge(links);
    expect(refused).toEqual({});
    // Each target has 2k + 1 parts; walked again for every link that leads through it, the chain would take about 40 x 40 / 2 times that.
    expect(steps).toBe(40 * (2 * k + 1));
  });

  test('judged in any order, a chain deeper than 40 links is refused where it is reached that deep, and nothing else changes', async () => {
    const links = Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`l${i + 1}`, `l${i}/x`]));
    const { refused } = await judge(links, Object.keys(links).reverse());
    expect(Object.keys(refused)).toEqual(['l45', 'l44', 'l43', 'l42']);
    expect(refused.l45).toBe('refused "l45": the link leads through more than 40 links (a loop?)');
  });
});
