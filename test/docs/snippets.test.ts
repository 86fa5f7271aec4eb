import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

// The TypeScript examples of docs/*.md compile, as the README's do under jsii-rosetta (which sees
// only the README and the API's @example tags): each ```ts block, its imports dropped, goes where
// rosetta/default.ts-fixture says `/// here`, in a stack with the quick start's pieces built, and
// the whole is type-checked against lib/ in strict mode.
const root = path.join(__dirname, '..', '..');
const fixture = fs.readFileSync(path.join(root, 'rosetta', 'default.ts-fixture'), 'utf8');
const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md'));

const snippets = docs.flatMap((doc) => {
  const text = fs.readFileSync(path.join(root, 'docs', doc), 'utf8');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m, i) => ({
    name: `${doc} #${i + 1} (line ${text.slice(0, m.index).split('\n').length})`,
    file: path.join(root, 'test', 'docs', `snippet-${doc.replace('.md', '')}-${i + 1}.ts`),
    source: fixture.replace("from 'cdk-efs-kit'", `from '${path.join(root, 'lib')}'`)
      .replace('/// here', m[1].split('\n').filter((line) => !/^import /.test(line)).join('\n')),
  }));
});

test('the docs hold TypeScript examples to check', () => {
  expect(snippets.length).toBeGreaterThanOrEqual(9);
});

test('every TypeScript example in docs/ compiles in the rosetta fixture', () => {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
    strict: true, noEmit: true, skipLibCheck: true, esModuleInterop: true, types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const bySnippet = new Map(snippets.map((s) => [s.file, s.source]));
  const read = host.readFile.bind(host);
  host.readFile = (file) => bySnippet.get(file) ?? read(file);
  const exists = host.fileExists.bind(host);
  host.fileExists = (file) => bySnippet.has(file) || exists(file);
  const getSource = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language) => (bySnippet.has(file) ? ts.createSourceFile(file, bySnippet.get(file)!, language) : getSource(file, language));
  const program = ts.createProgram([...bySnippet.keys()], options, host);
  const errors = snippets.flatMap((s) => ts.getPreEmitDiagnostics(program, program.getSourceFile(s.file))
    .filter((d) => d.code !== 6133) // a fixture value the example does not use
    .map((d) => `${s.name}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`));
  expect(errors).toEqual([]);
}, 120_000);
