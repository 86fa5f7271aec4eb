/**
 * Every call the seed makes that resolves a path lives in lambda/seed/boundary/: there, each one goes
 * beneath a descriptor the seed holds (or is the one path a user names: the source, the target root).
 * Everywhere else in the seed, Node's file system module and lambda/shared/fs-calls are used for
 * descriptor calls only, and a name in the target reaches the file system as a HeldName the boundary
 * made. This test reads the seed's sources and names each call that would take a path.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

const SEED = path.join(__dirname, '..', '..', '..', 'lambda', 'seed');
const BOUNDARY = path.join(SEED, 'boundary');
const FS_CALLS = path.join(SEED, '..', 'shared', 'fs-calls.ts');
const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);

/** What the seed may use of Node's fs (and of fs-calls) outside the boundary: calls on a descriptor, constants, types. */
const DESCRIPTOR_CALLS = new Set([
  'constants', 'Stats', 'BigIntStats', 'Dirent',
  'close', 'closeSync', 'fstat', 'fstatSync', 'fchown', 'fchownSync', 'fchmod', 'fchmodSync', 'futimes', 'futimesSync',
  'fsync', 'fsyncSync', 'fdatasync', 'fdatasyncSync', 'ftruncate', 'ftruncateSync', 'read', 'readSync', 'write', 'writeSync', 'writeAll',
]);

function seedSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return file === BOUNDARY ? [] : seedSources(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** Each use of a path-taking file system call in `file`, as "<file>:<line>: <what>". */
function pathCalls(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const where = (node: ts.Node) => `${path.relative(SEED, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const isFsModule = (specifier: string) => FS_MODULES.has(specifier)
    || (specifier.startsWith('.') && path.resolve(path.dirname(file), specifier) + '.ts' === FS_CALLS);
  const namespaces = new Set<string>();

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier) && isFsModule(node.moduleSpecifier.text)) {
      const bindings = node.importClause?.namedBindings;
      if (node.importClause?.name) namespaces.add(node.importClause.name.text);
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          const name = (element.propertyName ?? element.name).text;
          if (!DESCRIPTOR_CALLS.has(name)) found.push(`${where(element)}: imports ${name} from ${node.moduleSpecifier.text}`);
        }
      }
    }
    if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0]) && isFsModule(node.arguments[0].text)
      && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      found.push(`${where(node)}: loads ${node.arguments[0].text}`);
    }
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && namespaces.has(node.expression.text)
      && !DESCRIPTOR_CALLS.has(node.name.text)) {
      found.push(`${where(node)}: ${node.expression.text}.${node.name.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('only lambda/seed/boundary/ calls the file system with a path', () => {
  const files = seedSources(SEED);
  expect(files.length).toBeGreaterThan(40);
  expect(files.flatMap(pathCalls)).toEqual([]);
});

test('the check finds each way of reaching a path call', () => {
  const dir = fs.mkdtempSync(path.join(SEED, 'copy', '.path-calls-'));
  try {
    const file = path.join(dir, 'sample.ts');
    fs.writeFileSync(file, [
      "import * as fs from 'fs';",
      "import { lstat, fstat } from 'fs/promises';",
      "import { readdir } from '../../../shared/fs-calls';",
      'fs.fstatSync(3);',
      "fs.lstatSync('/etc');",
      "fs.promises.open('/etc/passwd');",
      "const other = require('node:fs');",
    ].join('\n'));
    expect(pathCalls(file).map((line) => line.replace(/^[^:]*:/, ''))).toEqual([
      '2: imports lstat from fs/promises',
      '3: imports readdir from ../../../shared/fs-calls',
      '5: fs.lstatSync',
      '6: fs.promises',
      '7: loads node:fs',
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
