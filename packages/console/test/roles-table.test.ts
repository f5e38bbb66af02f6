import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PERMISSIONS, PRIVILEGED_ROLES, ROLE_PERMISSIONS, ROLES } from '@authority-runtime/sdk/wire';
import {
  ALL_PERMISSIONS,
  ROLE_PERMISSIONS as CONSOLE_ROLE_PERMISSIONS,
  permissionsOf,
} from '../src/session/roles.js';

/**
 * The console keeps its own copy of the roles table of contract §2 so that its bundle does not load
 * the SDK; this test holds that copy to the wire contract's table, which the service enforces.
 */
describe("the console's roles table", () => {
  it('lists exactly the wire contract permissions, in order', () => {
    assert.deepEqual([...ALL_PERMISSIONS], [...PERMISSIONS]);
  });

  it("gives every role exactly the service's permissions, and no permission to an unknown role", () => {
    assert.deepEqual(Object.keys(CONSOLE_ROLE_PERMISSIONS).sort(), [...ROLES].sort());
    for (const role of ROLES) {
      assert.deepEqual([...permissionsOf(role)].sort(), [...ROLE_PERMISSIONS[role]].sort(), role);
    }
    assert.equal(permissionsOf('root').size, 0);
    assert.ok(PRIVILEGED_ROLES.every((role) => permissionsOf(role).size > 0));
  });
});
