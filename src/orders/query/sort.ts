import type { SortField, SortKey } from '../model';

export const DEFAULT_SORT = 'createdAt,desc';

export type SortParse = { ok: true; keys: SortKey[] } | { ok: false; message: string };

function parseTerm(term: string, allowed: readonly SortField[]): SortKey | string {
  const parts = term.split(',');
  if (parts.length > 2) {
    return `"${term}" is not of the form field or field,asc or field,desc`;
  }
  const [field, direction = 'asc'] = parts;
  if (!(allowed as readonly string[]).includes(field)) {
    return `"${field}" is not a sortable field; use one of ${allowed.join(', ')}`;
  }
  const normalized = direction.toUpperCase();
  if (normalized !== 'ASC' && normalized !== 'DESC') {
    return `"${direction}" is not a direction; use asc or desc`;
  }
  return { field: field as SortField, direction: normalized };
}

/**
 * docs/API.md §3: `field[,asc|desc]`, repeatable; `orderId` (descending) is
 * appended unless present so that rows equal on every key still have one
 * order and pages neither skip nor repeat them.
 */
export function parseSort(terms: readonly string[], allowed: readonly SortField[]): SortParse {
  const keys: SortKey[] = [];
  for (const term of terms.length > 0 ? terms : [DEFAULT_SORT]) {
    const key = parseTerm(term, allowed);
    if (typeof key === 'string') {
      return { ok: false, message: key };
    }
    if (keys.some((existing) => existing.field === key.field)) {
      return { ok: false, message: `"${key.field}" is given more than once` };
    }
    keys.push(key);
  }
  if (!keys.some((key) => key.field === 'orderId')) {
    keys.push({ field: 'orderId', direction: 'DESC' });
  }
  return { ok: true, keys };
}
