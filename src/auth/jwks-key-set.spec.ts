import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../common/time/clock';
import {
  JwksKeySet,
  KEY_SET_FETCH_COOLDOWN_MS,
  KEY_SET_FETCH_TIMEOUT_MS,
  KEY_SET_MAX_AGE_MS,
  KeySetUnavailableError,
  UnknownKeyError,
} from './jwks-key-set';

// Jest's fake timers move Date.now and every setTimeout together: the test decides when time passes.
const clock: Clock = { now: () => Date.now() };

// A stand-in for the parsed key: what the set hands out is all that is compared.
const key = (kid: string) => ({ kid, key: `PEM of ${kid}` as unknown as KeyObject });

/** A provider whose key set and availability the test sets; it counts the fetches. */
function provider() {
  const state = { kids: ['key-1'], answering: true as boolean | 'hang', fetches: 0 };
  const fetchKeys = () => {
    state.fetches += 1;
    if (state.answering === 'hang') return new Promise<Array<ReturnType<typeof key>>>(() => undefined);
    if (!state.answering) return Promise.reject(new Error('connect ECONNREFUSED'));
    return Promise.resolve(state.kids.map(key));
  };
  return { state, keySet: new JwksKeySet(fetchKeys, clock) };
}

const outcomeOf = (attempt: Promise<KeyObject>) =>
  attempt.then(
    (found) => found,
    (error: Error) => error.name,
  );

describe('JwksKeySet (docs/API.md §2)', () => {
  beforeEach(() => {
    jest.useFakeTimers();
    // What is logged is checked where it matters; here it would only be noise.
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });

  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('fetches once for a kid it knows, and answers from memory after', async () => {
    const { state, keySet } = provider();
    await expect(keySet.keyFor('key-1')).resolves.toBe('PEM of key-1');
    await expect(keySet.keyFor('key-1')).resolves.toBe('PEM of key-1');
    expect(state.fetches).toBe(1);
  });

  it('fetches at most once per cooldown for made-up kids, however many, and calls them unknown', async () => {
    const { state, keySet } = provider();
    await keySet.keyFor('key-1');
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, index) => outcomeOf(keySet.keyFor(`made-up-${index}`))),
    );
    expect(new Set(outcomes)).toEqual(new Set([UnknownKeyError.name]));
    expect(state.fetches).toBe(1);
    jest.advanceTimersByTime(KEY_SET_FETCH_COOLDOWN_MS);
    await Promise.all(Array.from({ length: 50 }, (_, index) => outcomeOf(keySet.keyFor(`other-${index}`))));
    expect(state.fetches).toBe(2);
  });

  it('accepts a newly published key at the first fetch after the cooldown', async () => {
    const { state, keySet } = provider();
    await keySet.keyFor('key-1');
    state.kids.push('key-2');
    await expect(outcomeOf(keySet.keyFor('key-2'))).resolves.toBe(UnknownKeyError.name);
    jest.advanceTimersByTime(KEY_SET_FETCH_COOLDOWN_MS);
    await expect(keySet.keyFor('key-2')).resolves.toBe('PEM of key-2');
  });

  it('calls a new kid unverifiable, not unknown, while the provider refuses, without asking it again within the cooldown', async () => {
    const { state, keySet } = provider();
    await keySet.keyFor('key-1');
    jest.advanceTimersByTime(KEY_SET_FETCH_COOLDOWN_MS);
    state.answering = false;
    await expect(outcomeOf(keySet.keyFor('key-2'))).resolves.toBe(KeySetUnavailableError.name);
    await expect(outcomeOf(keySet.keyFor('key-3'))).resolves.toBe(KeySetUnavailableError.name);
    expect(state.fetches).toBe(2);
    // Keys already known keep verifying.
    await expect(keySet.keyFor('key-1')).resolves.toBe('PEM of key-1');
    expect(keySet.fetches).toEqual({ success: 1, failure: 1 });
  });

  it('gives up on a hung provider after the fetch timeout, and every request waiting on that fetch with it', async () => {
    const { state, keySet } = provider();
    state.answering = 'hang';
    const waiting = [outcomeOf(keySet.keyFor('key-1')), outcomeOf(keySet.keyFor('key-2'))];
    await jest.advanceTimersByTimeAsync(KEY_SET_FETCH_TIMEOUT_MS);
    await expect(Promise.all(waiting)).resolves.toEqual([KeySetUnavailableError.name, KeySetUnavailableError.name]);
    expect(state.fetches).toBe(1);
  });

  it('fetches a set older than its age again; a key the provider removed stops verifying, one it still has goes on', async () => {
    const { state, keySet } = provider();
    state.kids = ['key-1', 'key-2'];
    await keySet.keyFor('key-1');
    state.kids = ['key-2'];
    jest.advanceTimersByTime(KEY_SET_MAX_AGE_MS + 1);
    await expect(outcomeOf(keySet.keyFor('key-1'))).resolves.toBe(UnknownKeyError.name);
    jest.advanceTimersByTime(KEY_SET_MAX_AGE_MS + 1);
    state.answering = false;
    // Past its age but the provider is down: the keys it had keep verifying.
    await expect(keySet.keyFor('key-2')).resolves.toBe('PEM of key-2');
  });
});
