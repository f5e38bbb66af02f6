import type { PolicyPack } from './packs.js';
import type { Condition, ConditionGroup as RuleGroup } from './rule.js';

/**
 * `mcp-basics`: a policy for tool calls that come through the MCP gateway (contract §11), which
 * submits every call with `args = {tool, arguments}`. Read-only tools are approved, tools whose
 * names or arguments say they write, delete or execute escalate, and the catastrophic floor applies
 * as it always does (it is built in, ahead of every pack). Anything else falls to the default DENY.
 *
 * Names are split into words at separators and at camelCase humps (`write_file`, `write-file`,
 * `writeFile`, `fileWrite` all say "write"; `rewrite`, `writer` and `get_deleted_items` do not).
 * Arguments are scanned whole (keys and values, the tool name included) with the stricter word
 * list, since an argument that merely mentions "post" or "set" is common in a read.
 */

/** Verbs that, as a word of a tool's name, say the tool changes or runs something. */
const WRITE_NAME_WORDS = [
  'write',
  'overwrite',
  'append',
  'create',
  'add',
  'update',
  'upsert',
  'insert',
  'put',
  'post',
  'patch',
  'set',
  'edit',
  'modify',
  'rename',
  'move',
  'copy',
  'upload',
  'save',
  'commit',
  'push',
  'merge',
  'publish',
  'release',
  'deploy',
  'rollback',
  'apply',
  'install',
  'uninstall',
  'send',
  'comment',
  'approve',
  'close',
  'delete',
  'remove',
  'rm',
  'unlink',
  'destroy',
  'drop',
  'truncate',
  'purge',
  'erase',
  'wipe',
  'kill',
  'terminate',
  'exec',
  'execute',
  'run',
  'eval',
  'invoke',
  'spawn',
  'shell',
  'bash',
  'command',
  'script',
  'sudo',
  'chmod',
  'chown',
];

/** Words that, anywhere in the arguments, say the call writes, deletes or executes. */
const WRITE_ARGUMENT_WORDS = [
  'write',
  'overwrite',
  'delete',
  'remove',
  'rm',
  'rmdir',
  'unlink',
  'destroy',
  'drop',
  'truncate',
  'purge',
  'erase',
  'wipe',
  'kill',
  'exec',
  'execute',
  'eval',
  'spawn',
  'sudo',
  'chmod',
  'chown',
  'mkfs',
];

/** Verbs that, as a tool name's first word, say the tool only reads. */
const READ_NAME_WORDS = [
  'get',
  'list',
  'read',
  'search',
  'find',
  'fetch',
  'query',
  'describe',
  'show',
  'view',
  'lookup',
  'browse',
  'inspect',
  'count',
  'check',
  'status',
  'echo',
  'ping',
  'explain',
  'diff',
  'stat',
];

const capitalized = (words: readonly string[]) => words.map((w) => `${w[0]?.toUpperCase()}${w.slice(1)}`);

/**
 * A word of a name, then a word end (a separator, an upper-case letter or the end): after the start
 * or a separator, in any case; or as a camelCase hump. Two patterns, each well under the RE2
 * program size a saved pattern may have.
 */
const WRITE_NAME_WORD = `(^|[^A-Za-z0-9])(?i:${WRITE_NAME_WORDS.join('|')})([^a-z0-9]|$)`;
const WRITE_NAME_HUMP = `[a-z0-9](${capitalized(WRITE_NAME_WORDS).join('|')})([^a-z0-9]|$)`;
const WRITE_ARGUMENT = `(?i)(^|[^a-z0-9])(${WRITE_ARGUMENT_WORDS.join('|')})([^a-z0-9]|$)`;
const READ_NAME = `^(?i:${READ_NAME_WORDS.join('|')})([^a-z0-9]|$)`;

/** The starter's low-risk conditions: enough confidence, compliant, not production, sensitive or privileged, below escalateAt. */
const lowRisk = (): Condition[] => [
  { path: 'intent.confidence', op: 'GTE', valuePath: 'thresholds.lowConfidenceEscalateBelow' },
  { path: 'risk.policyCompliant', op: 'EQ', value: true },
  { path: 'risk.production', op: 'EQ', value: false },
  { path: 'risk.sensitive', op: 'EQ', value: false },
  { path: 'risk.privileged', op: 'EQ', value: false },
  { path: 'risk.score', op: 'LT', valuePath: 'thresholds.escalateAt' },
];

/**
 * The escalation rules match writes, and reads the policy would otherwise approve. A read at
 * elevated risk (production, sensitive, privileged, not compliant, high score) is denied by default
 * and stays denied: installed next to `starter`, this pack only ever raises severity.
 */
const writeOrLowRisk: RuleGroup = {
  any: [{ path: 'risk.operation_type', op: 'EQ', value: 'write' }, { all: lowRisk() }],
};

export const MCP_BASICS_PACK: PolicyPack = {
  id: 'mcp-basics',
  name: 'MCP basics',
  description:
    'For tool calls through the MCP gateway (args.tool, args.arguments): read-only tools are approved ' +
    'at low risk, tools whose names or arguments say write, delete or execute escalate to a human, ' +
    'the catastrophic floor still applies, and other tools are denied by default.',
  version: '1.0.0',
  rules: [
    {
      id: 'escalate-write-tools',
      description:
        'A tool whose name says it writes, deletes or executes (write_file, deleteIssue, run-shell) needs a human',
      effect: 'ESCALATE',
      priority: 40,
      conditions: {
        all: [
          {
            any: [
              { path: 'args.tool', op: 'MATCHES', value: WRITE_NAME_WORD },
              { path: 'args.tool', op: 'MATCHES', value: WRITE_NAME_HUMP },
            ],
          },
          writeOrLowRisk,
        ],
      },
    },
    {
      id: 'escalate-write-arguments',
      description:
        'A call whose arguments say write, delete or execute (a key or value such as "delete" or "rm -r") needs a human',
      effect: 'ESCALATE',
      priority: 50,
      conditions: {
        all: [
          { path: 'args.tool', op: 'EXISTS' },
          { path: 'args', op: 'MATCHES', value: WRITE_ARGUMENT },
          writeOrLowRisk,
        ],
      },
    },
    {
      id: 'allow-read-only-tools',
      description:
        'Approve a tool whose name starts with a read verb (get_, list_, read_, search_, …) at low risk, ' +
        'outside production, sensitive data and privileged access',
      effect: 'ALLOW',
      priority: 100,
      conditions: { all: [{ path: 'args.tool', op: 'MATCHES', value: READ_NAME }, ...lowRisk()] },
    },
  ],
};
