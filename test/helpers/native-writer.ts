import * as path from 'path';
import { NativeWriter } from '../../lambda/seed/boundary/native-writer';

/** Where `npm run build` puts the seed's native writer (scripts/build-native.mjs). */
export const NATIVE_BUILD = path.join(__dirname, '..', '..', 'dist', 'handlers', 'seed', 'native');

let writer: NativeWriter | null | undefined;

/** The native writer built for this machine, one instance per test file (the tests need it built). */
export function builtNativeWriter(): NativeWriter {
  writer ??= NativeWriter.load([NATIVE_BUILD]);
  if (!writer) throw new Error(`no native writer for ${process.platform}-${process.arch} in ${NATIVE_BUILD}: build it with npm run build (which needs gcc)`);
  return writer;
}
