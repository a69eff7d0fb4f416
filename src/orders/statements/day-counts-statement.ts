import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { QueryShapes, type QueryValues } from '../../database/query-shapes';
import { COUNT_CHANGES_TABLE, COUNT_MOVES_TABLE, DAILY_COUNTS_TABLE } from '../counting/daily-counts';
import type { OrderFilters } from '../model';
import { wholeDaysOf } from './count-statement';
import { dayNumber } from './day-bounds';
import {
  conditionsOf,
  DAY_MS,
  matching,
  parametersOf,
  shapesOf,
  valuesOf,
  type ConditionShape,
} from './statement-parts';

/** The matching orders of one UTC day (days since 1970-01-01), as a page by number jumps over them. */
export interface DayCount {
  day: number;
  orders: number;
}

/** Everything the day counts' SQL depends on, and none of its values. */
interface DayCountsShape {
  statement: 'days';
  whole?: ConditionShape[];
  status: boolean;
  parts: Array<{ name: string; dayName: string; conditions: ConditionShape[] }>;
}

/** docs/API.md §22: a listing's matches day by day, exact as its count: totals, unfolded rows, part-days' rows. */
@Injectable()
export class DayCountStatements {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly shapes: QueryShapes,
  ) {}

  statement(filters: OrderFilters): [string, unknown[]] {
    const { createdFrom: from, createdBefore: before } = filters;
    const { firstWholeDay, afterWholeDays, whole } = wholeDaysOf(filters);
    const bounded = firstWholeDay !== undefined && afterWholeDays !== undefined;
    // A range within one day is one part-day; one across a midnight without a whole day, two.
    const sameDay = bounded && firstWholeDay > afterWholeDays;
    const noWholeDay = bounded && firstWholeDay >= afterWholeDays;
    const edges = sameDay
      ? [this.edge('onlyDay', filters, from, before)]
      : [this.edge('firstDay', filters, from, firstWholeDay), this.edge('lastDay', filters, afterWholeDays, before)];
    const parts = edges.filter((part) => part !== undefined);
    const values = Object.assign(
      noWholeDay ? {} : valuesOf(whole),
      ...parts.map((part) => ({ ...valuesOf(part.conditions), [part.dayName]: part.day })),
    ) as QueryValues;
    const shape: DayCountsShape = {
      statement: 'days',
      // None when the range covers no whole day: the totals then hold none of its orders.
      whole: noWholeDay ? undefined : shapesOf(whole),
      status: filters.status !== undefined,
      parts: parts.map(({ name, dayName, conditions }) => ({ name, dayName, conditions: shapesOf(conditions) })),
    };
    return this.shapes.known(shape, values) ?? this.shapes.laidOut(shape, this.build(shape), values);
  }

  private build({ whole, status, parts }: DayCountsShape) {
    const sources: string[] = [];
    let parameters: QueryValues = {};
    if (whole) {
      const where = (alias: string, extra: string[] = []) =>
        [...extra, ...whole.map(({ sql }) => `${alias}.${sql}`)].join(' AND ') || '1 = 1';
      sources.push(
        `SELECT ${dayNumber('d.day')} AS dayNumber, d.orders AS n FROM ${DAILY_COUNTS_TABLE} d WHERE ${where('d')}`,
        `SELECT ${dayNumber('c.day')}, c.delta FROM ${COUNT_CHANGES_TABLE} c WHERE ${where('c')}`,
      );
      // Moves net to zero over all statuses: only a status's count has any to add (into it) or subtract (out of it).
      if (status) {
        const days = whole.filter(({ name }) => name !== 'status').map(({ sql }) => `m.${sql}`);
        sources.push(
          `SELECT ${dayNumber('m.day')}, CASE WHEN m.to_status = :status THEN 1 ELSE -1 END FROM ${COUNT_MOVES_TABLE} m ` +
            `WHERE ${['(m.to_status = :status OR m.from_status = :status)', ...days].join(' AND ')}`,
        );
      }
      parameters = parametersOf(whole);
    }
    for (const part of parts) {
      const rows = matching(this.dataSource, part.conditions, part.name)
        .select(`:${part.dayName}`, 'dayNumber')
        .addSelect('COUNT(*)', 'n');
      sources.push(rows.getQuery());
      parameters = { ...parameters, ...rows.getParameters(), [part.dayName]: undefined };
    }
    return this.dataSource
      .createQueryBuilder()
      .select('x.dayNumber', 'day')
      .addSelect('SUM(x.n)', 'orders')
      .from(`(${sources.join(' UNION ALL ')})`, 'x')
      .groupBy('x.dayNumber')
      .having('SUM(x.n) <> 0')
      .orderBy('x.dayNumber', 'ASC')
      .setParameters(parameters);
  }

  /** A day the range covers in part: its orders counted from their rows, under that day's number. */
  private edge(name: string, filters: OrderFilters, edgeFrom: number | undefined, edgeBefore: number | undefined) {
    if (edgeFrom === undefined || edgeBefore === undefined || edgeFrom >= edgeBefore) return undefined;
    return {
      name,
      dayName: `${name}Number`,
      day: Math.floor(edgeFrom / DAY_MS),
      conditions: conditionsOf({ status: filters.status, createdFrom: edgeFrom, createdBefore: edgeBefore }, name),
    };
  }
}

/** The day counts' answer, numbers whatever the driver returned. */
export function dayCountsOf(rows: ReadonlyArray<Record<string, unknown>>): DayCount[] {
  return rows.map((row) => ({ day: Number(row.day), orders: Number(row.orders) }));
}
