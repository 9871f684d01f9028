// Request headers read from the Node request (src/runtime/node-serve.ts). Hono's c.req.header()
// builds a web Headers object from every raw header on first use, a measurable part of a small
// request's CPU; Node has parsed them already. Values are what Headers.get() would answer:
// repeated headers joined with ", " (a cookie with "; "), so a doubled Authorization header is
// still refused rather than one of its values picked.
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { parse } from 'hono/utils/cookie';

export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const distinct = incoming?.headersDistinct;
  if (!distinct) return c.req.header(name);
  const values = distinct[name.toLowerCase()];
  if (!values?.length) return undefined;
  return values.length === 1 ? values[0] : values.join(name.toLowerCase() === 'cookie' ? '; ' : ', ');
}

/** A cookie's value, as hono/cookie's getCookie(c, name) gives it. */
export function requestCookie(c: Context, name: string): string | undefined {
  const header = requestHeader(c, 'cookie');
  return header ? parse(header, name)[name] : undefined;
}
