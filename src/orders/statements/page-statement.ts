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
  presentIn,
  reversed,
  seeking,
  orderedBy,
  valuesOf,
  walkConditions,
  sortShapeOf,
} from './statement-parts';
import { boundConditions } from './day-bounds';
import type { OrderFilters, RangeBounds, KeysetCursor, SortKey } from '../model';

/** A page to read: by offset, or, with `cursor`, from a boundary key within a walk's bound (offset then unused). */
export interface PageRequest {
  filters: OrderFilters;
  sort: SortKey[];
  limit: number;
  offset: number;
  cursor?: KeysetCursor;
}

/** A page's ids as `findPage` joins them: the statement's shape key and values, and its SQL built once per shape. */
interface PageIds {
  key: string;
  values: QueryValues;
  build: () => { sql: string; parameters: ObjectLiteral };
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
    const indexes = read?.indexes;
    const ids = read?.branches
      ? this.mergedIds(request, read.branches, indexes ?? [])
      : this.pageIds(request, indexes, bounds);
    const values = { ...ids.values, pageLimit: limit, pageOffset: offset };
    const key = `page|${ids.key}|${sortShapeOf(sort)}|${indexes?.join(',') ?? ''}|${cursor?.direction ?? ''}`;
    return this.shapes.statement(key, values, () => {
      const pageIds = ids.build();
      const query = this.dataSource
        .createQueryBuilder(Order, 'o')
        // Limit and offset as parameters, so that every page of a shape shares its SQL.
        .innerJoin(`(${pageIds.sql} LIMIT :pageLimit OFFSET :pageOffset)`, 'p', 'p.id = o.id')
        .setParameters({ ...pageIds.parameters, pageLimit: limit, pageOffset: offset })
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
    });
  }

  private pageIds(
    { filters, sort, cursor }: PageRequest,
    indexes: readonly string[] | undefined,
    bounds: RangeBounds | undefined,
  ): PageIds {
    const conditions = [...conditionsOf(filters, 'i'), ...boundConditions(bounds, 'i')];
    const walk = cursor && walkConditions(sort, cursor, 'i');
    return {
      key: presentIn(conditions),
      values: { ...valuesOf(conditions), ...(walk && valuesOf([walk.bound, ...walk.terms])) },
      build: () => {
        const pageIds = matching(this.dataSource, conditions, 'i');
        if (walk) seeking(pageIds, walk);
        orderedBy(pageIds, 'i', cursor?.direction === 'before' ? reversed(sort) : sort).select('i.id', 'id');
        if (indexes) pageIds.useIndex([...indexes]);
        return { sql: pageIds.getQuery(), parameters: pageIds.getParameters() };
      },
    };
  }

  /** A month merge: each branch yields at most a page's ids with the request's filters and cursor, merged in order. */
  private mergedIds(
    { filters, sort, limit, offset, cursor }: PageRequest,
    branches: readonly MonthBranch[],
    indexes: readonly string[],
  ): PageIds {
    const [walkedIndex, sortedIndex] = indexes;
    const order = cursor?.direction === 'before' ? reversed(sort) : sort;
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
      return {
        alias,
        conditions,
        walk: cursor && walkConditions(sort, cursor, alias),
        index: branch.kind === 'walk' ? walkedIndex : sortedIndex,
      };
    });
    return {
      key: `merge|${parts.map(({ conditions }) => presentIn(conditions)).join(';')}`,
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
      build: () => {
        let parameters: ObjectLiteral = { branchLimit: offset + limit };
        const selects = parts.map(({ alias, conditions, walk, index }) => {
          const part = matching(this.dataSource, conditions, alias);
          if (walk) seeking(part, walk);
          orderedBy(part, alias, order).select(`${alias}.id`, 'id');
          for (const { field } of order)
            if (field !== 'orderId') part.addSelect(`${alias}.${SORT_COLUMNS[field]}`, field);
          if (index) part.useIndex([index]);
          parameters = { ...parameters, ...part.getParameters() };
          return `(${part.getQuery()} LIMIT :branchLimit)`;
        });
        const merged = order
          .map(({ field, direction }) => `u.${field === 'orderId' ? 'id' : field} ${direction}`)
          .join(', ');
        return { sql: `SELECT u.id AS id FROM (${selects.join(' UNION ALL ')}) u ORDER BY ${merged}`, parameters };
      },
    };
  }
}
