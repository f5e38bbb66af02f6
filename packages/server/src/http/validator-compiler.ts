import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { type CheckError, narrowUnionErrors } from './union-errors.js';

/** Decimal digits, optionally signed, with an optional fraction: no exponent, hex, blank or sign `+`. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Whether `converted` is what the text `raw` says, written plainly (`7`, `1.5`, `true`, `null`). */
function writtenAs(raw: unknown, converted: unknown): boolean {
  if (typeof raw !== 'string') return true;
  switch (typeof converted) {
    case 'number':
      return DECIMAL.test(raw) && Number(raw) === converted;
    case 'boolean':
      return raw === String(converted);
    case 'object':
      return converted !== null || raw === 'null';
    default:
      return true;
  }
}

/**
 * The top-level members of a query, path or header schema that conversion may turn from text into
 * another type (all of them when the schema names none); string members stay as they arrive.
 */
function convertibleMembers(schema: TSchema): readonly string[] | undefined {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties;
  if (properties === undefined) return undefined;
  return Object.keys(properties).filter((key) => properties[key]?.type !== 'string');
}

/** The text of the convertible members, before conversion rewrites them in place. */
function snapshot(
  value: unknown,
  members: readonly string[] | undefined,
): Record<string, unknown> | undefined {
  if (members?.length === 0) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of members ?? Object.keys(record)) {
    if (!Object.hasOwn(record, key)) continue;
    const member = record[key];
    copy[key] = Array.isArray(member) ? [...member] : member;
  }
  return copy;
}

/**
 * TypeBox validation for every part of a request. The query string, path parameters and headers
 * arrive as text and are converted to the schema's types as `@fastify/type-provider-typebox` does,
 * but only where the text says exactly that value: `1.9`, `1e1`, `0x2`, `true` or an empty value
 * for an integer stay text, so the check refuses them naming the parameter (contract §1) instead of
 * acting on a number the caller never wrote. Bodies are JSON and are checked as they are.
 */
export const strictTypeBoxValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const validator = Compile(schema);
  const members = convertibleMembers(schema);
  return (value: unknown) => {
    let checked = value;
    if (httpPart !== 'body') {
      const raw = snapshot(value, members);
      checked = Value.Convert(schema, value);
      if (raw !== undefined && typeof checked === 'object' && checked !== null) {
        const converted = checked as Record<string, unknown>;
        for (const [key, text] of Object.entries(raw)) {
          const member = converted[key];
          const exact = Array.isArray(text)
            ? Array.isArray(member) &&
              member.length === text.length &&
              text.every((item, index) => writtenAs(item, member[index]))
            : writtenAs(text, member);
          if (!exact) converted[key] = text;
        }
      }
    }
    if (validator.Check(checked)) return { value: checked };
    return { error: narrowUnionErrors(schema, checked, [...validator.Errors(checked)] as CheckError[]) };
  };
};
