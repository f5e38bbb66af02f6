import { readFileSync } from 'node:fs';
import {
  Actor,
  type RiskContext,
  RiskContext as RiskContextSchema,
  TargetSystem,
} from '@authority-runtime/sdk/wire';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { ConfigError } from '../config/config.js';
import { compileGlob, type Glob } from '../policy/glob.js';

/**
 * The gateway's config file (contract §11): `{targetSystem, adapterId?, actor?, defaultRiskContext?,
 * tools?: {"<tool name or glob>": {targetSystem?, riskContext?, hidden?}}}`, validated at start.
 * Tool entries are globs with the policy bindings' syntax (`*` any run, `?` one character) and the
 * first matching entry in file order applies.
 */

const ToolEntry = Type.Object(
  {
    targetSystem: Type.Optional(TargetSystem),
    riskContext: Type.Optional(RiskContextSchema),
    hidden: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const ConfigFile = Type.Object(
  {
    targetSystem: TargetSystem,
    adapterId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    actor: Type.Optional(Actor),
    defaultRiskContext: Type.Optional(RiskContextSchema),
    tools: Type.Optional(Type.Record(Type.String({ minLength: 1 }), ToolEntry)),
  },
  { additionalProperties: false },
);
type ConfigFile = Static<typeof ConfigFile>;

const checkConfig = Compile(ConfigFile);
const checkTargetSystem = Compile(TargetSystem);

export const DEFAULT_ADAPTER_ID = 'external';
export const DEFAULT_RISK_CONTEXT: RiskContext = { baseRiskScore: 10 };

/** What applies to one tool: where it acts, the risk it declares, and whether the agent sees it. */
export interface ToolSettings {
  targetSystem: string;
  riskContext: RiskContext;
  hidden: boolean;
}

/** The validated configuration the gateway runs with. */
export interface GatewayConfig {
  targetSystem: string;
  adapterId: string;
  /** Fixed actor; `undefined` means `{id: "mcp:" + clientInfo.name, type: "agent"}` per session. */
  actor: Actor | undefined;
  /** The settings of a tool: the first matching entry in file order, else the defaults. */
  toolSettings(name: string): ToolSettings;
}

interface CompiledEntry {
  glob: Glob;
  targetSystem: string | undefined;
  riskContext: RiskContext | undefined;
  hidden: boolean;
}

function buildConfig(file: ConfigFile, order: readonly string[]): GatewayConfig {
  const defaultRisk = file.defaultRiskContext ?? DEFAULT_RISK_CONTEXT;
  const entries: CompiledEntry[] = order.map((pattern) => {
    const entry = file.tools?.[pattern] ?? {};
    return {
      glob: compileGlob(pattern),
      targetSystem: entry.targetSystem,
      riskContext: entry.riskContext,
      hidden: entry.hidden === true,
    };
  });
  return {
    targetSystem: file.targetSystem,
    adapterId: file.adapterId ?? DEFAULT_ADAPTER_ID,
    actor: file.actor,
    toolSettings(name) {
      const entry = entries.find((candidate) => candidate.glob.test(name));
      return {
        targetSystem: entry?.targetSystem ?? file.targetSystem,
        riskContext: entry?.riskContext ?? defaultRisk,
        hidden: entry?.hidden ?? false,
      };
    },
  };
}

/** `/tools/write_*\/hidden` → `tools["write_*"].hidden` (JSON Pointer, RFC 6901, to a readable path). */
function readablePath(pointer: string): string {
  if (pointer === '') return '(the document)';
  const parts = pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  parts.forEach((part, index) => {
    const toolName = index === 1 && parts[0] === 'tools';
    if (/^\d+$/.test(part) && !toolName) out += `[${part}]`;
    else if (!toolName && /^[A-Za-z_$][\w$]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  });
  return out;
}

interface SchemaError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

function firstIssue(value: unknown): string {
  for (const error of checkConfig.Errors(value) as unknown as SchemaError[]) {
    if (error.keyword === 'boolean' && error.schemaPath.endsWith('/additionalProperties')) continue;
    const named = error.params.additionalProperties ?? error.params.requiredProperties;
    if ((error.keyword === 'additionalProperties' || error.keyword === 'required') && Array.isArray(named)) {
      const field = `${error.instancePath}/${String(named[0]).replace(/~/g, '~0').replace(/\//g, '~1')}`;
      return `${readablePath(field)}: ${error.keyword === 'required' ? 'is required' : 'is not a known field'}`;
    }
    return `${readablePath(error.instancePath)}: ${error.message}`;
  }
  return '(the document): is not a valid gateway configuration';
}

/** The tool patterns in file order (JSON.parse would move integer-like keys first), refusing duplicates. */
function toolOrder(text: string, source: string): string[] {
  const tools = findNodeAtLocation(parseTree(text) ?? { type: 'null', offset: 0, length: 0 }, ['tools']);
  const keys = (tools?.children ?? []).map((property) => String(property.children?.[0]?.value));
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) throw new ConfigError(source, `tools[${JSON.stringify(key)}]: is given twice`);
    seen.add(key);
  }
  return keys;
}

function checkGithubTargets(file: ConfigFile, source: string): void {
  const check = (risk: RiskContext | undefined, targetSystem: string, where: string) => {
    const github = risk?.github;
    if (github && `${github.owner}/${github.repo}` !== targetSystem) {
      throw new ConfigError(
        source,
        `${where}.github: owner/repo (${github.owner}/${github.repo}) must equal the targetSystem (${targetSystem})`,
      );
    }
  };
  check(file.defaultRiskContext, file.targetSystem, 'defaultRiskContext');
  for (const [pattern, entry] of Object.entries(file.tools ?? {})) {
    const risk = entry.riskContext ?? (entry.targetSystem ? file.defaultRiskContext : undefined);
    check(risk, entry.targetSystem ?? file.targetSystem, `tools[${JSON.stringify(pattern)}].riskContext`);
  }
}

/**
 * Parses and validates a config file's text; every error is a {@link ConfigError} that names the
 * file and the path inside it, e.g. `--config gateway.json: tools["write_*"].hidden: must be boolean`.
 */
export function parseGatewayConfig(text: string, file: string): GatewayConfig {
  const source = `--config ${file}:`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(source, `is not valid JSON (${(error as Error).message})`);
  }
  if (!checkConfig.Check(value)) throw new ConfigError(source, firstIssue(value));
  checkGithubTargets(value, source);
  return buildConfig(value, toolOrder(text, source));
}

/** Reads and validates the config file (see {@link parseGatewayConfig}). */
export function loadGatewayConfig(file: string): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `--config ${file}:`,
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  return parseGatewayConfig(text, file);
}

/** The configuration without a file: `targetSystem` from `AUTHORITY_TARGET_SYSTEM`, every other setting by default. */
export function configFromTargetSystem(targetSystem: string): GatewayConfig {
  if (!checkTargetSystem.Check(targetSystem)) {
    throw new ConfigError('AUTHORITY_TARGET_SYSTEM', 'must be owner/repo (GitHub form, e.g. acme/mcp-tools)');
  }
  return buildConfig({ targetSystem }, []);
}
