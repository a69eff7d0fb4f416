import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { Role } from '../../auth/role';
import { LocalTimeFormatter } from '../../common/time/local-time';
import type { PinnedReads } from '../../database/read-router';
import { NoCapableServerException } from '../../database/server-choice';
import { listingVariantOf } from '../listing-variant';
import { orderRow } from '../order-row.fixture';
import { OrdersRepository, TooManyToSortError, type ExportBatchRead } from '../orders.repository';
import type { ListOrdersQuery } from '../query/list-orders-query';
import type { PageRequest } from '../statements/page-statement';
import { EXPORT_BATCH_SIZE, ExportBatches } from './export-batches';

/** A batch as the repository reads it (its own tests): a full one says more follow, within the walk's bound. */
const batchFrom = (firstId: number, more: boolean): ExportBatchRead => ({
  rows: Array.from({ length: more ? EXPORT_BATCH_SIZE : 3 }, (_, index) => orderRow(firstId - index)),
  more,
  walkBound: 9_999,
});

/** An administrator's export, as the pipe hands it over. */
const query = (overrides: Partial<ListOrdersQuery> = {}): ListOrdersQuery => ({
  page: 1,
  size: 20,
  sort: [
    { field: 'createdAt', direction: 'DESC' },
    { field: 'orderId', direction: 'DESC' },
  ],
  filters: { status: 'REFUNDED' },
  variant: listingVariantOf({ id: 1, role: Role.Admin }),
  walkScope: 'not read by an export',
  echoedParameters: [],
  ...overrides,
});

const lost = () => Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });

