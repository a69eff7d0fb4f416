import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson, sha256 } from './access-record';

/** DER prefixes that wrap a raw 32-byte Ed25519 key (RFC 8410) for Node's key objects. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** A signed statement that a chain held these entries up to `seq`, ending in `hash`; `final` at an instance's stop. */
export interface Seal {
  chain: string;
  /** The UTC month the chain's entries were made in: its partition, purged whole. */
  month: string;
  seq: number;
  hash: string;
  at: Date;
  final: boolean;
  /** Other chains' latest sealed positions as this instance saw them: a chain removed whole is missed by them. */
  others: Record<string, number>;
  keyId: string;
  signature: string;
}

export type UnsignedSeal = Omit<Seal, 'keyId' | 'signature'>;

const sealForm = (seal: UnsignedSeal): string =>
  canonicalJson([seal.chain, seal.month, seal.seq, seal.hash, seal.at.toISOString(), seal.final, seal.others]);

export function publicKeyOf(raw: Buffer): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/** ACCESS_RECORD_SEAL_KEY: 32 random bytes; its public half is all that verification needs. */
export class SealKey {
  private readonly privateKey: KeyObject;
  readonly publicKey: Buffer;
  readonly keyId: string;

  constructor(raw: Buffer) {
    this.privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });
    this.publicKey = createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
    this.keyId = keyIdOf(this.publicKey);
  }

  sign(seal: UnsignedSeal): Seal {
    const signature = sign(null, Buffer.from(sealForm(seal)), this.privateKey).toString('base64');
    return { ...seal, keyId: this.keyId, signature };
  }
}

export const keyIdOf = (publicKey: Buffer): string => sha256(publicKey.toString('base64')).slice(0, 16);

export function sealIsSigned(seal: Seal, publicKey: KeyObject): boolean {
  return verify(null, Buffer.from(sealForm(seal)), publicKey, Buffer.from(seal.signature, 'base64'));
}
