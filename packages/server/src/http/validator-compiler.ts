import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

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

function snapshot(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) copy[key] = Array.isArray(member) ? [...member] : member;
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
  return (value: unknown) => {
    let checked = value;
    if (httpPart !== 'body') {
      const raw = snapshot(value);
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
    return { error: validator.Errors(checked) };
  };
};
