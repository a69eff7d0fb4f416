import { Role, type Caller } from '../auth/role';
import { AdminOrderDto, UserOrderDto, type ElementDto, type OrderElement } from './dto/order.dto';
import { ADMIN_FILTERS, AdminOrdersQueryDto, USER_PARAMETERS, UserOrdersQueryDto } from './dto/orders-query.dto';
import { ADMIN_COLUMNS, USER_COLUMNS, type ExportColumns } from './export/export-columns';
import { ADMIN_SORT_FIELDS, USER_SORT_FIELDS, type OrderFilters, type SortField } from './model';

/** What a listing is for the caller who asks, resolved once at the edge (`listingVariantOf`): data only. */
export interface ListingVariant<Element extends OrderElement = OrderElement> {
  /** The parameters the variant takes, and the class that validates their values. */
  readonly parameters: ReadonlySet<string>;
  readonly queryDto: typeof UserOrdersQueryDto;
  /** Whether the query's filters are read: a member's listing is their own orders, and the filters are refused (403). */
  readonly readsFilters: boolean;
  readonly sortFields: readonly SortField[];
  /** Who may follow a walk begun for this variant: the administrators' view, or one member's own orders. */
  readonly walkOwner: string;
  /** The member whose own orders these are; none for an administrator, who reads the filters given. */
  readonly memberId?: number;
  /** The class of its elements: pages and exports write their fields, in its order. */
  readonly element: ElementDto;
  /** The fields an export writes (CSV and XLSX columns) and may be narrowed to. */
  readonly columns: ExportColumns<Element>;
  /** Others' orders: every request leaves an access record, and an export says why (docs/API.md §21). */
  readonly othersOrders: boolean;
}

const ADMINISTRATOR: ListingVariant<AdminOrderDto> = {
  parameters: new Set<string>([...USER_PARAMETERS, ...ADMIN_FILTERS]),
  queryDto: AdminOrdersQueryDto,
  readsFilters: true,
  sortFields: ADMIN_SORT_FIELDS,
  walkOwner: Role.Admin,
  element: AdminOrderDto,
  columns: ADMIN_COLUMNS,
  othersOrders: true,
};

const MEMBER = {
  parameters: new Set<string>(USER_PARAMETERS),
  queryDto: UserOrdersQueryDto,
  readsFilters: false,
  sortFields: USER_SORT_FIELDS,
  element: UserOrderDto,
  columns: USER_COLUMNS,
  othersOrders: false,
} as const;

/** The one place past authentication where the caller's role decides anything. */
export function listingVariantOf(caller: Caller): ListingVariant {
  return caller.role === Role.Admin
    ? ADMINISTRATOR
    : { ...MEMBER, walkOwner: `${Role.User}:${caller.id}`, memberId: caller.id };
}

/** The orders read for the filters the query gives: a member's own, whatever the query says. */
export function scopedFilters(variant: ListingVariant, filters: OrderFilters): OrderFilters {
  return variant.memberId === undefined ? filters : { userId: variant.memberId };
}
