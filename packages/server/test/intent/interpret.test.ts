import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Hypothesis,
  interpret,
  isInterpretable,
  MAX_ALTERNATES,
  VERB_TABLE,
  verbRow,
  words,
} from '../../src/intent/domain/interpret.js';

const h = (oiCode: string, operationType: 'read' | 'write', confidence: number): Hypothesis => ({
  oiCode,
  operationType,
  confidence,
});

/** The contract's table (§4.2), restated here so a drift of VERB_TABLE is caught. */
const TABLE: Array<[string[], string, 'read' | 'write']> = [
  [
    ['list', 'get', 'read', 'view', 'show', 'clone', 'fetch', 'diff', 'log', 'status', 'search', 'describe'],
    'OI-101',
    'read',
  ],
  [['create', 'update', 'push', 'delete', 'commit', 'tag'], 'OI-101', 'write'],
  [['merge', 'approve', 'close', 'comment', 'review', 'label'], 'OI-105', 'write'],
  [['deploy', 'release', 'rollback', 'promote'], 'OI-104', 'write'],
  [['run', 'exec', 'execute', 'build', 'test', 'dispatch'], 'OI-102', 'write'],
  [['drop', 'truncate', 'migrate'], 'OI-305', 'write'],
];

describe('interpretation: the verb table', () => {
  it('is exactly the contract table', () => {
    assert.deepEqual(
      VERB_TABLE.map((row) => [[...row.verbs], row.oiCode, row.operationType]),
      TABLE,
    );
  });

  for (const [verbs, code, operation] of TABLE) {
    for (const verb of verbs) {
      it(`"${verb}" → ${code} ${operation}: 0.9 as the first word, 0.7 later`, () => {
        assert.deepEqual(interpret(`${verb} the thing`, undefined), {
          primary: h(code, operation, 0.9),
          alternates: [],
        });
        assert.deepEqual(interpret(`please ${verb} the thing`, undefined), {
          primary: h(code, operation, 0.7),
          alternates: [],
        });
        assert.deepEqual(interpret(verb.toUpperCase(), undefined).primary, h(code, operation, 0.9));
        assert.equal(verbRow(verb)?.oiCode, code);
      });
    }
  }
});

describe('interpretation: words', () => {
  it('splits on non-alphanumerics and lower-cases', () => {
    assert.deepEqual(words('Merge PR #12 -> main!'), ['merge', 'pr', '12', 'main']);
    assert.deepEqual(words('  git.push_origin/main  '), ['git', 'push', 'origin', 'main']);
    assert.deepEqual(words(''), []);
    assert.deepEqual(words('---'), []);
    assert.deepEqual(words('Déployer Ünïcode'), ['déployer', 'ünïcode']);
  });

  it('finds verbs through punctuation and case', () => {
    assert.deepEqual(interpret('DELETE/branch', undefined).primary, h('OI-101', 'write', 0.9));
    assert.deepEqual(interpret('...Deploy!!!', undefined).primary, h('OI-104', 'write', 0.9));
    assert.deepEqual(interpret('Merge-PR #12', undefined).primary, h('OI-105', 'write', 0.9));
    assert.deepEqual(interpret('list_files', undefined).primary, h('OI-101', 'read', 0.9));
    assert.deepEqual(interpret('git.push', undefined).primary, h('OI-101', 'write', 0.7));
    assert.deepEqual(interpret('(view)', undefined).primary, h('OI-101', 'read', 0.9));
    assert.deepEqual(interpret('\tShOw\nstatus', undefined).primary, h('OI-101', 'read', 0.9));
  });

  it('matches whole words only', () => {
    for (const text of [
      'deployment of app',
      'createIssue',
      'listing',
      'merged',
      'rerun',
      'testing',
      'tags',
    ]) {
      assert.deepEqual(interpret(text, undefined).primary, h('OI-100', 'write', 0.3), text);
    }
  });

  it('counts a leading number as the first word', () => {
    assert.deepEqual(interpret('2 deploy', undefined).primary, h('OI-104', 'write', 0.7));
  });
});

