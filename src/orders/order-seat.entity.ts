import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Order } from './order.entity';

@Entity({ name: 'order_seats' })
export class OrderSeat {
  @PrimaryColumn({ name: 'order_id', type: 'bigint', unsigned: true })
  orderId: number;

  @PrimaryColumn({ name: 'seat_price_id', type: 'bigint', unsigned: true })
  seatPriceId: number;

  @Column({ type: 'decimal', precision: 12, scale: 2 })
  price: number;

  @ManyToOne(() => Order, (order) => order.seats, { onDelete: 'CASCADE', onUpdate: 'RESTRICT' })
  @JoinColumn({ name: 'order_id', foreignKeyConstraintName: 'fk_order_seats_order' })
  order: Relation<Order>;
}
