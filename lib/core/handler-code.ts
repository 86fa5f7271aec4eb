import * as fs from 'fs';
import * as path from 'path';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { packageRoot } from './package-root';

/**
 * The pre-bundled handler `name` (built by `npm run build` into dist/handlers/<name>).
 * Works both from the compiled package (dist/lib/private) and from sources run by ts-jest/tsx.
 */
export function handlerCode(name: string): lambda.Code {
  return lambda.Code.fromAsset(handlerDir(name));
}

export function handlerDir(name: string): string {
  const dir = path.join(packageRoot(), 'dist', 'handlers', name);
  if (!fs.existsSync(path.join(dir, 'index.js'))) {
    throw new Error(`cdk-efs-kit: the bundled handler '${name}' is missing at ${dir}; run 'npm run build' first.`);
  }
  return dir;
}
