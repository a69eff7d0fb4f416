import { Role, type Caller } from '../auth/role';
import type { LocalTimeFormatter } from '../common/time/local-time';
import type { AdminOrderDto, OrderElement, SeatDto, UserOrderDto } from './dto/order.dto';
import { ADMIN_FILTERS, AdminOrdersQueryDto, USER_PARAMETERS, UserOrdersQueryDto } from './dto/orders-query.dto';
import { ADMIN_CSV, USER_CSV, type CsvColumns } from './export/csv-columns';
import { toAdminOrder, toUserOrder } from './order-element';
import { adminPageJson, userPageJson } from './page-json';
import type { Page } from './paging/page';
import { ADMIN_SORT_FIELDS, USER_SORT_FIELDS, type OrderFilters, type OrderRow, type SortField } from './model';

/** What a listing is for the caller who asks, resolved once at the edge (`listingVariantOf`). */
export interface ListingVariant<Element extends OrderElement = OrderElement> {
  /** The parameters the variant takes, and the class that validates their values. */
  readonly parameters: ReadonlySet<string>;
  readonly queryDto: typeof UserOrdersQueryDto;
  /** Whether the query's filters are read: a member's listing is their own orders, and the filters are refused (403). */
  readonly readsFilters: boolean;
  readonly sortFields: readonly SortField[];
  /** Who may follow a walk begun for this variant: the administrators' view, or one member's own orders. */
  readonly walkOwner: string;
  /** The orders read for the filters the query gives. */
  scope(filters: OrderFilters): OrderFilters;
  toElement(row: OrderRow, seats: SeatDto[], time: LocalTimeFormatter): Element;
  /** A page of its elements as JSON, with their keys in the contract's order. */
  pageJson(page: Page<Element>): string;
  readonly csv: CsvColumns<Element>;
  /** Others' orders: every request leaves an access record, and an export says why (docs/API.md §21). */
  readonly othersOrders: boolean;
}

const ADMINISTRATOR: ListingVariant<AdminOrderDto> = {
  parameters: new Set<string>([...USER_PARAMETERS, ...ADMIN_FILTERS]),
  queryDto: AdminOrdersQueryDto,
  readsFilters: true,
  sortFields: ADMIN_SORT_FIELDS,
  walkOwner: Role.Admin,
  scope: (filters) => filters,
  toElement: toAdminOrder,
  pageJson: adminPageJson,
  csv: ADMIN_CSV,
  othersOrders: true,
};

const MEMBER = {
  parameters: new Set<string>(USER_PARAMETERS),
  queryDto: UserOrdersQueryDto,
  readsFilters: false,
  sortFields: USER_SORT_FIELDS,
  toElement: toUserOrder,
  pageJson: userPageJson,
  csv: USER_CSV,
  othersOrders: false,
} as const;

/** A member's variant: their own orders, whatever the query says, without `userId` in the elements. */
const memberVariant = (memberId: number): ListingVariant<UserOrderDto> => ({
  ...MEMBER,
  walkOwner: `${Role.User}:${memberId}`,
  scope: () => ({ userId: memberId }),
});

/** The one place past authentication where the caller's role decides anything. */
export function listingVariantOf(caller: Caller): ListingVariant {
  return caller.role === Role.Admin ? ADMINISTRATOR : memberVariant(caller.id);
}
