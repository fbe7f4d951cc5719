import { describe, expect, it } from 'vitest';
import { User } from '../../server/db/models/index.js';
import { bootstrapAdmin } from '../../server/domains/auth/bootstrap.js';
import { verifyPassword } from '../../server/domains/auth/passwords.js';
import { PERMISSIONS } from '../../shared/permissions.js';

describe('bootstrap admin', () => {
  it('creates exactly one admin with every permission even when instances race, and never again', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => bootstrapAdmin({ email: 'Boss@Example.test' })));
    const created = results.filter((r) => r.created);
    expect(created).toHaveLength(1);
    const users = await User.findAll();
    expect(users.map((u) => u.email)).toEqual(['boss@example.test']);
    expect([...users[0].permissions].sort()).toEqual([...PERMISSIONS].sort());
    const generated = created[0].created ? created[0].generatedPassword! : '';
    expect(generated.length).toBeGreaterThanOrEqual(12);
    expect(await verifyPassword(users[0].passwordHash, generated)).toBe(true);
    expect(await bootstrapAdmin({ email: 'other@example.test', password: 'another-password' })).toEqual({ created: false });
    expect(await User.count()).toBe(1);
  });
});
