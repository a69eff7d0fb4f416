import { Column, Entity, Index, OneToMany, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import type { OrderStatusCode } from './order-status';
import { OrderSeat } from './order-seat.entity';

/** docs/API.md §7: only indexes that pay for what they cost the order writers; none holds `status` or `updated_at`,
 * which every payment changes. */
@Entity({ name: 'orders' })
@Index('idx_orders_created', ['createdAt'])
@Index('idx_orders_user_created', ['userId', 'createdAt'])
@Index('idx_orders_concert_created', ['concertId', 'createdAt'])
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
