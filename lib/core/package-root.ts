import * as fs from 'fs';
import * as path from 'path';

/** The folder holding cdk-efs-kit's package.json, from compiled (dist/...) or source files alike. */
export function packageRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cdk-efs-kit: no package.json above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

export function packageVersion(): string {
  return JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')).version;
}
