/** One line per `tools/call` (contract §11): never an argument value, a token or a key. */
export interface CallLogLine {
  tool: string;
  intentId: string | undefined;
  /** `APPROVED`, `APPROVED_AFTER_REVIEW`, or the refusal's `decision` (`ESCALATED`, `DENIED`, …). */
  decision: string;
  /** Why the gateway refused or what failed (`ARGUMENTS_TOO_LARGE`, `TIMEOUT`, …), when it did. */
  code?: string;
  /** Time from the request to its result, decision and upstream call included. */
  ms: number;
}

export type CallLog = (line: CallLogLine) => void;

/** Writes each call as one JSON line to a stream (standard error: standard output may be the MCP channel). */
export function jsonLineLog(stream: NodeJS.WritableStream): CallLog {
  return (line) => {
    const { tool, intentId, decision, code, ms } = line;
    const record = {
      time: new Date().toISOString(),
      event: 'tools/call',
      tool,
      ...(intentId === undefined ? {} : { intentId }),
      decision,
      ...(code === undefined ? {} : { code }),
      ms: Math.round(ms * 100) / 100,
    };
    stream.write(`${JSON.stringify(record)}\n`);
  };
}
