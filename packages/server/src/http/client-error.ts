import type { Socket } from 'node:net';
import { v7 as uuidv7 } from 'uuid';

/** What Node's HTTP parser refused, in the error envelope of contract §1. */
function answerOf(code: string | undefined): { status: number; text: string; body: object } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    const message = 'The request headers are too large';
    return {
      status: 431,
      text: 'Request Header Fields Too Large',
      body: { code: 'PAYLOAD_TOO_LARGE', message },
    };
  }
  const timedOut = code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const message = timedOut ? 'The request did not arrive in time' : 'The request is not valid HTTP';
  return {
    status: timedOut ? 408 : 400,
    text: timedOut ? 'Request Timeout' : 'Bad Request',
    body: { code: 'VALIDATION_ERROR', message, details: { issues: [{ path: '/', message }] } },
  };
}

/**
 * Answers a request Node's HTTP parser refused before Fastify saw it (a malformed request line or
 * header, headers over the size limit, a request that did not arrive in time): the error envelope
 * with a fresh `x-request-id`, like every other answer, then the connection closes. Fastify's own
 * handler answered a different JSON shape without a request id.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const requestId = uuidv7();
    const { status, text, body } = answerOf(error.code);
    const payload = JSON.stringify({ error: { ...body, requestId } });
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(payload)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${payload}`,
    );
  }
  socket.destroy(error);
}
