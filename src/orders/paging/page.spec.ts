import { describe, expect, it } from '@jest/globals';
import { buildPage } from './page';

describe('buildPage', () => {
  it('describes a middle page', () => {
    expect(buildPage(['x', 'y'], 45, 2, 20)).toEqual({
      totalPages: 3,
      totalElementCount: 45,
      currentPage: 2,
      currentElementCount: 2,
      perPageNumber: 20,
      firstPage: false,
      lastPage: false,
      hasNextPage: true,
      hasPrevious: true,
      elements: ['x', 'y'],
    });
  });

  it('keeps the contract’s key order', () => {
    expect(Object.keys(buildPage([], 0, 1, 20))).toEqual([
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
    expect(buildPage([], 0, 1, 20)).toMatchObject({
      totalPages: 0,
      firstPage: true,
      lastPage: true,
      hasNextPage: false,
      hasPrevious: false,
    });
  });

  it('rounds the page count up and marks an exactly full last page as last', () => {
    expect(buildPage([], 41, 1, 20).totalPages).toBe(3);
    expect(buildPage(new Array(20).fill(0), 40, 2, 20)).toMatchObject({
      totalPages: 2,
      lastPage: true,
      hasNextPage: false,
    });
  });

  it('reports a page past the end as requested, empty, last and with a previous page', () => {
    expect(buildPage([], 45, 9, 20)).toMatchObject({
      currentPage: 9,
      currentElementCount: 0,
      lastPage: true,
      hasNextPage: false,
      hasPrevious: true,
    });
  });
});
