import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

/** One import of a source file: the file it names (relative to the root) or the package, and whether only types cross. */
export interface Import {
  readonly from: string;
  /** A file relative to the root for a relative import, else the package's name as written. */
  readonly to: string;
  readonly relative: boolean;
  /** `import type`, or every name imported is a type: erased at compile time, so no edge at run time. */
  readonly typeOnly: boolean;
}

/** The imports of one TypeScript source: import and export declarations, require() and import() calls. */
export function importsOf(file: string, text: string, resolve: (from: string, spec: string) => string | undefined): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: Import[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    const relative = spec.startsWith('.');
    const to = relative ? resolve(file, spec) : spec;
    if (to === undefined) throw new Error(`${file}: cannot resolve '${spec}'`);
    found.push({ from: file, to, relative, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypes = !!clause && (clause.isTypeOnly
        || (!clause.name && !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, allTypes);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0])
      && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every import of the .ts sources under `dirs` of `root`, with files named relative to `root`. */
export function importGraph(root: string, dirs: string[]): Import[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.ts') && !file.endsWith('.d.ts')) files.push(path.relative(root, file));
    }
  };
  dirs.forEach((dir) => walk(path.join(root, dir)));
  const resolve = (from: string, spec: string) => {
    const base = path.join(path.dirname(from), spec);
    return [`${base}.ts`, path.join(base, 'index.ts'), base].find((candidate) => fs.statSync(path.join(root, candidate), { throwIfNoEntry: false })?.isFile());
  };
  return files.flatMap((file) => importsOf(file, fs.readFileSync(path.join(root, file), 'utf8'), resolve));
}

/** The import circles among `imports` (strongly connected components of more than one file, or a file importing itself). */
export function circles(imports: Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const i of imports.filter((i) => i.relative)) next.set(i.from, [...(next.get(i.from) ?? []), i.to]);
  // Tarjan's algorithm.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || next.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) connect(v);
  return found;
}
