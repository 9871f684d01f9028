// Requests Node's HTTP parser refuses before any route sees them (headers over the size limit,
// a malformed request line, a request that does not arrive in time) answer the contract's error
// envelope too, with meta and a request id, instead of Node's bare status line. The connection
// is closed after the answer: the parser's state is unknown.
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { ERROR_CODES, type ErrorCode } from './errors.js';
import { errorEnvelope } from './envelope.js';
import type { Logger } from './logger.js';

const REASON: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' };

/** The error code for a parser error (Node's `err.code`), as Node itself would have answered it. */
export function parserErrorCode(code: string | undefined): ErrorCode {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW': return 'headers_too_large';
    case 'ERR_HTTP_REQUEST_TIMEOUT': return 'request_timeout';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW': return 'payload_too_large';
    default: return 'bad_request';
  }
}

const MESSAGE: Partial<Record<ErrorCode, string>> = {
  headers_too_large: 'the request headers are larger than the server accepts',
  request_timeout: 'the request did not arrive in time',
  payload_too_large: 'the request body framing is larger than the server accepts',
  bad_request: 'the request is not valid HTTP/1.1',
};

/** The raw HTTP answer for a parser error: status line, headers and the JSON envelope. */
export function parserErrorResponse(errCode: string | undefined, requestId: string = randomUUID()): string {
  const code = parserErrorCode(errCode);
  const status = ERROR_CODES[code].status;
  const body = JSON.stringify(errorEnvelope(code, MESSAGE[code] ?? ERROR_CODES[code].when, [], requestId));
  return [
    `HTTP/1.1 ${status} ${REASON[status] ?? 'Error'}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    `x-request-id: ${requestId}`,
    'x-content-type-options: nosniff',
    'referrer-policy: no-referrer',
    '',
    body,
  ].join('\r\n');
}

/**
 * The server's `clientError` listener. The raw packet is never logged: it holds the refused
 * headers, Authorization and Cookie included.
 */
export function clientErrorHandler(log?: Logger) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    // A reset or an answer already on its way: nothing can be written, only closed (as Node does).
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (err.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    log?.debug('request refused by the HTTP parser', { request_id: requestId, code: err.code, status: ERROR_CODES[parserErrorCode(err.code)].status });
    socket.end(parserErrorResponse(err.code, requestId));
  };
}
