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
interface PropertyMetadata {
  type?: unknown;
  isArray?: boolean;
  pattern?: string;
}

function kindOf(name: string, { type, isArray, pattern }: PropertyMetadata): FieldKind {
  if (isArray === true && type === SeatDto) return 'seats';
  if (pattern === LOCAL_DATE_TIME_PATTERN) return 'localDateTime';
  if (type === 'integer' || type === 'number') return type;
  if (type === 'string') return 'text';
  throw new Error(`${name}: its @ApiProperty names no type a page or an export can write`);
}

/** The fields of a DTO in its declared order, read from the metadata its `@ApiProperty` decorators record: the
 * same that the OpenAPI document shows, so that the page's serializer and the export's columns follow the DTO. */
export function elementFields<Element>(
  dto: Type<Element>,
): ReadonlyArray<ElementField & { name: keyof Element & string }> {
  const prototype = dto.prototype as object;
  const keys = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, prototype) ?? []) as string[];
  return keys.map((key) => {
    // Swagger records each property as `:name`.
    const name = key.slice(1) as keyof Element & string;
    const metadata = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, prototype, name) as PropertyMetadata;
    return { name, kind: kindOf(name, metadata) };
  });
}
