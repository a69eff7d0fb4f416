import { describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { Role } from '../auth/role';
import type { AppConfig } from '../config/app.config';
import { ExportSlots } from './export-slots';

const slotsOf = (exportsPerCaller: number, redis: Redis | null = null) =>
  new ExportSlots({ exportsPerCaller } as AppConfig, redis);
const member = { id: 7, role: Role.User };
const admin = { id: 7, role: Role.Admin };

describe('ExportSlots (docs/API.md §13, EXPORTS_PER_CALLER)', () => {
  it('gives a caller as many slots as allowed, and one more only after one is given back', async () => {
    const slots = slotsOf(2);
    const first = await slots.take(member);
    const second = await slots.take(member);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    await expect(slots.take(member)).resolves.toBeUndefined();
    await first?.release();
    await expect(slots.take(member)).resolves.toBeDefined();
  });

  it('counts each caller apart, a member and an administrator of the same id too', async () => {
    const slots = slotsOf(1);
    expect(await slots.take(member)).toBeDefined();
    expect(await slots.take({ id: 8, role: Role.User })).toBeDefined();
    expect(await slots.take(admin)).toBeDefined();
  });

  it('gives a slot back once however often release is called', async () => {
    const slots = slotsOf(2);
    const first = await slots.take(member);
    await slots.take(member);
    await first?.release();
    await first?.release();
    await slots.take(member);
    await expect(slots.take(member)).resolves.toBeUndefined();
  });

  it('counts in this instance while Redis is not connected, rather than refusing', async () => {
    // A client that lost its connection reports a status other than `ready`; it is never sent a command then.
    const disconnected = { status: 'reconnecting' } as Redis;
    const slots = slotsOf(1, disconnected);
    expect(await slots.take(member)).toBeDefined();
    await expect(slots.take(member)).resolves.toBeUndefined();
  });
});
