import { describe, expect, it } from '@jest/globals';
import type { OrderElement } from './order.dto';
import { OrdersPageDto } from './orders-page.dto';

// What the envelope holds is not its concern: two elements it can tell apart.
const [x, y] = [{ orderId: 1 }, { orderId: 2 }] as OrderElement[];

describe('OrdersPageDto.of', () => {
  it('describes a middle page', () => {
    expect(OrdersPageDto.of([x, y], 45, 2, 20)).toEqual({
      totalPages: 3,
      totalElementCount: 45,
      currentPage: 2,
      currentElementCount: 2,
      perPageNumber: 20,
      firstPage: false,
      lastPage: false,
      hasNextPage: true,
      hasPrevious: true,
      elements: [x, y],
    });
  });

  it('keeps the contract’s key order', () => {
    expect(Object.keys(OrdersPageDto.of([], 0, 1, 20))).toEqual([
      'totalPages',
      'totalElementCount',
      'currentPage',
      'currentElementCount',
      'perPageNumber',
      'firstPage',
      'lastPage',
      'hasNextPage',
      'hasPrevious',
      'elements',
    ]);
  });

  it('has zero pages when nothing matches, and page 1 is then both first and last', () => {
    expect(OrdersPageDto.of([], 0, 1, 20)).toMatchObject({
      totalPages: 0,
      firstPage: true,
      lastPage: true,
      hasNextPage: false,
      hasPrevious: false,
    });
  });

  it('rounds the page count up and marks an exactly full last page as last', () => {
    expect(OrdersPageDto.of([], 41, 1, 20).totalPages).toBe(3);
    expect(OrdersPageDto.of(new Array<OrderElement>(20).fill(x), 40, 2, 20)).toMatchObject({
      totalPages: 2,
      lastPage: true,
      hasNextPage: false,
    });
  });

  it('reports a page past the end as requested, empty, last and with a previous page', () => {
    expect(OrdersPageDto.of([], 45, 9, 20)).toMatchObject({
      currentPage: 9,
      currentElementCount: 0,
      lastPage: true,
      hasNextPage: false,
      hasPrevious: true,
    });
  });
});
