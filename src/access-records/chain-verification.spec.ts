import { describe, expect, it } from '@jest/globals';
import { CHAIN_START, endForm, recordForm, sha256, type AccessRecordFields } from './access-record';
import { ChainVerifier, type StoredEntry, type StoredSeal } from './chain-verification';
import { SealKey, publicKeyOf } from './seal';

const KEY = new SealKey(Buffer.alloc(32, 3));
const KEYS = new Map([[KEY.keyId, publicKeyOf(KEY.publicKey)]]);

const fieldsOf = (index: number): AccessRecordFields => ({
  at: new Date(Date.UTC(2026, 11, 7, 10, 0, index)),
  identifier: '9000',
  role: 'ADMIN',
  address: '10.0.0.7',
  requestId: `request-${index}`,
  action: 'view',
  parameters: { page: index, size: 20, sort: 'createdAt,desc;orderId,desc' },
  status: 200,
  problem: null,
  orders: 20,
  members: [1, 2, 3],
  reason: null,
  fields: null,
  position: null,
});

/** A chain of `count` records as an instance writes it, ids as its table gave them, and a seal at `sealedAt`. */
function chainOf(chain: string, count: number, firstId = 1): StoredEntry[] {
  const entries: StoredEntry[] = [];
  let prevHash = CHAIN_START;
  for (let seq = 1; seq <= count; seq += 1) {
    const fields = fieldsOf(seq);
    const hash = sha256(recordForm({ ...fields, chain, seq, prevHash }));
    entries.push({ table: 'record', id: firstId + seq - 1, ...fields, chain, seq, prevHash, hash });
    prevHash = hash;
  }
  return entries;
}

let sealIds = 0;
function sealOf(entries: StoredEntry[], seq: number, others: Record<string, number> = {}, final = false): StoredSeal {
  const { chain, hash } = entries[seq - 1];
  const at = new Date(Date.UTC(2026, 11, 7, 11));
  return { id: (sealIds += 1), ...KEY.sign({ chain, month: '2026-12', seq, hash, at, final, others }) };
}

function verify(entries: StoredEntry[], seals: StoredSeal[], oldestKeptMonth?: string) {
  const verifier = new ChainVerifier(seals, KEYS, oldestKeptMonth);
  verifier.add(entries);
  return verifier.finish();
}

/** docs/API.md §21: `verify` names each kind of tampering, and finds an untouched store intact. */
describe('ChainVerifier', () => {
  const chain = chainOf('chain-a', 6);
  const seals = [sealOf(chain, 3), sealOf(chain, 6, {}, true)];

  it('finds an untouched chain intact, an end of an export included', () => {
    const prevHash = chain[5].hash;
    const end = { at: new Date(), opensChain: 'chain-a', opensSeq: 6, orders: 12, bytes: 900, complete: true };
    const endFields = { ...end, flagged: false, chain: 'chain-a', seq: 7, prevHash };
    const withEnd: StoredEntry[] = [...chain, { table: 'end', id: 1, ...endFields, hash: sha256(endForm(endFields)) }];
    const result = verify(withEnd, [sealOf(withEnd, 7, {}, true)]);
    expect(result).toMatchObject({ problems: [], unsealed: [], chains: 1, entries: 7 });
  });

  it('names an edited field', () => {
    const edited = chain.map((entry) => (entry.seq === 4 ? { ...entry, reason: 'nothing to see' } : entry));
    expect(verify(edited, seals).problems).toEqual([expect.stringMatching(/^record #4 .* was edited/)]);
  });

  it('names a deleted record, and the place it left', () => {
    const problems = verify(
      chain.filter(({ seq }) => seq !== 2),
      seals,
    ).problems;
    expect(problems).toEqual([expect.stringMatching(/entry 2 was deleted \(before record #3\)/)]);
  });

  it('names an inserted record, in a place taken or after the chain’s last seal', () => {
    const forged = { ...(chain[2] as StoredEntry & { table: 'record' }), id: 99, requestId: 'forged' };
    forged.hash = sha256(recordForm(forged));
    expect(verify([...chain, forged], seals).problems).toContainEqual(
      expect.stringMatching(/record #99 .* shares its place with record #3: one of them was inserted/),
    );
    const appendedFields = { ...fieldsOf(7), chain: 'chain-a', seq: 7, prevHash: chain[5].hash };
    const appended: StoredEntry = {
      table: 'record',
      id: 7,
      ...appendedFields,
      hash: sha256(recordForm(appendedFields)),
    };
    expect(verify([...chain, appended], seals).problems).toEqual([
      expect.stringMatching(/entry 7 was added after its last seal #\d+: inserted/),
    ]);
  });

  it('names two records swapped, by their ids running against the chain', () => {
    const swapped = chain.map((entry) =>
      entry.seq === 2 ? { ...entry, id: 3 } : entry.seq === 3 ? { ...entry, id: 2 } : entry,
    );
    expect(verify(swapped, seals).problems).toEqual([expect.stringMatching(/record #2 .* reordered/)]);
  });

  it('names a chain rewritten from an edit on, though each hash was recomputed, by its seal', () => {
    const rewritten = chainOf('chain-a', 6).map((entry) => ({ ...entry }));
    rewritten[1] = { ...rewritten[1], reason: 'rewritten' } as StoredEntry;
    for (let index = 1; index < rewritten.length; index += 1) {
      const entry = { ...rewritten[index], prevHash: rewritten[index - 1].hash } as StoredEntry & { table: 'record' };
      rewritten[index] = { ...entry, hash: sha256(recordForm(entry)) };
    }
    expect(verify(rewritten, seals).problems).toEqual([
      expect.stringMatching(/differs from seal #\d+ at 3: rewritten/),
      expect.stringMatching(/differs from seal #\d+ at 6: rewritten/),
    ]);
  });

  it('names the last records cut away after a seal', () => {
    expect(verify(chain.slice(0, 4), seals).problems).toEqual([
      expect.stringMatching(/chain chain-a: entries 5–6 were cut away \(sealed by seal #\d+\)/),
    ]);
  });

  it('names a chain removed whole, with its seals, by another instance’s seal', () => {
    const other = chainOf('chain-b', 2, 100);
    const otherSeals = [sealOf(other, 2, { 'chain-a': 6 })];
    expect(verify(other, otherSeals).problems).toEqual([
      expect.stringMatching(/chain chain-a \(6 entries by seal #\d+\) is gone: removed whole/),
    ]);
    expect(verify([...chain, ...other], [...seals, ...otherSeals]).problems).toEqual([]);
  });

  it('accepts a chain of a purged month, and no chain of a month still kept', () => {
    expect(verify([], seals, '2027-01').problems).toEqual([]);
    expect(verify([], seals, '2026-12').problems).toHaveLength(1);
  });

  it('names a forged or edited seal, and one signed with a key not given', () => {
    const forged = { ...seals[1], seq: 5 };
    expect(verify(chain, [seals[0], forged]).problems).toEqual([expect.stringMatching(/is forged or edited$/)]);
    const stranger = { id: 77, ...new SealKey(Buffer.alloc(32, 9)).sign({ ...seals[1] }) };
    expect(verify(chain, [stranger]).problems).toEqual([expect.stringMatching(/signed with key \w+, not one given/)]);
  });

  it('lists a chain whose last entries are not sealed yet, without failing it', () => {
    expect(verify(chain, [seals[0]])).toMatchObject({ problems: [], unsealed: ['chain-a'] });
  });
});
