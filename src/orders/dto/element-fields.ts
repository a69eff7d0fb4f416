import type { Type } from '@nestjs/common';
import { DECORATORS } from '@nestjs/swagger';
import { LOCAL_DATE_TIME_PATTERN, SeatDto } from './order.dto';

/** How a field is written: its JSON type, its CSV cell and its spreadsheet cell all follow from it. */
export type FieldKind = 'integer' | 'number' | 'text' | 'localDateTime' | 'seats';

export interface ElementField {
  readonly name: string;
  readonly kind: FieldKind;
}

/** What `@ApiProperty` recorded of a property: every field of an element names its type. */
export interface PropertyMetadata {
  type?: unknown;
  isArray?: boolean;
  pattern?: string;
}

/** A DTO's properties in its declared order, with what their `@ApiProperty` decorators recorded: the same that the
 * OpenAPI document shows, so that serializers and export columns follow the DTO. */
export function apiPropertiesOf(dto: Type): Array<{ name: string; metadata: PropertyMetadata }> {
  const prototype = dto.prototype as object;
  const keys = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, prototype) ?? []) as string[];
  return keys.map((key) => {
    // Swagger records each property as `:name`.
    const name = key.slice(1);
    return {
      name,
      metadata: Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, prototype, name) as PropertyMetadata,
    };
  });
}

function kindOf(name: string, { type, isArray, pattern }: PropertyMetadata): FieldKind {
  if (isArray === true && type === SeatDto) return 'seats';
  if (pattern === LOCAL_DATE_TIME_PATTERN) return 'localDateTime';
  if (type === 'integer' || type === 'number') return type;
  if (type === 'string') return 'text';
  throw new Error(`${name}: its @ApiProperty names no type a page or an export can write`);
}

/** The fields of an element's DTO in its declared order, each with the kind it is written as. */
export function elementFields<Element>(
  dto: Type<Element>,
): ReadonlyArray<ElementField & { name: keyof Element & string }> {
  return apiPropertiesOf(dto).map(({ name, metadata }) => ({
    name: name as keyof Element & string,
    kind: kindOf(name, metadata),
  }));
}
