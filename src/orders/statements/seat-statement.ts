import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { QueryShapes } from '../../database/query-shapes';
import { OrderSeat } from '../order-seat.entity';

export interface SeatRow {
  orderId: number;
  seatPriceId: number;
  price: number;
}

/** The seats of a page's orders, in one `IN (...)`. */
@Injectable()
export class SeatStatements {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly shapes: QueryShapes,
  ) {}

  statement(orderIds: number[]): [string, unknown[]] {
    // The number of ids is part of the shape: a page holds at most 100, an export's batch 1,000.
    const shape = { statement: 'seats', ids: orderIds.length };
    const values = { orderIds };
    return this.shapes.known(shape, values) ?? this.shapes.laidOut(shape, this.build(shape), values);
  }

  private build({ ids }: { ids: number }) {
    return this.dataSource
      .createQueryBuilder(OrderSeat, 's')
      .select('s.orderId', 'orderId')
      .addSelect('s.seatPriceId', 'seatPriceId')
      .addSelect('s.price', 'price')
      .where('s.orderId IN (:...orderIds)', { orderIds: new Array<undefined>(ids).fill(undefined) })
      .orderBy('s.orderId', 'ASC')
      .addOrderBy('s.seatPriceId', 'ASC');
  }
}
