#!/usr/bin/env node
// Prints the OpenAPI document a fully configured server serves (admin routes included) to stdout.
import { withThrowawayServer } from '../packages/server/src/app/route-docs.ts';

const document = await withThrowawayServer(async (app) => {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
  return res.json();
});
process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
