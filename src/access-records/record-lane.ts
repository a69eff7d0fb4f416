import { randomUUID } from 'node:crypto';
import { monthOf } from '../database/monthly-partitions';
import { CHAIN_START, sha256, type AccessRecordFields, type ChainLink, type DownloadEndFields } from './access-record';

/** INSERTs an instance has in flight at once, each in a chain of its own. Measured, four cost more than they gained:
 * each commits fewer records, and the database's work per INSERT is the larger part (docs/BENCHMARKS.md). */
export const RECORD_LANES = 1;

/** A chain: its entries each carry their predecessor's hash; a month or a failure starts another. */
export interface Chain {
  id: string;
  month: string;
  seq: number;
  hash: string;
  committed: { seq: number; hash: string };
  sealedSeq: number;
}

/** An entry waiting for its INSERT, and the request waiting for it. */
export interface Waiting {
  entry: { record: AccessRecordFields } | { end: DownloadEndFields };
  action: string;
  deadline: number;
  done: boolean;
  resolve(link: ChainLink): void;
  reject(error: Error): void;
}

const newChain = (month: string): Chain => ({
  id: randomUUID(),
  month,
  seq: 0,
  hash: CHAIN_START,
  committed: { seq: 0, hash: CHAIN_START },
  sealedSeq: 0,
});

/** One chain and the entries waiting for it, committed one INSERT at a time so that its ids follow it; an instance
 * writes through a few lanes at once. A chain left behind is `retired`, to be sealed once its INSERT is settled. */
export class RecordLane {
  chain = newChain(monthOf(new Date()));
  readonly queue: Waiting[] = [];
  flushing = false;
  retired: { chain: Chain; final: boolean }[] = [];

  /** How busy it is: the entries waiting, and the INSERT in flight. */
  get load(): number {
    return this.queue.length + (this.flushing ? 1 : 0);
  }

  /** The entry's place: next in the chain, or first of a new one when the month has changed. */
  link(at: Date, form: (place: Omit<ChainLink, 'hash'>) => string): ChainLink {
    const month = monthOf(at);
    if (month !== this.chain.month) this.restart(true, month);
    const chain = this.chain;
    const place = { chain: chain.id, seq: chain.seq + 1, prevHash: chain.hash };
    const hash = sha256(form(place));
    chain.seq = place.seq;
    chain.hash = hash;
    return { ...place, hash };
  }

  /** After an INSERT whose outcome is unknown, or at a new month: this chain ends, as its last only in a new month. */
  restart(final: boolean, month = this.chain.month): void {
    this.retired.push({ chain: this.chain, final });
    this.chain = newChain(month);
  }
}
