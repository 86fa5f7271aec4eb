import { safeRelativePath } from '../lambda/seed/safety';

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
