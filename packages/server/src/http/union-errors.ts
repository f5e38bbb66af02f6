import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/** One error of a TypeBox check, as `Compile(schema).Errors(value)` yields it. */
export interface CheckError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

const BRANCH = /^(.*\/anyOf)\/(\d+)(?=\/|$)/;
const DISCRIMINATOR = /^(.*\/anyOf)\/\d+\/properties\/([^/]+)$/;

const unescapeSegment = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** The value at a JSON Pointer (`#/a/b` or `/a/b`), or undefined. */
function at(root: unknown, pointer: string): unknown {
  let node = root;
  for (const segment of pointer.replace(/^#/, '').split('/').slice(1).map(unescapeSegment)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

const compiledBranches = new WeakMap<TSchema, ReturnType<typeof Compile>>();

/**
 * Every error of `value` against one branch, itself narrowed: a union's own errors need not
 * include every branch's, so the branch the value names is checked again on its own (compiled
 * once per branch, on the error path only).
 */
function branchErrors(branch: TSchema, value: unknown): CheckError[] {
  let compiled = compiledBranches.get(branch);
  if (compiled === undefined) {
    compiled = Compile(branch);
    compiledBranches.set(branch, compiled);
  }
  return narrowUnionErrors(branch, value, [...compiled.Errors(value)] as CheckError[]);
}

/** Whether `prefix` names `path` or one of its ancestors, segment by segment. */
const covers = (prefix: string, path: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The constant each branch of a union gives its member `name`, when every branch gives one. */
function discriminants(branches: unknown, name: string): unknown[] | undefined {
  if (!Array.isArray(branches)) return undefined;
  const values = branches.map(
    (branch) => (branch as { properties?: Record<string, { const?: unknown }> }).properties?.[name]?.const,
  );
  return values.every((value) => value !== undefined) ? values : undefined;
}

/**
 * The errors of a failed check with every union of objects discriminated on a constant member (the
 * physical state's `kind`, say) narrowed to the branch the value names: a `{kind: "number", value:
 * "NaN"}` is told that its value must be a number, not what the boolean, string and unavailable
 * branches would have wanted; a `kind` no branch has is one error naming the allowed values. Other
 * errors pass unchanged; identical ones are kept once.
 */
export function narrowUnionErrors(
  schema: unknown,
  value: unknown,
  errors: readonly CheckError[],
): CheckError[] {
  // Each union object that failed: its schema path, its instance path, its discriminator member.
  const unions: { union: string; instance: string; segment: string }[] = [];
  for (const error of errors) {
    const match = error.keyword === 'const' ? DISCRIMINATOR.exec(error.schemaPath) : null;
    if (match === null) continue;
    const [, union = '', segment = ''] = match;
    const instance = error.instancePath.slice(0, error.instancePath.lastIndexOf('/'));
    if (!unions.some((u) => u.union === union && u.instance === instance)) {
      unions.push({ union, instance, segment });
    }
  }
  let narrowed = [...errors];
  for (const { union, instance, segment } of unions) {
    const branches = at(schema, union);
    const constants = discriminants(branches, unescapeSegment(segment));
    if (constants === undefined) continue;
    const inUnion = (error: CheckError) => {
      const branch = BRANCH.exec(error.schemaPath);
      return branch?.[1] === union && covers(instance, error.instancePath) ? Number(branch[2]) : undefined;
    };
    const chosen = constants.indexOf(at(value, `${instance}/${segment}`));
    const first = narrowed.findIndex((error) => inUnion(error) !== undefined);
    if (first === -1) continue;
    const kept = narrowed.filter((error) => inUnion(error) === undefined);
    kept.splice(
      first,
      0,
      ...(chosen === -1
        ? [
            {
              keyword: 'enum',
              schemaPath: union,
              instancePath: `${instance}/${segment}`,
              params: { allowedValues: constants },
              message: 'must be one of the allowed values',
            },
          ]
        : branchErrors((branches as TSchema[])[chosen] as TSchema, at(value, instance)).map((error) => ({
            ...error,
            schemaPath: `${union}/${chosen}${error.schemaPath.replace(/^#/, '')}`,
            instancePath: `${instance}${error.instancePath}`,
          }))),
    );
    narrowed = kept;
  }
  const seen = new Set<string>();
  return narrowed.filter((error) => {
    const key = `${error.keyword} ${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
