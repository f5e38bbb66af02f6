#!/usr/bin/env node
// Writes the generated route → access table into docs/access-control.md (npm run docs:routes).
// test/access/route-table.test.ts fails when the file differs from what the registered routes give.
import path from 'node:path';
import { writeRouteDocs } from '../packages/server/src/app/route-docs.ts';

const file = path.resolve(import.meta.dirname, '../docs/access-control.md');
const changed = await writeRouteDocs(file);
process.stdout.write(`${changed ? 'Updated' : 'Unchanged'}: ${path.relative(process.cwd(), file)}\n`);
