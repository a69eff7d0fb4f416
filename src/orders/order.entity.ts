import { Column, Entity, Index, OneToMany, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import type { OrderStatusCode } from './order-status';
import { OrderSeat } from './order-seat.entity';

/**
 * The secondary indexes serve the listing: each filter column followed by
 * `created_at` (InnoDB appends the primary key), so the default sort
 * `createdAt desc, orderId desc` reads an index range in order.
 */
@Entity({ name: 'orders' })
@Index('idx_orders_created', ['createdAt'])
@Index('idx_orders_user_created', ['userId', 'createdAt'])
@Index('idx_orders_concert_created', ['concertId', 'createdAt'])
@Index('idx_orders_status_created', ['status', 'createdAt'])
@Index('idx_orders_user_concert_created', ['userId', 'concertId', 'createdAt'])
@Index('idx_orders_user_status_created', ['userId', 'status', 'createdAt'])
// Single-key sorts (migration AddSortIndexes): `(col)` read backwards serves `col desc, id desc`.
@Index('idx_orders_total_price', ['totalPrice'])
@Index('idx_orders_updated_at', ['updatedAt'])
@Index('idx_orders_status', ['status'])
@Index('idx_orders_concert_id', ['concertId'])
@Index('idx_orders_user_id', ['userId'])
// `(col asc, id desc)` serves `col asc, id desc`; TypeORM cannot describe a descending key part, so the
// migration alone defines these and schema comparison leaves them be.
@Index('idx_orders_total_price_asc', { synchronize: false })
@Index('idx_orders_updated_at_asc', { synchronize: false })
@Index('idx_orders_status_asc', { synchronize: false })
@Index('idx_orders_concert_id_asc', { synchronize: false })
@Index('idx_orders_user_id_asc', { synchronize: false })
@Index('idx_orders_created_at_asc', { synchronize: false })
export class Order {
  @PrimaryGeneratedColumn({ type: 'bigint', unsigned: true })
  id: number;

  @Column({ name: 'user_id', type: 'bigint', unsigned: true })
  userId: number;

  @Column({ name: 'concert_id', type: 'bigint', unsigned: true })
  concertId: number;

  @Column({ name: 'total_price', type: 'decimal', precision: 12, scale: 2 })
  totalPrice: number;

  @Column({ type: 'varchar', length: 32 })
  status: OrderStatusCode;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt: Date;

  @OneToMany(() => OrderSeat, (seat) => seat.order)
  seats: Relation<OrderSeat[]>;
}