describe('interpretation: confidence and mixing', () => {
  it('answers OI-100 write 0.3 for unknown verbs, without alternates', () => {
    assert.deepEqual(interpret('frobnicate the widget', undefined), {
      primary: h('OI-100', 'write', 0.3),
      alternates: [],
    });
    assert.deepEqual(interpret('日本語', undefined), { primary: h('OI-100', 'write', 0.3), alternates: [] });
    assert.deepEqual(interpret('', undefined), { primary: h('OI-100', 'write', 0.3), alternates: [] });
  });

  it('gives 0.6 and write when read and write verbs are mixed, the code of the first write verb', () => {
    assert.deepEqual(interpret('list files then delete them', undefined), {
      primary: h('OI-101', 'write', 0.6),
      alternates: [h('OI-101', 'read', 0.6)],
    });
    assert.deepEqual(interpret('view the PR and run the tests', undefined), {
      primary: h('OI-102', 'write', 0.6),
      alternates: [h('OI-101', 'read', 0.6)],
    });
    assert.deepEqual(interpret('merge after a diff', undefined), {
      primary: h('OI-105', 'write', 0.6),
      alternates: [h('OI-101', 'read', 0.6)],
    });
    assert.deepEqual(interpret('please show then deploy then merge', undefined), {
      primary: h('OI-104', 'write', 0.6),
      alternates: [h('OI-101', 'read', 0.6), h('OI-105', 'write', 0.6)],
    });
  });

  it('keeps the first verb as primary when all verbs are writes', () => {
    assert.deepEqual(interpret('merge and deploy', undefined), {
      primary: h('OI-105', 'write', 0.9),
      alternates: [h('OI-104', 'write', 0.7)],
    });
    assert.deepEqual(interpret('then merge and deploy', undefined), {
      primary: h('OI-105', 'write', 0.7),
      alternates: [h('OI-104', 'write', 0.7)],
    });
  });

  it('keeps the first verb as primary when all verbs are reads', () => {
    assert.deepEqual(interpret('get status and log', undefined), {
      primary: h('OI-101', 'read', 0.9),
      alternates: [],
    });
  });

  it('merges repeated (code, operation) pairs', () => {
    assert.deepEqual(interpret('delete and push and delete', undefined), {
      primary: h('OI-101', 'write', 0.9),
      alternates: [],
    });
  });

  it('lists at most 3 alternates in order of appearance', () => {
    assert.equal(MAX_ALTERNATES, 3);
    assert.deepEqual(interpret('merge deploy run drop create', undefined), {
      primary: h('OI-105', 'write', 0.9),
      alternates: [h('OI-104', 'write', 0.7), h('OI-102', 'write', 0.7), h('OI-305', 'write', 0.7)],
    });
    assert.deepEqual(interpret('list merge deploy run drop', undefined), {
      primary: h('OI-105', 'write', 0.6),
      alternates: [h('OI-101', 'read', 0.6), h('OI-104', 'write', 0.6), h('OI-102', 'write', 0.6)],
    });
  });
});

describe('interpretation: args.operation and args.command', () => {
  it('reads args.operation and args.command as later words', () => {
    assert.deepEqual(interpret('do it', { operation: 'merge' }), {
      primary: h('OI-105', 'write', 0.7),
      alternates: [],
    });
    assert.deepEqual(interpret('do it', { command: 'git push origin main' }), {
      primary: h('OI-101', 'write', 0.7),
      alternates: [],
    });
    assert.deepEqual(interpret('do it', { command: 'list' }).primary, h('OI-101', 'read', 0.7));
  });

  it('reads proposedAction, then args.operation, then args.command', () => {
    assert.deepEqual(interpret('x', { command: 'deploy', operation: 'merge' }), {
      primary: h('OI-105', 'write', 0.7),
      alternates: [h('OI-104', 'write', 0.7)],
    });
    assert.deepEqual(interpret('drop it', { command: 'deploy', operation: 'merge' }), {
      primary: h('OI-305', 'write', 0.9),
      alternates: [h('OI-105', 'write', 0.7), h('OI-104', 'write', 0.7)],
    });
  });

  it('mixes across sources: a read action with a write command is a write', () => {
    assert.deepEqual(interpret('list files', { command: 'rm -rf x && git push' }), {
      primary: h('OI-101', 'write', 0.6),
      alternates: [h('OI-101', 'read', 0.6)],
    });
    assert.deepEqual(interpret('view', { operation: 'deploy' }).primary, h('OI-104', 'write', 0.6));
  });

  it('ignores other args fields and non-string values', () => {
    assert.deepEqual(
      interpret('show', { sql: 'DROP TABLE x', cmd: 'deploy' }).primary,
      h('OI-101', 'read', 0.9),
    );
    assert.deepEqual(
      interpret('show', { operation: 5, command: ['deploy'] }).primary,
      h('OI-101', 'read', 0.9),
    );
    assert.deepEqual(
      interpret('show', { operation: { verb: 'deploy' }, command: null }).primary,
      h('OI-101', 'read', 0.9),
    );
    assert.deepEqual(interpret('show', ['deploy']).primary, h('OI-101', 'read', 0.9));
    assert.deepEqual(interpret('show', 'deploy').primary, h('OI-101', 'read', 0.9));
    assert.deepEqual(interpret('show', null).primary, h('OI-101', 'read', 0.9));
  });

  it('treats the first word of args as a later word, never the first word', () => {
    assert.deepEqual(interpret('!!!', { operation: 'deploy' }).primary, h('OI-104', 'write', 0.7));
  });
});

describe('interpretation: isInterpretable', () => {
  it('refuses text with no letter or digit', () => {
    for (const text of ['', ' ', '\t\n', '!!!', '—', '...', '   -- ', '🙂']) {
      assert.equal(isInterpretable(text), false, JSON.stringify(text));
    }
  });

  it('accepts any letter or digit', () => {
    for (const text of ['a', '1', ' x ', 'é', '日本', '?? deploy ??', '_0_']) {
      assert.equal(isInterpretable(text), true, JSON.stringify(text));
    }
  });
});
