import type { Context } from 'hono';
import { HTTP_STATUS, type HttpErrorCode } from '../../shared/http-errors.js';

export function fail(c: Context, code: HttpErrorCode, message: string): Response {
  return c.json({ error: { code, message } }, HTTP_STATUS[code]);
}
