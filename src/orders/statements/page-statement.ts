import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type ObjectLiteral } from 'typeorm';
import { QueryShapes, type QueryValues } from '../../database/query-shapes';
import type { MonthBranch } from '../month-branches';
import { Order } from '../order.entity';
import { SORT_COLUMNS } from '../index-fit';
import type { QueryPlan } from '../query-plan';
import { REPLICA_COLUMN } from '../replica-indexes';
import {
  conditionsOf,
  matching,
  reversed,
  seeking,
  orderedBy,
  shapesOf,
  valuesOf,
  walkConditions,
  walkShapeOf,
  type ConditionShape,
  type WalkShape,
} from './statement-parts';
import { boundConditions } from './day-bounds';
import type { CursorDirection, OrderFilters, RangeBounds, KeysetCursor, SortKey } from '../model';

/** A page to read: by offset, or, with `cursor`, from a boundary key within a walk's bound (offset then unused). */
export interface PageRequest {
  filters: OrderFilters;
  sort: SortKey[];
  limit: number;
  offset: number;
  cursor?: KeysetCursor;
}

/** The ids of a page through one index: its filters' and bounds' conditions, the walk from a cursor. */
interface IndexIdsShape {
  kind: 'index';
  conditions: ConditionShape[];
  walk?: WalkShape;
  indexes?: readonly string[];
}

/** The ids of a page merged from month branches (docs/adr/0011), each read through its own index. */
interface MergedIdsShape {
  kind: 'merge';
  parts: Array<{ alias: string; conditions: ConditionShape[]; walk?: WalkShape; index?: string }>;
}

/** Everything the page statement's SQL depends on, and none of its values: its key, and all its builder reads. */
interface PageShape {
  statement: 'page';
  ids: IndexIdsShape | MergedIdsShape;
  sort: SortKey[];
  cursor?: CursorDirection;
}

/** The page statement of a plan: the SQL written once per shape, the values laid in for each request. */
@Injectable()
export class PageStatements {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly shapes: QueryShapes,
  ) {}

  /** A deferred join: the page's ids are found from the index alone, and only those rows are read. */
  statement(request: PageRequest, read: QueryPlan | undefined, bounds?: RangeBounds): [string, unknown[]] {
    const { sort, limit, cursor } = request;
    const offset = cursor ? 0 : request.offset;
    const ids = read?.branches
      ? mergedIds(request, read.branches, read.indexes ?? [])
      : indexIds(request, read?.indexes, bounds);
    const shape: PageShape = { statement: 'page', ids: ids.shape, sort, cursor: cursor?.direction };
    const values = { ...ids.values, pageLimit: limit, pageOffset: offset };
    return this.shapes.known(shape, values) ?? this.shapes.laidOut(shape, this.build(shape), values);
  }

  private build({ ids, sort, cursor }: PageShape) {
    const pageIds = ids.kind === 'merge' ? this.mergedIds(ids, sort, cursor) : this.indexIds(ids, sort, cursor);
    const query = this.dataSource
      .createQueryBuilder(Order, 'o')
      // Limit and offset as parameters, so that every page of a shape shares its SQL.
      .innerJoin(`(${pageIds.sql} LIMIT :pageLimit OFFSET :pageOffset)`, 'p', 'p.id = o.id')
      .setParameters({ ...pageIds.parameters, pageLimit: undefined, pageOffset: undefined })
      .select('o.id', 'id')
      .addSelect('o.userId', 'userId')
      .addSelect('o.concertId', 'concertId')
      .addSelect('o.totalPrice', 'totalPrice')
      .addSelect('o.status', 'status')
      .addSelect('o.createdAt', 'createdAt')
      .addSelect('o.updatedAt', 'updatedAt');
    if (!cursor) {
      // The table's newest id, one step down the primary key; continuations encrypt it, as no caller may read it.
      const newest = this.dataSource.createQueryBuilder(Order, 'n').select('MAX(n.id)');
      query.addSelect(`(${newest.getQuery()})`, 'newestOrderId');
    }
    return orderedBy(query, 'o', sort);
  }

  private indexIds({ conditions, walk, indexes }: IndexIdsShape, sort: SortKey[], cursor?: CursorDirection) {
    const pageIds = matching(this.dataSource, conditions, 'i');
    if (walk) seeking(pageIds, walk);
    orderedBy(pageIds, 'i', cursor === 'before' ? reversed(sort) : sort).select('i.id', 'id');
    if (indexes) pageIds.useIndex([...indexes]);
    return { sql: pageIds.getQuery(), parameters: pageIds.getParameters() };
  }

  private mergedIds({ parts }: MergedIdsShape, sort: SortKey[], cursor?: CursorDirection) {
    const order = cursor === 'before' ? reversed(sort) : sort;
    let parameters: ObjectLiteral = { branchLimit: undefined };
    const selects = parts.map(({ alias, conditions, walk, index }) => {
      const part = matching(this.dataSource, conditions, alias);
      if (walk) seeking(part, walk);
      orderedBy(part, alias, order).select(`${alias}.id`, 'id');
      for (const { field } of order) if (field !== 'orderId') part.addSelect(`${alias}.${SORT_COLUMNS[field]}`, field);
      if (index) part.useIndex([index]);
      parameters = { ...parameters, ...part.getParameters() };
      return `(${part.getQuery()} LIMIT :branchLimit)`;
    });
    const merged = order
      .map(({ field, direction }) => `u.${field === 'orderId' ? 'id' : field} ${direction}`)
      .join(', ');
    return { sql: `SELECT u.id AS id FROM (${selects.join(' UNION ALL ')}) u ORDER BY ${merged}`, parameters };
  }
}

