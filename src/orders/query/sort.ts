import type { SortField, SortKey } from '../model';

export const DEFAULT_SORT = 'createdAt,desc';

/** `tieBreakAppended`: `orderId` was not given, and was added as the last key. */
export type SortParse = { ok: true; keys: SortKey[]; tieBreakAppended: boolean } | { ok: false; message: string };

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

/** `field[,asc|desc]`, repeatable; `orderId` is appended unless present, in the direction of the key before it, so
 * that ties have one order and one index serves a sort and its reverse (docs/adr/0017). */
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
  const tieBreakAppended = !keys.some((key) => key.field === 'orderId');
  if (tieBreakAppended) keys.push({ field: 'orderId', direction: keys[keys.length - 1].direction });
  return { ok: true, keys, tieBreakAppended };
}
