/**
 * Type checks that work across copies of this package (an app with two copies in node_modules, or
 * a jsii language's own copy): `instanceof` compares against one copy's class, while a
 * `Symbol.for` key is the same in every copy. The `static isXxx(x)` methods use these, as aws-cdk's
 * `Stack.isStack` does.
 */
const key = (typeName: string) => Symbol.for(`cdk-efs-kit.${typeName}`);

/** Marks `obj` as a `typeName`. */
export function brand(obj: object, typeName: string): void {
  Object.defineProperty(obj, key(typeName), { value: true });
}

/** Whether `x` was marked as a `typeName` by any copy of this package. */
export function hasBrand(x: unknown, typeName: string): boolean {
  return x !== null && typeof x === 'object' && key(typeName) in x;
}
