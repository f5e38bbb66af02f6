// Validation errors of a union of objects discriminated on a constant member (the physical state's
// `kind`) are narrowed to the branch the value names, or to one issue naming the allowed values;
// never to nothing while the value is invalid.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PhysicalState, PhysicalStateValue } from '@authority-runtime/sdk/wire';
import fc from 'fast-check';
import { type TSchema, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { toAppError } from '../../src/http/error-envelope.js';
import { type CheckError, narrowUnionErrors } from '../../src/http/union-errors.js';

const issuesOf = (schema: TSchema, value: unknown) =>
  toAppError(
    Object.assign(new Error('invalid'), {
      validation: narrowUnionErrors(schema, value, [...Compile(schema).Errors(value)] as CheckError[]),
      validationContext: 'body',
    }),
  ).appError.details?.issues as { path: string; message: string }[];

const attestation = { channel: 'plc-3' };

describe('errors of a discriminated union', () => {
  it('name the fault of the branch the value names, and only it', () => {
    assert.deepEqual(
      issuesOf(PhysicalState, {
        'safety/speed': { kind: 'number', value: 'NaN', asOfTimestampMs: 1, attestation },
      }),
      [{ path: '/safety~1speed/value', message: 'must be number' }],
    );
    assert.deepEqual(
      issuesOf(PhysicalState, { door: { kind: 'boolean', value: true, asOfTimestampMs: 1 } }),
      [{ path: '/door/attestation', message: 'is required' }],
    );
    // Its branch is checked again on its own: the union's own errors need not include it.
    assert.deepEqual(
      issuesOf(PhysicalState, { door: { kind: 'unavailable', reason: 'offline', attestation } }),
      [{ path: '/door/attestation', message: 'is not a known field' }],
    );
  });

  it('name the allowed values once when the discriminator names no branch', () => {
    assert.deepEqual(
      issuesOf(PhysicalState, { door: { kind: 'numbr', value: 1, asOfTimestampMs: 1, attestation } }),
      [{ path: '/door/kind', message: 'must be one of "boolean", "number", "string", "unavailable"' }],
    );
  });

  it('keep the values of a record apart, each narrowed to its own branch', () => {
    assert.deepEqual(
      issuesOf(PhysicalState, {
        a: { kind: 'boolean', value: true, asOfTimestampMs: 1, attestation },
        b: { kind: 'string', value: 7, asOfTimestampMs: 1, attestation },
      }),
      [{ path: '/b/value', message: 'must be string' }],
    );
  });

  it('leave other unions and valid values alone', () => {
    const mixed = Type.Object({ v: Type.Union([Type.Literal('a'), Type.Number()]) });
    const errors = [...Compile(mixed).Errors({ v: 'b' })] as CheckError[];
    assert.deepEqual(narrowUnionErrors(mixed, { v: 'b' }, errors), errors);
    assert.deepEqual(narrowUnionErrors(PhysicalStateValue, { kind: 'boolean', value: true }, []), []);
  });

  it('never leave an invalid value without an issue, nor give a valid one any (property)', () => {
    const check = Compile(PhysicalState);
    const member = fc.oneof(
      fc.constantFrom('boolean', 'number', 'string', 'unavailable', 'other'),
      fc.string(),
      fc.integer(),
    );
    const state = fc.dictionary(
      fc.string({ maxLength: 6 }),
      fc.record(
        {
          kind: member,
          value: fc.oneof(fc.boolean(), fc.double(), fc.string({ maxLength: 4 })),
          unit: fc.string({ maxLength: 3 }),
          reason: fc.string({ maxLength: 4 }),
          asOfTimestampMs: fc.oneof(fc.nat(), fc.constant(-1)),
          attestation: fc.constantFrom(attestation, { channel: '' }, 3),
          extra: fc.constant(true),
        },
        { requiredKeys: [] },
      ),
      { maxKeys: 3 },
    );
    fc.assert(
      fc.property(state, (value) => {
        const errors = [...check.Errors(value)] as CheckError[];
        const narrowed = narrowUnionErrors(PhysicalState, value, errors);
        assert.equal(narrowed.length === 0, check.Check(value), JSON.stringify({ value, narrowed }));
        // Every issue left is about a value the state holds.
        for (const error of narrowed) {
          const key = error.instancePath.split('/')[1]?.replaceAll('~1', '/').replaceAll('~0', '~');
          assert.ok(key !== undefined && Object.hasOwn(value, key), JSON.stringify(error));
        }
      }),
      { numRuns: 500 },
    );
  });
});
