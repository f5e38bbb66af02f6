import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import { type Executor, engineOf } from './database.js';

/**
 * A stand-in for one argument while the query is built: a string no caller's value can equal by
 * accident, carrying the argument's position.
 */
const MARK = '\u0000authority-compiled-query-argument:';

/** Where each parameter of the compiled SQL comes from: an argument's position, or a constant. */
type Slot = { argument: number } | { constant: unknown };

interface Template<O> {
  compiled: CompiledQuery<O>;
  slots: Slot[];
  /** How many leaves the arguments of this shape have. */
  leafCount: number;
}

/** The leaves of an argument list (primitives and null), depth first, in the builder's order. */
function leaves(args: unknown, into: unknown[]): unknown[] {
  if (Array.isArray(args)) {
    for (const item of args) leaves(item, into);
    return into;
  }
  if (args === undefined) throw new TypeError('a compiled query argument is undefined: pass null');
  if (typeof args === 'object' && args !== null) {
    for (const key of Object.keys(args)) leaves((args as Record<string, unknown>)[key], into);
    return into;
  }
  into.push(args);
  return into;
}

/** The arguments' structure with each leaf replaced by its stand-in. */
function standIns<A>(args: A): A {
  let position = 0;
  const replace = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(replace);
    if (typeof value === 'object' && value !== null) {
      const copy: Record<string, unknown> = {};
      for (const key of Object.keys(value)) copy[key] = replace((value as Record<string, unknown>)[key]);
      return copy;
    }
    return `${MARK}${position++}`;
  };
  return replace(args) as A;
}

function slotsOf(parameters: readonly unknown[], count: number): Slot[] {
  const used = new Set<number>();
  const slots = parameters.map((parameter): Slot => {
    if (typeof parameter === 'string' && parameter.startsWith(MARK)) {
      const digits = parameter.slice(MARK.length);
      if (!/^\d+$/.test(digits)) throw new Error('a compiled query argument was changed before it was bound');
      const argument = Number(digits);
      used.add(argument);
      return { argument };
    }
    return { constant: parameter };
  });
  if (used.size !== count) {
    throw new Error('a compiled query must bind every argument as a parameter, each exactly as given');
  }
  return slots;
}

/**
 * A query whose SQL Kysely builds and compiles once per engine and per shape, then runs with new
 * arguments: Kysely otherwise builds, freezes and compiles the whole query tree on every call,
 * which was the largest block of a decision's time (docs/performance.md). The builder gets
 * stand-ins shaped like the arguments (arrays and objects kept, each primitive replaced) and must
 * use every one of them as a value, as it is; constants it writes itself are kept as they are.
 * `shapeOf` names the structure of an argument list (e.g. its number of rows): arguments of
 * different shapes compile separately. Arguments must not be undefined (an insert would drop the
 * column), and a builder must not branch on their values.
 */
export function compiledQuery<A, O>(
  build: (db: Executor, args: A) => Compilable<O>,
  shapeOf: (args: A) => string | number = () => '',
): (executor: Executor, args: A) => Promise<QueryResult<O>> {
  const templates = new Map<string, Template<O>>();
  return (executor, args) => {
    const values = leaves(args, []);
    const key = `${engineOf(executor)}:${shapeOf(args)}`;
    let template = templates.get(key);
    if (template === undefined) {
      const compiled = build(executor, standIns(args)).compile();
      template = { compiled, slots: slotsOf(compiled.parameters, values.length), leafCount: values.length };
      templates.set(key, template);
    } else if (values.length !== template.leafCount) {
      throw new Error('compiled query arguments of one shape must have the same structure');
    }
    const parameters = template.slots.map((slot) =>
      'argument' in slot ? values[slot.argument] : slot.constant,
    );
    return executor.executeQuery<O>({ ...template.compiled, parameters });
  };
}
