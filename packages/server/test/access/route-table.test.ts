import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { collectRegisteredRoutes } from '../../src/app/route-docs.js';
import { needs, PUBLIC } from '../../src/http/access.js';
import {
  currentRouteTable,
  type RegisteredRoute,
  ROUTE_TABLE_END,
  ROUTE_TABLE_START,
  recordRoute,
  renderRouteTable,
  replaceRouteTable,
} from '../../src/http/route-table.js';

const DOC = path.resolve(import.meta.dirname, '../../../../docs/access-control.md');

describe('generated route → access table', () => {
  it('docs/access-control.md holds exactly the table the registered routes give (npm run docs:routes)', async () => {
    const expected = renderRouteTable(await collectRegisteredRoutes());
    const actual = currentRouteTable(readFileSync(DOC, 'utf8'));
    assert.ok(actual !== undefined, 'the route-table markers are missing from docs/access-control.md');
    assert.equal(actual, expected, 'the route table is stale: run `npm run docs:routes`');
  });

  it('renders one row per route and method, sorted, without HEAD twins or the docs assets', () => {
    const routes: RegisteredRoute[] = [];
    recordRoute(routes, ['GET', 'HEAD'], '/tenant', needs('any').access);
    recordRoute(routes, 'POST', '/keys', needs('keys:manage').access);
    recordRoute(routes, 'GET', '/keys', needs('keys:manage').access);
    recordRoute(routes, ['GET', 'HEAD'], '/docs', PUBLIC);
    recordRoute(routes, 'GET', '/docs/static/index.html', PUBLIC);
    recordRoute(routes, 'POST', '/portal/logout', { kind: 'portal' });
    recordRoute(routes, 'PATCH', '/admin/tenants/:id', { kind: 'admin' });
    assert.equal(routes.length, 7);
    assert.equal(
      renderRouteTable(routes),
      [
        '| Method | Path                 | Access                                    |',
        '| ------ | -------------------- | ----------------------------------------- |',
        '| PATCH  | `/admin/tenants/:id` | `x-admin-token`                           |',
        '| GET    | `/docs`              | public                                    |',
        '| GET    | `/keys`              | `keys:manage`                             |',
        '| POST   | `/keys`              | `keys:manage`                             |',
        '| POST   | `/portal/logout`     | portal session (second factor not needed) |',
        '| GET    | `/tenant`            | any valid credential                      |',
      ].join('\n'),
    );
  });

  it('replaces only the text between the markers, and refuses a document without them', () => {
    const doc = `# Title\n\nbefore\n\n${ROUTE_TABLE_START}\nold\n${ROUTE_TABLE_END}\n\nafter\n`;
    const updated = replaceRouteTable(doc, '| new |');
    assert.equal(
      updated,
      `# Title\n\nbefore\n\n${ROUTE_TABLE_START}\n| new |\n${ROUTE_TABLE_END}\n\nafter\n`,
    );
    assert.equal(currentRouteTable(updated), '| new |');
    assert.equal(replaceRouteTable(updated, '| new |'), updated, 'idempotent');
    assert.throws(() => replaceRouteTable('# no markers', 'x'));
    assert.equal(currentRouteTable('# no markers'), undefined);
  });
});
