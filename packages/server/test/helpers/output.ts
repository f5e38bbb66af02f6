import { type Stream, Writable } from 'node:stream';

/**
 * What a child process writes to one of its streams, gathered as it arrives. A process may write a
 * line before it answers a request and the pipe still deliver the line after the answer, so a test
 * waits for the text it expects (`until`) instead of reading it at once.
 */
export function gatherOutput(stream: Stream | null | undefined) {
  let text = '';
  const waiting = new Set<() => void>();
  stream?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (const wake of waiting) wake();
  });
  return {
    text: () => text,
    /** `read(text)` once it is defined; rejects with what arrived if it is not within 10 s. */
    until<T>(read: (text: string) => T | undefined, what: string): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`waited for ${what}; the output was: ${text}`));
        }, 10_000);
        function check(): void {
          const found = read(text);
          if (found === undefined) return;
          clearTimeout(timer);
          waiting.delete(check);
          resolve(found);
        }
        waiting.add(check);
        check();
      });
    },
  };
}

/** One JSON log line of the service (pino). */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A stream for a test app's logger (`createTestApp(…, { logger: { level, stream } })`) and its lines. */
export function logCapture() {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { stream, lines };
}
