import { Command } from 'commander';
import type { GatewayFlags } from '../gateway/gateway-settings.js';

/**
 * `authority gateway` (contract §11). The MCP SDK is loaded only when the command runs, so the
 * other commands do not pay for it.
 */
export function gatewayCommand(): Command {
  return new Command('gateway')
    .description(
      'govern one upstream MCP server: every tools/call goes through the decision loop (contract §11); ' +
        'the service is named by AUTHORITY_URL, AUTHORITY_TENANT and AUTHORITY_API_KEY',
    )
    .option('--upstream <command line>', 'the upstream MCP server to start, spoken to over stdio')
    .option('--upstream-url <url>', 'the upstream MCP server at a Streamable HTTP URL')
    .option(
      '--config <file>',
      'gateway config (JSON); without it targetSystem comes from AUTHORITY_TARGET_SYSTEM',
    )
    .option(
      '--listen <host:port>',
      'serve agents over Streamable HTTP at http://HOST:PORT/mcp instead of stdio',
    )
    .option('--wait-approval', 'hold an escalated call until it is approved, denied or expires')
    .option('--decision-timeout-ms <ms>', 'bound of every call to the service (default 5000)')
    .option('--base-url <url>', 'the service (env AUTHORITY_URL)')
    .option('--tenant <id>', 'the tenant (env AUTHORITY_TENANT)')
    .option('--key <apiKey>', 'an API key of the tenant (env AUTHORITY_API_KEY; prefer the variable)')
    .action(async (options: GatewayFlags) => {
      const { runGateway } = await import('../gateway/run-gateway.js');
      await runGateway(options, process.env);
    });
}
