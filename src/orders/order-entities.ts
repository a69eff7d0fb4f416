import { OrderSeat } from './order-seat.entity';
import { Order } from './order.entity';

/** The tables the listing maps, for the module's forFeature and the TypeORM CLI's DataSource. */
export const ORDER_ENTITIES = [Order, OrderSeat];
