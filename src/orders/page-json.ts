import type { Type } from '@nestjs/common';
import fastJson, { type ObjectSchema, type Schema } from 'fast-json-stringify';
import { elementFields, type FieldKind } from './dto/element-fields';
import { AdminOrderDto, SeatDto, UserOrderDto } from './dto/order.dto';
import type { Page } from './paging/page';

/** Serializes a page to the bytes `JSON.stringify` would write, compiled once from its schema. */
export type PageJson<Element> = (page: Page<Element>) => string;

/** A DTO's fields as a JSON schema's properties, in the DTO's order, which is the order they are written in. */
export function objectSchemaOf(dto: Type): ObjectSchema {
  const jsonType = (kind: FieldKind): Schema =>
    kind === 'seats'
      ? { type: 'array', items: objectSchemaOf(SeatDto) }
      : { type: kind === 'integer' ? 'integer' : kind === 'number' ? 'number' : 'string' };
  return {
    type: 'object',
    properties: Object.fromEntries(elementFields(dto).map(({ name, kind }) => [name, jsonType(kind)])),
  };
}

/** The page envelope around elements of `element`'s schema. */
const pageSchemaOf = (element: Type): ObjectSchema => ({
  type: 'object',
  properties: {
    totalPages: { type: 'integer' },
    totalElementCount: { type: 'integer' },
    currentPage: { type: 'integer' },
    currentElementCount: { type: 'integer' },
    perPageNumber: { type: 'integer' },
    firstPage: { type: 'boolean' },
    lastPage: { type: 'boolean' },
    hasNextPage: { type: 'boolean' },
    hasPrevious: { type: 'boolean' },
    elements: { type: 'array', items: objectSchemaOf(element) },
  },
});

export const userPageJson: PageJson<UserOrderDto> = fastJson(pageSchemaOf(UserOrderDto));
export const adminPageJson: PageJson<AdminOrderDto> = fastJson(pageSchemaOf(AdminOrderDto));
