import 'dotenv/config';
import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { And, DataSource, LessThan, MoreThanOrEqual, type FindOptionsOrder, type FindOptionsWhere } from 'typeorm';
import { AppModule } from '../src/app.module';
import { Role, type Caller } from '../src/auth/role';
import { APP_OPTIONS, configureApp } from '../src/bootstrap/configure-app';
import { createHttpAdapter } from '../src/bootstrap/http-adapter';
import { LocalTimeFormatter } from '../src/common/time/local-time';
import { toAdminOrder, toUserOrder } from '../src/orders/order-element';
import { Order } from '../src/orders/order.entity';
import { SORT_COLUMNS } from '../src/orders/index-fit';
import { OrdersService, type ListedPage } from '../src/orders/orders.service';
import { OrdersPageDto } from '../src/orders/dto/orders-page.dto';
import type { ListOrdersQuery } from '../src/orders/query/list-orders-query';

/**
 * What a typical first version does: TypeORM's findAndCount with the seats
 * relation, skip/take and order, behind the same controller, guards and
 * validation. TypeORM pages a joined one-to-many with a DISTINCT sub-query.
 */
@Injectable()
class NaiveOrdersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly time: LocalTimeFormatter,
  ) {}

  /** The page only: a first version writes no continuation, so its links are the plain ones of docs/API.md §4. */
  async list(caller: Caller, query: ListOrdersQuery): Promise<ListedPage> {
    const isAdmin = caller.role === Role.Admin;
    const filters = isAdmin ? query.filters : { userId: caller.id };
    const where: FindOptionsWhere<Order> = {};
    if (filters.userId !== undefined) where.userId = filters.userId;
    if (filters.concertId !== undefined) where.concertId = filters.concertId;
    if (filters.status !== undefined) where.status = filters.status;
    const from = filters.createdFrom === undefined ? undefined : MoreThanOrEqual(new Date(filters.createdFrom));
    const before = filters.createdBefore === undefined ? undefined : LessThan(new Date(filters.createdBefore));
    if (from && before) where.createdAt = And(from, before);
    else if (from ?? before) where.createdAt = from ?? before;
    const order = Object.fromEntries(
      query.sort.map(({ field, direction }) => [SORT_COLUMNS[field], direction]),
    ) as FindOptionsOrder<Order>;
    const [orders, total] = await this.dataSource.getRepository(Order).findAndCount({
      where,
      relations: { seats: true },
      order,
      skip: (query.page - 1) * query.size,
      take: query.size,
    });
    const toElement = isAdmin ? toAdminOrder : toUserOrder;
    const elements = orders.map((order) =>
      toElement(
        order,
        [...order.seats]
          .sort((a, b) => a.seatPriceId - b.seatPriceId)
          .map(({ seatPriceId, price }) => ({ seatPriceId, price })),
        this.time,
      ),
    );
    return { page: OrdersPageDto.of(elements, total, query.page, query.size) };
  }
}

async function main(): Promise<void> {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot()] })
    .overrideProvider(OrdersService)
    .useClass(NaiveOrdersService)
    .compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(), APP_OPTIONS);
  configureApp(app);
  await app.listen(Number(process.env.PORT ?? 3902), '127.0.0.1');
}

void main();
