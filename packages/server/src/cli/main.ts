#!/usr/bin/env node
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { type Config, ConfigError } from '../config/config.js';
import { AppError } from '../errors/app-error.js';
import { systemClock } from '../foundation/clock.js';
import { VERSION } from '../foundation/version.js';
import type { Storage } from '../storage/database.js';
import { PLANS } from '../tenancy/tenant.js';
import type { GlobalFlags } from './context.js';
import { gatewayCommand } from './gateway.js';
import { logCommand } from './log-monitor.js';
import { PolicyTestInputError } from './policy-input-error.js';
import { USAGE_ERROR_AS_VERDICT } from './verdict-output.js';
import { witnessCommand } from './witness.js';

// Each command loads the modules it needs when it runs, so that `authority receipt verify` does not
// wait for the database drivers, and no command but `serve` for the HTTP service.

/** Opens the database (context.ts) for `work`, loaded on demand. */
async function withStorage<T>(
  flags: GlobalFlags,
  work: (storage: Storage, config: Config) => Promise<T>,
  options?: { create?: boolean },
): Promise<T> {
  return (await import('./context.js')).withStorage(flags, work, options);
}

const tenantService = async (storage: Storage) =>
  (await import('../tenancy/tenant-service.js')).createTenantService(storage, systemClock);
const keyService = async (storage: Storage) =>
  (await import('../tenancy/key-service.js')).createKeyService(storage, systemClock, () => {});

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

