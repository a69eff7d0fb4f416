import type { DataSource, SelectQueryBuilder } from 'typeorm';
import { storedDateTimeToEpochMs, toStoredDateTime } from '../../common/time/local-time';
import type { QueryValues } from '../../database/query-shapes';
import { Order } from '../order.entity';
import { SORT_COLUMNS } from '../index-fit';
import type { OrderFilters, OrderRow, KeysetCursor, SortField, SortKey, SortValue } from '../model';

// The pieces every statement of the listing is built from: the filters as conditions, the sort, the cursor of a walk.

/** A condition as it shapes a statement: its SQL and its parameter's name, never the value. */
export interface ConditionShape {
  sql: string;
  name: string;
}

/** A condition of the filters, with its parameter named after the alias so that several can share one statement. */
export interface Condition extends ConditionShape {
  value: unknown;
}

/** The conditions as a statement's shape holds them. */
export const shapesOf = (conditions: readonly Condition[]): ConditionShape[] =>
  conditions.map(({ sql, name }) => ({ sql, name }));

/** The parameters a shape's conditions name, for a query builder laying out its SQL: the values come later. */
export const parametersOf = (conditions: readonly ConditionShape[]): QueryValues =>
  Object.fromEntries(conditions.map(({ name }) => [name, undefined]));

export const DAY_MS = 86_400_000;
/** A UTC day as the per-day totals hold it. */
export const toDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

const TIME_FIELDS: ReadonlySet<SortField> = new Set(['createdAt', 'updatedAt']);

export const reversed = (sort: SortKey[]): SortKey[] =>
  sort.map(({ field, direction }) => ({ field, direction: direction === 'ASC' ? 'DESC' : 'ASC' }));

export const valuesOf = (conditions: readonly Condition[]): QueryValues =>
  Object.fromEntries(conditions.map(({ name, value }) => [name, value]));
/** A sort as it shapes a statement: its keys and their directions, never a value. */
export const sortShapeOf = (sort: readonly SortKey[]): string =>
  sort.map(({ field, direction }) => `${field} ${direction}`).join(',');

/** A row's value of each sort key, as a continuation carries it and `findPage` seeks from it (times as epoch ms). */
export function sortValuesOf(row: OrderRow, sort: SortKey[]): SortValue[] {
  return sort.map(({ field }) => {
    const value = row[SORT_COLUMNS[field]];
    // A time is a Date from mysql2 and stored text from sql.js; the token carries neither, but the instant.
    return TIME_FIELDS.has(field) ? storedDateTimeToEpochMs(value as Date | string) : (value as SortValue);
  });
}

export function conditionsOf(filters: OrderFilters, alias: string): Condition[] {
  const conditions: Condition[] = [];
  const add = (property: keyof Order, operator: string, name: string, value: unknown) =>
    conditions.push({ sql: `${alias}.${property} ${operator} :${name}_${alias}`, name: `${name}_${alias}`, value });
  if (filters.userId !== undefined) add('userId', '=', 'userId', filters.userId);
  if (filters.concertId !== undefined) add('concertId', '=', 'concertId', filters.concertId);
  if (filters.status !== undefined) add('status', '=', 'status', filters.status);
  if (filters.createdFrom !== undefined) add('createdAt', '>=', 'createdFrom', toStoredDateTime(filters.createdFrom));
  if (filters.createdBefore !== undefined)
    add('createdAt', '<', 'createdBefore', toStoredDateTime(filters.createdBefore));
  return conditions;
}

/** The orders matching a shape's conditions, their parameters named for the values to come. */
export function matching(
  dataSource: DataSource,
  conditions: readonly ConditionShape[],
  alias: string,
): SelectQueryBuilder<Order> {
  const query = dataSource.createQueryBuilder(Order, alias);
  for (const { sql, name } of conditions) query.andWhere(sql, { [name]: undefined });
  return query;
}

export function orderedBy(query: SelectQueryBuilder<Order>, alias: string, sort: SortKey[]): SelectQueryBuilder<Order> {
  for (const { field, direction } of sort) {
    query.addOrderBy(`${alias}.${SORT_COLUMNS[field]}`, direction);
  }
  return query;
}

/** The walk's bound, and one term per sort key, to be joined by OR: equal on every key before it, past the
 * boundary on this one. */
export function walkConditions(
  sort: SortKey[],
  cursor: KeysetCursor,
  alias: string,
): { bound: Condition; terms: Condition[] } {
  const column = (field: SortField) => `${alias}.${SORT_COLUMNS[field]}`;
  const parameter = (index: number) => `cursor${index}_${alias}`;
  const terms = sort.map(({ field, direction }, index): Condition => {
    const ascending = (direction === 'ASC') === (cursor.direction === 'after');
    const equalBefore = sort.slice(0, index).map((key, before) => `${column(key.field)} = :${parameter(before)}`);
    const past = `${column(field)} ${ascending ? '>' : '<'} :${parameter(index)}`;
    return {
      sql: `(${[...equalBefore, past].join(' AND ')})`,
      name: parameter(index),
      value: TIME_FIELDS.has(field) ? toStoredDateTime(Number(cursor.key[index])) : cursor.key[index],
    };
  });
  const bound = { sql: `${alias}.id <= :walkBound_${alias}`, name: `walkBound_${alias}`, value: cursor.bound };
  return { bound, terms };
}

/** A walk's conditions as a statement's shape holds them. */
export interface WalkShape {
  bound: ConditionShape;
  terms: ConditionShape[];
}

export const walkShapeOf = ({ bound, terms }: { bound: Condition; terms: Condition[] }): WalkShape => ({
  bound: { sql: bound.sql, name: bound.name },
  terms: shapesOf(terms),
});

export function seeking(query: SelectQueryBuilder<Order>, walk: WalkShape): void {
  query.andWhere(walk.bound.sql, parametersOf([walk.bound]));
  query.andWhere(`(${walk.terms.map(({ sql }) => sql).join(' OR ')})`, parametersOf(walk.terms));
}