describe('ExportBatches', () => {
  let repository: {
    exportReads: jest.Mock<OrdersRepository['exportReads']>;
    readBatch: jest.Mock<OrdersRepository['readBatch']>;
    readSeats: jest.Mock<OrdersRepository['readSeats']>;
  };
  let pinned: { moveAfter: jest.Mock<PinnedReads['moveAfter']>; position: jest.Mock<PinnedReads['position']> };
  let batches: ExportBatches;

  beforeEach(async () => {
    // The export's server: no other one takes over unless a test says so (routing has its own tests).
    pinned = { moveAfter: jest.fn(() => false), position: jest.fn(() => Promise.resolve('0-1-42')) };
    repository = {
      exportReads: jest.fn(() => pinned as unknown as PinnedReads),
      // Three batches: two full ones, then the last three orders.
      readBatch: jest
        .fn<OrdersRepository['readBatch']>()
        .mockResolvedValueOnce(batchFrom(9_000, true))
        .mockResolvedValueOnce(batchFrom(8_000, true))
        .mockResolvedValueOnce(batchFrom(7_000, false)),
      // Orders without seats: how seats join their orders is the service's and the element's tests.
      readSeats: jest.fn(() => Promise.resolve([])),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [
        ExportBatches,
        { provide: OrdersRepository, useValue: repository },
        { provide: LocalTimeFormatter, useValue: new LocalTimeFormatter('UTC') },
      ],
    }).compile();
    batches = moduleRef.get(ExportBatches);
  });

  const requestOf = (call: number): PageRequest => repository.readBatch.mock.calls[call][1];

  it('reads the next batch, page then seats, while the last one is taken, one ahead and no further, each seeking past the last', async () => {
    const exported = batches.read(query(), new AbortController().signal);
    const first = await exported.next();
    expect(first.value).toHaveLength(EXPORT_BATCH_SIZE);
    expect(repository.exportReads).toHaveBeenCalledWith({ status: 'REFUNDED' }, query().sort, undefined);
    // The second batch is being read already, its seats as soon as its page is in; the third is not asked for
    // until the second is taken.
    await new Promise((resolve) => setImmediate(resolve));
    expect(repository.readBatch).toHaveBeenCalledTimes(2);
    expect(repository.readSeats).toHaveBeenCalledTimes(2);
    expect(repository.readSeats.mock.calls[1][1]).toHaveLength(EXPORT_BATCH_SIZE);
    expect(requestOf(0)).toMatchObject({ limit: EXPORT_BATCH_SIZE, cursor: undefined });
    expect(requestOf(1).cursor).toEqual({
      direction: 'after',
      key: [Date.parse('2026-03-09T15:00:00.999Z'), 9_000 - (EXPORT_BATCH_SIZE - 1)],
      bound: 9_999,
    });
    await exported.next();
    expect(repository.readBatch).toHaveBeenCalledTimes(3);
    expect((await exported.next()).value).toHaveLength(3);
    await expect(exported.next()).resolves.toEqual({ done: true, value: undefined });
    expect(repository.readBatch).toHaveBeenCalledTimes(3);
  });

  it('plans every batch with the counts its first batch read: one walk', async () => {
    const sizes = { matching: 2003, table: 1_000_000 };
    repository.readBatch.mockReset();
    repository.readBatch
      .mockResolvedValueOnce({ ...batchFrom(9_000, true), sizes })
      .mockResolvedValueOnce({ ...batchFrom(8_000, false), sizes });
    for await (const batch of batches.read(query(), new AbortController().signal))
      expect(batch.length).toBeGreaterThan(0);
    expect(repository.readBatch.mock.calls.map((call) => call[2])).toEqual([undefined, sizes]);
  });

  it('tells once, after the first batch, how far behind its server may be and where to read its position', async () => {
    repository.readBatch.mockReset();
    repository.readBatch.mockResolvedValueOnce({ ...batchFrom(9_000, false), behindSeconds: 4 });
    const told = jest.fn<(behindSeconds: number | undefined, position: () => Promise<string | undefined>) => void>();
    for await (const batch of batches.read(query(), new AbortController().signal, told)) expect(batch).toHaveLength(3);
    expect(told).toHaveBeenCalledTimes(1);
    expect(told.mock.calls[0][0]).toBe(4);
    await expect(told.mock.calls[0][1]()).resolves.toBe('0-1-42');
  });

  it('starts over once on another server when its first batch’s server fails before anything is sent', async () => {
    const failure = lost();
    // The first batch's seats fail as they would on a server killed after its page was read.
    repository.readSeats.mockRejectedValueOnce(failure);
    // Routing finds another server that can serve the export.
    pinned.moveAfter.mockReturnValue(true);
    const exported = batches.read(query(), new AbortController().signal);
    const first = await exported.next();
    expect(pinned.moveAfter).toHaveBeenCalledWith(failure);
    expect(first.value).toHaveLength(EXPORT_BATCH_SIZE);
    // Read again from the start there, counted afresh: no batch mixes what two servers hold.
    expect(requestOf(1).cursor).toBeUndefined();
    expect(repository.readBatch.mock.calls[1][2]).toBeUndefined();
    await exported.return(undefined);
  });

  it('fails as before when no other server can serve its first batch', async () => {
    const failure = lost();
    repository.readSeats.mockRejectedValue(failure);
    await expect(batches.read(query(), new AbortController().signal).next()).rejects.toBe(failure);
  });

  it('refuses a shape no server can serve, and one with too many orders to sort, before its first batch', async () => {
    repository.exportReads.mockImplementationOnce(() => {
      throw new NoCapableServerException();
    });
    const sort = [{ field: 'updatedAt' as const, direction: 'DESC' as const }];
    await expect(batches.read(query({ sort }), new AbortController().signal).next()).rejects.toMatchObject({
      problem: { status: 422, detail: expect.stringContaining('the orders these filters select by updatedAt') },
    });
    repository.readBatch.mockReset();
    repository.readBatch.mockRejectedValue(new TooManyToSortError(5_000_000, 1_000_000));
    await expect(batches.read(query({ sort }), new AbortController().signal).next()).rejects.toMatchObject({
      problem: { status: 422, detail: expect.stringContaining('5,000,000') },
    });
  });

  it('reads nothing more once the consumer stops, and returns only once the batch read ahead has ended', async () => {
    const cancelled = new AbortController();
    let failAhead: (error: Error) => void = () => undefined;
    repository.readBatch.mockReset();
    repository.readBatch
      .mockResolvedValueOnce(batchFrom(9_000, true))
      // The batch read ahead is still running when the consumer stops; it then fails as a cancelled statement does.
      .mockReturnValueOnce(new Promise((_, reject) => (failAhead = reject)));
    const exported = batches.read(query(), cancelled.signal);
    await exported.next();
    cancelled.abort();
    let returned = false;
    const stopping = exported.return(undefined).then((result) => {
      returned = true;
      return result;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(returned).toBe(false);
    failAhead(new Error('Query execution was interrupted'));
    await expect(stopping).resolves.toEqual({ done: true, value: undefined });
    expect(repository.readBatch).toHaveBeenCalledTimes(2);
    expect(repository.readBatch.mock.calls[1][3]).toBe(cancelled.signal);
  });
});