/** `--scopes a,b`: at least one permission; leaving the option out gives the role's every permission. */
function permissionList(value: string): string[] {
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (scopes.length === 0) {
    throw new InvalidArgumentError(
      'names no permission (leave --scopes out for every permission of the role)',
    );
  }
  return scopes;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Commands naming a tenant fail on an unknown one rather than answer as if it had nothing. */
async function mustExist(storage: Storage, tenantId: string): Promise<void> {
  if (!(await (await tenantService(storage)).get(tenantId))) {
    throw new AppError('NOT_FOUND', `No tenant ${tenantId}`);
  }
}

const program = new Command('authority')
  .description('Authority Runtime: authorization for AI agents and physical machines')
  .version(VERSION, '-V, --version', 'print the version')
  .option('--data-dir <dir>', 'SQLite data directory (embedded mode; env DATA_DIR)')
  .option('--database-url <url>', 'PostgreSQL URL (server mode; env DATABASE_URL)')
  .option('--log-level <level>', 'log level (env LOG_LEVEL)')
  .showHelpAfterError();

const globals = (command: Command): GlobalFlags => command.optsWithGlobals() as GlobalFlags;

program
  .command('serve')
  .description('run the HTTP service (migrates the embedded database; prints a demo key on a first start)')
  .option('--port <port>', 'port to listen on (env PORT, default 8080)')
  .option('--host <host>', 'address to bind (env HOST)')
  .option('--demo', 'create the demo tenant on an empty database in server mode too')
  // Loaded on demand: the HTTP service is most of the code, and no other command needs it.
  .action(async (_options, command: Command) => (await import('./serve.js')).serve(globals(command)));

program
  .command('migrate')
  .description('apply pending database migrations')
  .action(async (_options, command: Command) => {
    await withStorage(
      globals(command),
      async (storage) => {
        process.stdout.write(`Database is at the latest schema (${storage.dialect}).\n`);
      },
      { create: true },
    );
  });

const tenants = program.command('tenants').description('manage tenants');
tenants
  .command('create <id>')
  .description('create a tenant and print it with its owner API key (shown once)')
  .option('--name <name>', 'display name (default: the id)')
  .addOption(new Option('--plan <plan>', 'plan').choices(PLANS).default('pro'))
  .option('--rate-limit <n>', 'requests per minute per key (enterprise plan)', positiveInteger)
  .action(
    async (id: string, options: { name?: string; plan: string; rateLimit?: number }, command: Command) => {
      await withStorage(
        globals(command),
        async (storage) => {
          print(
            await (await tenantService(storage)).create({
              id,
              name: options.name,
              plan: options.plan,
              rateLimitPerMinute: options.rateLimit,
            }),
          );
        },
        { create: true },
      );
    },
  );
tenants
  .command('list')
  .description('list tenants')
  .action(async (_options, command: Command) => {
    await withStorage(globals(command), async (storage) =>
      print(await (await tenantService(storage)).list()),
    );
  });

const keys = program.command('keys').description("manage a tenant's API keys");
keys
  .command('create')
  .description('create an API key and print it (shown once)')
  .requiredOption('--tenant <id>', 'tenant id')
  .requiredOption('--name <name>', 'key name')
  .requiredOption(
    '--role <role>',
    'role: owner, admin, policy_admin, senior_approver, approver, auditor, agent, edge',
  )
  .option('--scopes <list>', 'comma-separated permissions, a subset of the role', permissionList)
  .option('--expires-at <iso>', 'expiry as an ISO 8601 date-time')
  .action(
    async (
      options: { tenant: string; name: string; role: string; scopes?: string[]; expiresAt?: string },
      command: Command,
    ) => {
      await withStorage(globals(command), async (storage) => {
        await mustExist(storage, options.tenant);
        const service = await keyService(storage);
        print(
          await service.create(
            options.tenant,
            {
              name: options.name,
              role: options.role,
              scopes: options.scopes,
              expiresAt: options.expiresAt,
            },
            null,
          ),
        );
      });
    },
  );
keys
  .command('list')
  .description("list a tenant's API keys (never the secrets)")
  .requiredOption('--tenant <id>', 'tenant id')
  .action(async (options: { tenant: string }, command: Command) => {
    await withStorage(globals(command), async (storage) => {
      await mustExist(storage, options.tenant);
      print(await (await keyService(storage)).list(options.tenant));
    });
  });
keys
  .command('revoke <keyId>')
  .description('revoke an API key')
  .requiredOption('--tenant <id>', 'tenant id')
  .action(async (keyId: string, options: { tenant: string }, command: Command) => {
    await withStorage(globals(command), async (storage) => {
      await mustExist(storage, options.tenant);
      const { alreadyRevoked } = await (await keyService(storage)).revoke(options.tenant, keyId, null);
      process.stdout.write(alreadyRevoked ? `${keyId} was already revoked.\n` : `Revoked ${keyId}.\n`);
    });
  });

keys
  .command('rotate-physical')
  .description(
    'rotate the physical signing key (RS256, shared by every tenant); the JWKS keeps serving the previous key',
  )
  .action(async (_options, command: Command) => {
    await withStorage(globals(command), async (storage, config) => {
      if (config.physicalSignerEphemeral) {
        throw new ConfigError(
          'PHYSICAL_SIGNER_EPHEMERAL',
          'is set: an ephemeral key lives in the serving process and is not rotated from the CLI',
        );
      }
      const [{ createPhysicalSigner }, { createSecretBox }, { checkedMasterKey }] = await Promise.all([
        import('../physical/use-cases/physical-signer.js'),
        import('../crypto/secret-box.js'),
        import('./master-key-check.js'),
      ]);
      const signer = createPhysicalSigner({
        storage,
        clock: systemClock,
        secretBox: createSecretBox(await checkedMasterKey(config, storage)),
        bits: config.physicalKeyBits,
        ephemeral: false,
      });
      print(await signer.rotate());
    });
  });

const users = program.command('users').description("manage a tenant's console (portal) users");
users
  .command('create')
  .description(
    'create a console user; prints the user and, unless --password-stdin, a generated password (once)',
  )
  .requiredOption('--tenant <id>', 'tenant id')
  .requiredOption('--email <email>', 'sign-in email (unique per tenant)')
  .requiredOption(
    '--role <role>',
    'role: owner, admin, policy_admin, senior_approver, approver, auditor, agent, edge',
  )
  .option('--password-stdin', 'read the password from standard input instead of generating one')
  .action(
    async (
      options: { tenant: string; email: string; role: string; passwordStdin?: boolean },
      command: Command,
    ) => {
      const { generatePassword, readPasswordFromStdin } = await import('./user-password.js');
      const generated = options.passwordStdin ? undefined : generatePassword();
      const password = generated ?? (await readPasswordFromStdin());
      await withStorage(globals(command), async (storage) => {
        const { createPortalUser } = await import('../portal/portal-users.js');
        const user = await createPortalUser(
          storage,
          systemClock,
          options.tenant,
          { email: options.email, role: options.role, password },
          { id: 'authority-cli', type: 'operator' },
        );
        print(generated === undefined ? user : { ...user, password: generated });
      });
    },
  );
users
  .command('list')
  .description("list a tenant's console users (never passwords or second factors)")
  .requiredOption('--tenant <id>', 'tenant id')
  .action(async (options: { tenant: string }, command: Command) => {
    await withStorage(globals(command), async (storage) => {
      await mustExist(storage, options.tenant);
      const { listPortalUsers } = await import('../portal/portal-users.js');
      print(await listPortalUsers(storage, options.tenant));
    });
  });

const receipt = program.command('receipt').description('offline receipt tools');
receipt
  .command('verify <file>')
  .description(
    'verify a receipt (GET /intent/:id/receipt) offline against pinned keys; exit 0 valid, 1 invalid, 2 unreadable input',
  )
  .requiredOption(
    '--jwks <sources...>',
    "JWK set files or URLs to trust (a tenant's jwks.json URL brings its archive)",
  )
  .option(
    '--log-key <key|file|url>',
    "the tenant's log verifier key (GET /.well-known/authority/:tenantId/log-key), a file holding it or its URL; required for version-2 receipts",
  )
  .configureOutput(USAGE_ERROR_AS_VERDICT)
  .action(async (file: string, options: { jwks: string[]; logKey?: string }) => {
    const { receiptVerify, withVerdict } = await import('./verify-commands.js');
    await withVerdict(process.stdout, () =>
      receiptVerify(file, options.jwks, options.logKey, process.stdout),
    );
  });

const chain = program.command('chain').description('offline audit chain tools');
chain
  .command('verify <file>')
  .description(
    'verify an NDJSON export (GET /audit/:tenantId/export) offline; exit 0 valid, 1 invalid, 2 unreadable input',
  )
  .option('--jwks <sources...>', 'JWK set files or URLs to check checkpoint signatures against')
  .configureOutput(USAGE_ERROR_AS_VERDICT)
  .action(async (file: string, options: { jwks?: string[] }) => {
    const { chainVerify, withVerdict } = await import('./verify-commands.js');
    await withVerdict(process.stdout, () =>
      chainVerify(file, options.jwks ?? [], process.stdout, process.stderr.isTTY === true),
    );
  });

const policy = program.command('policy').description('offline policy tools');
policy
  .command('test [casesFile]')
  .description(
    'run decision test cases (JSON) offline against a policy, and/or replay an exported sample of intents (--sample); ' +
      'exit 0 all passed, 1 a case failed or more decisions changed than --max-changes, 2 bad input',
  )
  .option('--policy <file>', 'policy JSON ({rules: [...]} or an array of rules; default: the starter policy)')
  .option(
    '--sample <file>',
    'JSON lines of recorded intents (GET /intents items) to replay against the policy',
  )
  .option('--max-changes <n>', 'with --sample: exit 1 when more decisions change than this', (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
      throw new InvalidArgumentError('must be an integer ≥ 0');
    return n;
  })
  .action(
    async (
      casesFile: string | undefined,
      options: { policy?: string; sample?: string; maxChanges?: number },
      command: Command,
    ) => {
      if (casesFile === undefined && options.sample === undefined) {
        command.error('error: give a cases file, a --sample file, or both', { exitCode: 2 });
      }
      const [{ loadPolicyRules, policyTest }, { policySimulate }] = await Promise.all([
        import('./policy-test.js'),
        import('./policy-simulate.js'),
      ]);
      const codes: number[] = [];
      if (casesFile !== undefined) codes.push(policyTest(casesFile, options.policy, process.stdout));
      if (options.sample !== undefined) {
        const rules = loadPolicyRules(options.policy);
        codes.push(policySimulate(options.sample, rules, options.maxChanges, process.stdout));
      }
      process.exitCode = Math.max(...codes);
    },
  );

program.addCommand(witnessCommand());
program.addCommand(logCommand());
program.addCommand(gatewayCommand());

/** The options that carry a request's fields, so a refusal names what the user typed. */
const OPTION_OF_FIELD: Record<string, { field: string; option: string }> = {
  '/rateLimitPerMinute': { field: 'rateLimitPerMinute', option: '--rate-limit' },
  '/expiresAt': { field: 'expiresAt', option: '--expires-at' },
  '/scopes': { field: 'scopes', option: '--scopes' },
};

function describeIssue(issue: { path: string; message: string }): string {
  const named = OPTION_OF_FIELD[issue.path];
  if (named === undefined) return issue.message;
  return issue.message.startsWith(named.field)
    ? `${named.option}${issue.message.slice(named.field.length)}`
    : `${named.option}: ${issue.message}`;
}

function describe(error: unknown): string {
  if (error instanceof ConfigError) return `configuration error: ${error.message}`;
  if (error instanceof AppError) {
    const issues = (error.details?.issues as { path: string; message: string }[] | undefined) ?? [];
    return issues.length > 0 ? issues.map(describeIssue).join('; ') : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Commander has already printed its one line (an unknown option, a missing or invalid argument)
 * or the help: usage errors exit 2, like every other invalid setting; help and version exit 0.
 */
function throwUsageErrors(command: Command): void {
  command.exitOverride();
  // `authority gateway` answers a bad setting with one line (contract §11), without the usage.
  if (command.name() !== 'gateway') command.showHelpAfterError();
  for (const sub of command.commands) throwUsageErrors(sub);
}
throwUsageErrors(program);

/** The command whose action runs: an argument it refuses is a usage error of that command. */
let running: Command = program;
program.hook('preAction', (_program, action) => {
  running = action;
});

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
  if (error instanceof AppError && error.code === 'VALIDATION_ERROR') {
    // An argument's value the service refuses (an id, a role, a date, an e-mail address): a usage
    // error like the ones commander finds, so the same form and exit code.
    process.stderr.write(`error: ${describe(error)}\n`);
    running.outputHelp({ error: true });
    process.exit(2);
  }
  process.stderr.write(`authority: ${describe(error)}\n`);
  process.exit(error instanceof ConfigError || error instanceof PolicyTestInputError ? 2 : 1);
});
