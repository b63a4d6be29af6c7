import type { Context, Env } from 'hono';
import { HTTP_STATUS, type HttpErrorCode } from '../../shared/http-errors.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- hono's input type parameter is `any` in middleware contexts
export function fail<E extends Env, P extends string, I extends object = any>(c: Context<E, P, I>, code: HttpErrorCode, message: string): Response {
  return c.json({ error: { code, message } }, HTTP_STATUS[code]);
}
