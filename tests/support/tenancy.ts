import { expect } from 'vitest';
import type { ApiResponse } from './http.js';

/** No response may carry a password hash, under any name. */
export function expectNoSecrets(res: ApiResponse): void {
  expect(res.text).not.toContain('passwordHash');
  expect(res.text).not.toContain('password_hash');
  expect(res.text).not.toContain('$argon2');
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const ids = (rows: { id: number | string }[]) => rows.map((r) => r.id);

export const sortedIds = <T extends number | string>(values: T[]) =>
  [...values].sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1));
