import { Logger } from '@nestjs/common';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { JwksClient } from 'jwks-rsa';
import type { Clock } from '../common/time/clock';

/** A fetch of the key set that has not answered by then has failed: with the check, a request answers within 2 s. */
export const KEY_SET_FETCH_TIMEOUT_MS = 1_500;
/** At most one fetch this often: made-up `kid`s cannot make the service hammer the provider. */
export const KEY_SET_FETCH_COOLDOWN_MS = 5_000;
/** A key set older than this is fetched again before it is used: how long a key removed by the provider still verifies. */
export const KEY_SET_MAX_AGE_MS = 10 * 60_000;

/** The key set could not be fetched, and the token's key is not known: the token could not be checked (a 503). */
export class KeySetUnavailableError extends Error {
  override readonly name = 'KeySetUnavailableError';
}

/** The key set was fetched, recently and successfully, and has no key by this `kid` (a 401). */
export class UnknownKeyError extends Error {
  override readonly name = 'UnknownKeyError';
}

/** The key set of JWKS mode, null in the other modes. */
export const JWKS_KEY_SET = Symbol('JWKS_KEY_SET');

export type FetchOutcome = 'success' | 'failure';

/** JWKS mode: the provider's keys by `kid`, kept here because what an unknown `kid` means is the contract's rule. */
export class JwksKeySet {
  private readonly logger = new Logger('JwksKeySet');
  private keys = new Map<string, KeyObject>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private lastOutcome?: FetchOutcome;
  private inFlight?: Promise<void>;
  readonly fetches: Record<FetchOutcome, number> = { success: 0, failure: 0 };

  constructor(
    /** Fetches the provider's whole key set: each key with a `kid`, parsed. */
    private readonly fetchKeys: () => Promise<Array<{ kid: string; key: KeyObject }>>,
    private readonly clock: Clock,
  ) {}

  static fromUri(jwksUri: string, clock: Clock): JwksKeySet {
    // jwks-rsa's own cache and rate limit are per kid and would answer "rate limited" for a genuine new key.
    const client = new JwksClient({ jwksUri, cache: false, rateLimit: false, timeout: KEY_SET_FETCH_TIMEOUT_MS });
    // Parsed once per fetch: given a PEM string, jsonwebtoken would parse it again on every verification.
    const fetchKeys = async () =>
      (await client.getSigningKeys())
        .filter((signingKey) => typeof signingKey.kid === 'string')
        .map((signingKey) => ({ kid: signingKey.kid, key: createPublicKey(signingKey.getPublicKey()) }));
    return new JwksKeySet(fetchKeys, clock);
  }

  /** The public key for `kid`; throws UnknownKeyError (401) or KeySetUnavailableError (503). */
  async keyFor(kid: string): Promise<KeyObject> {
    if (this.clock.now() - this.fetchedAt > KEY_SET_MAX_AGE_MS) await this.fetchUnlessCoolingDown();
    const known = this.keys.get(kid);
    if (known) return known;
    await this.fetchUnlessCoolingDown();
    const fetched = this.keys.get(kid);
    if (fetched) return fetched;
    if (this.lastOutcome === 'success') throw new UnknownKeyError('The token names a key the provider does not have');
    throw new KeySetUnavailableError("The identity provider's key set cannot be fetched");
  }

  private async fetchUnlessCoolingDown(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    if (this.clock.now() - this.attemptedAt < KEY_SET_FETCH_COOLDOWN_MS) return;
    this.attemptedAt = this.clock.now();
    this.inFlight = this.fetch().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async fetch(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const fetched = await Promise.race([
        this.fetchKeys(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${KEY_SET_FETCH_TIMEOUT_MS} ms`)),
            KEY_SET_FETCH_TIMEOUT_MS,
          );
        }),
      ]);
      this.keys = new Map(fetched.map(({ kid, key }) => [kid, key]));
      this.fetchedAt = this.clock.now();
      this.record('success');
    } catch (error) {
      this.record('failure', error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Each change between success and failure is logged once, not once per fetch. */
  private record(outcome: FetchOutcome, error?: unknown): void {
    this.fetches[outcome] += 1;
    if (outcome !== this.lastOutcome) {
      if (outcome === 'failure') {
        const why = error instanceof Error ? error.message : String(error);
        this.logger.warn(`The key set cannot be fetched (${why}); tokens with keys not seen before are answered 503`);
      } else if (this.lastOutcome === 'failure') {
        this.logger.log('The key set is fetched again');
      }
    }
    this.lastOutcome = outcome;
  }
}