/** A page's ids through one index: the filters, the bounds where the matches lie, and a cursor's walk. */
function indexIds(
  { filters, sort, cursor }: PageRequest,
  indexes: readonly string[] | undefined,
  bounds: RangeBounds | undefined,
): { shape: IndexIdsShape; values: QueryValues } {
  const conditions = [...conditionsOf(filters, 'i'), ...boundConditions(bounds, 'i')];
  const walk = cursor && walkConditions(sort, cursor, 'i');
  return {
    shape: { kind: 'index', conditions: shapesOf(conditions), walk: walk && walkShapeOf(walk), indexes },
    values: { ...valuesOf(conditions), ...(walk && valuesOf([walk.bound, ...walk.terms])) },
  };
}

/** A month merge: each branch yields at most a page's ids with the request's filters and cursor, merged in order. */
function mergedIds(
  { filters, sort, limit, offset, cursor }: PageRequest,
  branches: readonly MonthBranch[],
  indexes: readonly string[],
): { shape: MergedIdsShape; values: QueryValues } {
  const [walkedIndex, sortedIndex] = indexes;
  const parts = branches.map((branch, position) => {
    const alias = `m${position}`;
    // A sorted part's dates lie within the range's, so they stand in for the range's bounds they narrow.
    const conditions =
      branch.kind === 'walk'
        ? conditionsOf(filters, alias)
        : conditionsOf(
            {
              ...filters,
              createdFrom: branch.from ?? filters.createdFrom,
              createdBefore: branch.before ?? filters.createdBefore,
            },
            alias,
          );
    if (branch.kind === 'walk') {
      conditions.push({
        sql: `${alias}.${REPLICA_COLUMN.name} = :month_${alias}`,
        name: `month_${alias}`,
        value: branch.month,
      });
    }
    const walk = cursor && walkConditions(sort, cursor, alias);
    return { alias, conditions, walk, index: branch.kind === 'walk' ? walkedIndex : sortedIndex };
  });
  return {
    shape: {
      kind: 'merge',
      parts: parts.map(({ alias, conditions, walk, index }) => ({
        alias,
        conditions: shapesOf(conditions),
        walk: walk && walkShapeOf(walk),
        index,
      })),
    },
    values: {
      ...Object.assign(
        {},
        ...parts.map(({ conditions, walk }) => ({
          ...valuesOf(conditions),
          ...(walk && valuesOf([walk.bound, ...walk.terms])),
        })),
      ),
      branchLimit: offset + limit,
    } as QueryValues,
  };
}
