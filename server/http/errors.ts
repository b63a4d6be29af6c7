import type { Context, Env } from 'hono';
import { HTTP_STATUS, type HttpErrorCode } from '../../shared/http-errors.js';

export function fail<E extends Env, P extends string>(c: Context<E, P>, code: HttpErrorCode, message: string): Response {
  return c.json({ error: { code, message } }, HTTP_STATUS[code]);
}
