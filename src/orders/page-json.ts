import type { Type } from '@nestjs/common';
import fastJson, { type ObjectSchema, type Schema } from 'fast-json-stringify';
import { apiPropertiesOf, elementFields, type ElementField, type FieldKind } from './dto/element-fields';
import { AdminOrderDto, SeatDto, UserOrderDto, type ElementDto, type OrderElement } from './dto/order.dto';
import { OrdersPageDto } from './dto/orders-page.dto';

/** Serializes a page to the bytes `JSON.stringify` would write, compiled once from its schema. */
type PageJson = (page: OrdersPageDto<OrderElement>) => string;

const jsonTypeOf = (kind: FieldKind): Schema =>
  kind === 'seats'
    ? { type: 'array', items: objectSchemaOf(elementFields(SeatDto)) }
    : { type: kind === 'integer' ? 'integer' : kind === 'number' ? 'number' : 'string' };

/** Fields of an element's DTO as a JSON schema's properties, in the DTO's order: the order they are written in. */
export function objectSchemaOf(fields: readonly ElementField[]): ObjectSchema {
  return { type: 'object', properties: Object.fromEntries(fields.map(({ name, kind }) => [name, jsonTypeOf(kind)])) };
}

/** An envelope property's schema: a count, a flag, or the elements of `element`'s schema. */
function envelopeSchemaOf(name: string, type: unknown, element: Type): Schema {
  if (type === 'array') return { type: 'array', items: objectSchemaOf(elementFields(element)) };
  if (type === 'integer' || type === 'boolean') return { type };
  throw new Error(`${name}: its @ApiProperty names no type the page envelope writes`);
}

/** The envelope as OrdersPageDto declares it, its elements of `element`'s schema. */
export function pageSchemaOf(element: Type): ObjectSchema {
  const properties = apiPropertiesOf(OrdersPageDto).map(({ name, metadata }): [string, Schema] => [
    name,
    envelopeSchemaOf(name, metadata.type, element),
  ]);
  return { type: 'object', properties: Object.fromEntries(properties) };
}

/** An element's fields as one JSON object, as NDJSON writes each line: the DTO's order, only the fields given. */
export function elementJsonOf(fields: readonly ElementField[]): (element: OrderElement) => string {
  return fastJson(objectSchemaOf(fields));
}

const PAGE_JSON = new Map<ElementDto, PageJson>([
  [UserOrderDto, fastJson(pageSchemaOf(UserOrderDto))],
  [AdminOrderDto, fastJson(pageSchemaOf(AdminOrderDto))],
]);

/** A page of `element`s as JSON, its keys in the DTOs' order. */
export const pageJsonOf = (element: ElementDto): PageJson => PAGE_JSON.get(element)!;
