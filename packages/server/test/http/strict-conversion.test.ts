import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type TSchema, Type } from 'typebox';
import { strictTypeBoxValidatorCompiler } from '../../src/http/validator-compiler.js';

const schema = Type.Object({
  i: Type.Optional(Type.Integer()),
  n: Type.Optional(Type.Number()),
  b: Type.Optional(Type.Boolean()),
  s: Type.Optional(Type.String()),
  u: Type.Optional(Type.Union([Type.Integer(), Type.Literal('latest')])),
  list: Type.Optional(Type.Array(Type.Integer())),
});

function validate(value: Record<string, unknown>, httpPart = 'querystring') {
  const check = strictTypeBoxValidatorCompiler({
    schema: schema as TSchema,
    method: 'GET',
    url: '/',
    httpPart,
  });
  return check(value) as { value?: unknown; error?: unknown };
}

describe('the query string, path and headers convert only text that says the value exactly', () => {
  it('converts decimal digits, plain decimals, true/false, and leaves strings alone', () => {
    const accepted: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ i: '7' }, { i: 7 }],
      [{ i: '-3' }, { i: -3 }],
      [{ i: '007' }, { i: 7 }],
      [{ n: '1.5' }, { n: 1.5 }],
      [{ n: '2' }, { n: 2 }],
      [{ b: 'true' }, { b: true }],
      [{ b: 'false' }, { b: false }],
      [{ s: '1.9' }, { s: '1.9' }],
      [{ u: '4' }, { u: 4 }],
      [{ u: 'latest' }, { u: 'latest' }],
      [{ list: ['1', '2'] }, { list: [1, 2] }],
    ];
    for (const [input, expected] of accepted) {
      const result = validate({ ...input });
      assert.equal(result.error, undefined, JSON.stringify(input));
      assert.deepEqual(result.value, expected);
    }
  });

  it('refuses what would only convert by truncating, reading hex or an exponent, or from a blank', () => {
    const refused: Array<Record<string, unknown>> = [
      { i: '1.9' },
      { i: '1e1' },
      { i: '0x2' },
      { i: '' },
      { i: ' 1' },
      { i: '+1' },
      { i: 'true' },
      { n: '1e3' },
      { n: 'Infinity' },
      { n: '.5' },
      { b: '1' },
      { b: 'TRUE' },
      { u: '2.5' },
      { list: ['1', '2.5'] },
    ];
    for (const input of refused) {
      const result = validate({ ...input });
      assert.notEqual(
        result.error,
        undefined,
        `${JSON.stringify(input)} was accepted as ${JSON.stringify(result.value)}`,
      );
    }
  });

  it('checks bodies as they are: JSON already has types', () => {
    assert.equal(validate({ i: 7 }, 'body').error, undefined);
    assert.notEqual(validate({ i: '7' }, 'body').error, undefined);
  });
});
