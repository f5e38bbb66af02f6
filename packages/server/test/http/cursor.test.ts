import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AppError } from '../../src/errors/app-error.js';
import {
  decodeIdCursor,
  decodeIndexCursor,
  encodeIdCursor,
  encodeIndexCursor,
  nextIdCursor,
} from '../../src/foundation/cursor.js';

const refused = (work: () => unknown) =>
  assert.throws(work, (error: unknown) => error instanceof AppError && error.code === 'VALIDATION_ERROR');

describe('list cursors', () => {
  it('round-trip ids and chain indexes; no cursor is no position', () => {
    fc.assert(fc.property(fc.string({ maxLength: 100 }), (id) => decodeIdCursor(encodeIdCursor(id)) === id));
    fc.assert(fc.property(fc.nat(), (index) => decodeIndexCursor(encodeIndexCursor(index)) === index));
    assert.equal(decodeIdCursor(undefined), undefined);
    assert.equal(decodeIndexCursor(undefined), undefined);
  });

  it('refuse what is not one of ours with a 400, and the other kind of cursor too', () => {
    for (const bad of ['', 'not-base64!', 'e30', Buffer.from('{"after":"x"').toString('base64url')]) {
      refused(() => decodeIdCursor(bad));
      refused(() => decodeIndexCursor(bad));
    }
    refused(() => decodeIdCursor(encodeIndexCursor(7)));
    refused(() => decodeIndexCursor(encodeIdCursor('7')));
    refused(() => decodeIndexCursor(encodeIndexCursor(-1)));
    refused(() => decodeIdCursor(encodeIdCursor('x'.repeat(101))));
  });

  it('point the next page after the last item only when there is one', () => {
    const items = [{ id: 'a' }, { id: 'b' }];
    assert.equal(decodeIdCursor(nextIdCursor(items, true, (i) => i.id) ?? undefined), 'b');
    assert.equal(
      nextIdCursor(items, false, (i) => i.id),
      null,
    );
    assert.equal(
      nextIdCursor([], true, (i: { id: string }) => i.id),
      null,
    );
  });
});
