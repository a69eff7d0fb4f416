import type { KeyObject } from 'node:crypto';
import { CHAIN_START, endForm, recordForm, sha256, type AccessRecord, type DownloadEnd } from './access-record';
import { sealIsSigned, type Seal } from './seal';

/** An entry as stored: a record or an end, with the row id its table gave it. */
export type StoredEntry = { id: number } & (({ table: 'record' } & AccessRecord) | ({ table: 'end' } & DownloadEnd));
export type StoredSeal = Seal & { id: number };

export interface Verification {
  /** What was changed, removed or added unseen, first found first; none for an intact store. */
  problems: string[];
  /** Chains with records after their last seal: an instance running, or one that stopped without sealing. */
  unsealed: string[];
  chains: number;
  entries: number;
  seals: number;
}

/** `entry 4 was` or `entries 4–6 were`. */
const places = (from: number, to: number): string => (from === to ? `entry ${from} was` : `entries ${from}–${to} were`);
const nameOf = (entry: StoredEntry): string => `${entry.table === 'record' ? 'record' : 'export end'} #${entry.id}`;
const hashOf = (entry: StoredEntry): string => sha256(entry.table === 'record' ? recordForm(entry) : endForm(entry));

function byChain<T extends { chain: string }>(items: readonly T[]): Map<string, T[]> {
  const chains = new Map<string, T[]>();
  for (const item of items) chains.set(item.chain, [...(chains.get(item.chain) ?? []), item]);
  return chains;
}

/** A chain's entries against their hashes, each other and their order in the table. */
function chainProblems(chain: string, entries: StoredEntry[]): string[] {
  const problems: string[] = [];
  const sorted = [...entries].sort((a, b) => a.seq - b.seq);
  let previous: StoredEntry | undefined;
  const lastIdOf = new Map<string, StoredEntry>();
  for (const entry of sorted) {
    const where = `${nameOf(entry)} (chain ${chain}, ${entry.seq})`;
    if (hashOf(entry) !== entry.hash) problems.push(`${where} was edited: its hash does not match its fields`);
    if (previous && previous.seq === entry.seq) {
      problems.push(`${where} shares its place with ${nameOf(previous)}: one of them was inserted`);
    } else {
      const expected = previous?.seq ?? 0;
      if (entry.seq > expected + 1) {
        problems.push(`chain ${chain}: ${places(expected + 1, entry.seq - 1)} deleted (before ${nameOf(entry)})`);
      } else if (entry.prevHash !== (previous?.hash ?? CHAIN_START)) {
        problems.push(`${where} does not follow the entry before it: inserted, or the chain rewritten`);
      }
    }
    // Within a table, ids increase with the chain: an entry whose id runs backwards was moved.
    const earlier = lastIdOf.get(entry.table);
    if (earlier && earlier.id > entry.id) {
      problems.push(`${where} comes before ${nameOf(earlier)} in the table but after it in the chain: reordered`);
    }
    lastIdOf.set(entry.table, entry);
    previous = entry;
  }
  return problems;
}

/**
 * docs/API.md §21: every chain checked against itself and against its seals, whose signatures need only the public
 * keys; fed a month at a time, as chains never span months. A chain of a month before `oldestKeptMonth` was purged
 * whole and is known only by its seals.
 */
export class ChainVerifier {
  private readonly problems: string[] = [];
  private readonly unsealed: string[] = [];
  private readonly valid: StoredSeal[] = [];
  private readonly sealsOf: Map<string, StoredSeal[]>;
  private readonly seen = new Set<string>();
  private entries = 0;

  constructor(
    private readonly seals: readonly StoredSeal[],
    publicKeys: ReadonlyMap<string, KeyObject>,
    private readonly oldestKeptMonth?: string,
  ) {
    for (const seal of seals) {
      const key = publicKeys.get(seal.keyId);
      const where = `seal #${seal.id} (chain ${seal.chain})`;
      if (!key) this.problems.push(`${where} is signed with key ${seal.keyId}, not one given`);
      else if (!sealIsSigned(seal, key)) this.problems.push(`${where} is forged or edited`);
      else this.valid.push(seal);
    }
    this.sealsOf = byChain(this.valid);
  }

  /** The entries of one month's chains. */
  add(entries: readonly StoredEntry[]): void {
    this.entries += entries.length;
    for (const [chain, chainEntries] of byChain(entries)) {
      this.seen.add(chain);
      this.problems.push(...chainProblems(chain, chainEntries));
      this.checkSeals(chain, chainEntries);
    }
  }

  private checkSeals(chain: string, chainEntries: StoredEntry[]): void {
    const bySeq = new Map(chainEntries.map((entry) => [entry.seq, entry]));
    const last = Math.max(...chainEntries.map(({ seq }) => seq));
    const chainSeals = this.sealsOf.get(chain) ?? [];
    for (const seal of chainSeals) {
      const sealed = bySeq.get(seal.seq);
      if (seal.seq > last) {
        this.problems.push(`chain ${chain}: ${places(last + 1, seal.seq)} cut away (sealed by seal #${seal.id})`);
      } else if (sealed && sealed.hash !== seal.hash) {
        this.problems.push(`chain ${chain} differs from seal #${seal.id} at ${seal.seq}: rewritten`);
      }
    }
    const final = chainSeals.find((seal) => seal.final);
    if (final && last > final.seq) {
      this.problems.push(
        `chain ${chain}: ${places(final.seq + 1, last)} added after its last seal #${final.id}: inserted`,
      );
    }
    if (!final && Math.max(0, ...chainSeals.map(({ seq }) => seq)) < last) this.unsealed.push(chain);
  }

  /** What was found, once every month was added: chains a seal names and no month holds were removed whole. */
  finish(): Verification {
    const purged = (month: string) => this.oldestKeptMonth !== undefined && month < this.oldestKeptMonth;
    const named = new Map<string, { seq: number; by: StoredSeal; month?: string }>();
    for (const seal of this.valid) {
      named.set(seal.chain, { seq: seal.seq, by: seal, month: seal.month });
      for (const [other, seq] of Object.entries(seal.others)) {
        if (!named.has(other)) named.set(other, { seq, by: seal });
      }
    }
    for (const [chain, { seq, by, month }] of named) {
      if (this.seen.has(chain) || purged(month ?? by.month)) continue;
      this.problems.push(`chain ${chain} (${seq} entries by seal #${by.id}) is gone: removed whole`);
    }
    return {
      problems: this.problems,
      unsealed: this.unsealed,
      chains: this.seen.size,
      entries: this.entries,
      seals: this.seals.length,
    };
  }
}
