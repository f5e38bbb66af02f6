import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/storage.js';
import { scrape } from './scrape.js';

const DASHBOARD = path.resolve(import.meta.dirname, '../../../../docs/grafana-dashboard.json');
const SERIES = /\b((?:authority|process|nodejs)_[a-zA-Z0-9_]+)\b/g;
const SUFFIXES = ['_bucket', '_sum', '_count'];

/** Every PromQL expression of the dashboard's panels (rows included). */
function expressions(): string[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: Array<{ targets?: Array<{ expr: string }>; panels?: unknown[] }>;
    templating: { list: Array<{ definition?: string }> };
  };
  const fromPanels = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
  const fromVariables = dashboard.templating.list.flatMap((variable) => variable.definition ?? []);
  return [...fromPanels, ...fromVariables];
}

/** The metric family a series name belongs to (`x_bucket` of histogram `x` is `x`). */
function family(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const suffix = SUFFIXES.find((s) => name.endsWith(s));
  if (suffix === undefined) return undefined;
  const base = name.slice(0, -suffix.length);
  return types.get(base) === 'histogram' || types.get(base) === 'summary' ? base : undefined;
}

for (const engine of ENGINES) {
  describe(`docs/grafana-dashboard.json reads series a real scrape has (${engine})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(engine);
    });
    after(async () => t.close());

    it('every metric the dashboard queries is exposed by GET /metrics', async () => {
      const metrics = await scrape(t.app);
      const referenced = new Set(
        expressions().flatMap((expr) => [...expr.matchAll(SERIES)].map((m) => m[1] as string)),
      );
      assert.ok(referenced.size >= 20, `the dashboard queries ${referenced.size} series`);
      // SQLite has no connection pool and exposes no pool series (docs/observability.md).
      const expected = [...referenced].filter(
        (name) => engine === 'postgres' || !name.startsWith('authority_db_pool_'),
      );
      const missing = expected.filter((name) => family(name, metrics.types) === undefined);
      assert.deepEqual(missing, [], 'queried by the dashboard but not exposed');
    });
  });
}

describe('docs/grafana-dashboard.json imports', () => {
  it('every data source the import dialog asks for (__inputs) is used, and the datasource variable starts on it', () => {
    const text = readFileSync(DASHBOARD, 'utf8');
    const dashboard = JSON.parse(text) as {
      __inputs: Array<{ name: string; type: string; pluginId: string }>;
      templating: {
        list: Array<{ name: string; type: string; query?: string; current?: { value?: string } }>;
      };
    };
    assert.deepEqual(
      dashboard.__inputs.map((input) => [input.name, input.type, input.pluginId]),
      [['DS_PROMETHEUS', 'datasource', 'prometheus']],
    );
    // Grafana replaces ${DS_PROMETHEUS} everywhere in the file with the data source picked at import.
    const variable = dashboard.templating.list.find((v) => v.name === 'datasource');
    assert.equal(variable?.type, 'datasource');
    assert.equal(variable?.query, 'prometheus');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's import placeholder, literally
    assert.equal(variable?.current?.value, '${DS_PROMETHEUS}');
    // Every panel, query and variable reads the variable, so the choice reaches them all.
    const uids: unknown[] = [];
    JSON.parse(text, (key, value: unknown) => {
      if (key === 'datasource' && typeof value === 'object' && value !== null) {
        uids.push((value as { uid?: unknown }).uid);
      }
      return value;
    });
    assert.ok(uids.length > 20, `${uids.length} data source references`);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable reference, literally
    assert.deepEqual([...new Set(uids)], ['${datasource}']);
  });
});
