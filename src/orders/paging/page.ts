/** The page envelope, its keys in the contract's order. */
export interface Page<T> {
  totalPages: number;
  totalElementCount: number;
  currentPage: number;
  currentElementCount: number;
  perPageNumber: number;
  firstPage: boolean;
  lastPage: boolean;
  hasNextPage: boolean;
  hasPrevious: boolean;
  elements: T[];
}

export function buildPage<T>(elements: T[], totalElementCount: number, currentPage: number, size: number): Page<T> {
  const totalPages = Math.ceil(totalElementCount / size);
  return {
    totalPages,
    totalElementCount,
    currentPage,
    currentElementCount: elements.length,
    perPageNumber: size,
    firstPage: currentPage === 1,
    lastPage: currentPage >= totalPages,
    hasNextPage: currentPage < totalPages,
    hasPrevious: currentPage > 1,
    elements,
  };
}
