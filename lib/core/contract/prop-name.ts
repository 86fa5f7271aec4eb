/**
 * How messages name a prop or argument, so that users of every jsii language recognise it: its
 * name as TypeScript, Java and C# spell it, and beside it Python's snake_case where that differs,
 * e.g. `accessPoint (access_point)`, `archiveLimits.maxMemberSize (archive_limits.max_member_size)`.
 * (Go spells it `AccessPoint`, which the first name gives away.) The library cannot tell which
 * language called it: jsii runs the same JavaScript for all of them.
 */
export function propName(text: string): string {
  // The first name in `text` that Python spells otherwise, e.g. in `the function's vpcSubnets` or
  // `timeLimit (seconds)`; a name that already has its Python spelling beside it is left as it is.
  return text.replace(/(?<![\w.'])[a-z][A-Za-z\d]*(?:\.[a-z][A-Za-z\d]*)*/g, (() => {
    let done = false;
    return (path: string, at: number) => {
      const python = path.split('.').map(snakeCaseOf).join('.');
      if (done || python === path) return path;
      done = true;
      return text.startsWith(` (${python})`, at + path.length) ? path : `${path} (${python})`;
    };
  })());
}

/** Python's spelling of a camelCase name, as jsii-pacmak makes it (codemaker's toSnakeCase: KiB, MiB and GiB are one word). */
export function snakeCaseOf(name: string): string {
  return name
    .replace(/(^|[^A-Z])(KiB|MiB|GiB)($|[^a-z])/g, (_, before: string, unit: string, after: string) => `${before}${unit[0]}${unit.slice(1).toLowerCase()}${after}`)
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z\d]+)/g, '$1_$2')
    .toLowerCase();
}
