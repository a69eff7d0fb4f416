import { describe, expect, it } from '@jest/globals';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import type { ObjectSchema } from 'fast-json-stringify';
import { objectSchemaOf, pageSchemaOf } from './page-json';
import { apiPropertiesOf, elementFields, type ElementField, type FieldKind } from './dto/element-fields';
import { AdminOrderDto, UserOrderDto } from './dto/order.dto';
import { OrdersPageDto } from './dto/orders-page.dto';

type Property = { type?: string; anyOf?: Property[]; $ref?: string };

/** A property's JSON type as the OpenAPI document states it; alternatives that are all strings are a string. */
const openApiType = (property: Property): string | undefined =>
  property.type ??
  (property.anyOf?.every((alternative) => alternative.type === 'string') === true ? 'string' : property.$ref);

const JSON_TYPE: Record<FieldKind, string> = {
  integer: 'integer',
  number: 'number',
  text: 'string',
  localDateTime: 'string',
  seats: 'array',
};

/** Where the OpenAPI schema, the page serializer's schema and the DTO's fields disagree, by name, order or type. */
function disagreements(
  openApi: { properties?: Record<string, Property> },
  serializer: ObjectSchema,
  fields: readonly ElementField[],
): string[] {
  const views = {
    'the OpenAPI schema': Object.entries(openApi.properties ?? {}).map(([name, property]) => [
      name,
      openApiType(property),
    ]),
    'the serializer': Object.entries(serializer.properties ?? {}).map(([name, property]) => [
      name,
      (property as { type?: string }).type,
    ]),
  };
  const expected = fields.map(({ name, kind }) => `${name}: ${JSON_TYPE[kind]}`);
  return Object.entries(views).flatMap(([view, entries]) => {
    const seen = entries.map(([name, type]) => `${name}: ${type}`);
    return seen.join(', ') === expected.join(', ')
      ? []
      : [`${view} has ${seen.join(', ')}; the DTO ${expected.join(', ')}`];
  });
}

/** The element schemas as the application's document has them: swagger's own schema factory, reading the DTOs. */
async function openApiSchemas(): Promise<Record<string, { properties?: Record<string, Property> }>> {
  const moduleRef = await Test.createTestingModule({}).compile();
  const app = moduleRef.createNestApplication(new FastifyAdapter());
  try {
    const document = SwaggerModule.createDocument(app, new DocumentBuilder().build(), {
      extraModels: [UserOrderDto, AdminOrderDto, OrdersPageDto],
    });
    return document.components?.schemas as Record<string, { properties?: Record<string, Property> }>;
  } finally {
    await app.close();
  }
}

describe('the element: one definition, the DTO classes (docs/API.md §4)', () => {
  it('is described alike by the OpenAPI document, the page serializer and the DTO, in the same order', async () => {
    const schemas = await openApiSchemas();
    for (const dto of [UserOrderDto, AdminOrderDto]) {
      expect(disagreements(schemas[dto.name], objectSchemaOf(elementFields(dto)), elementFields(dto))).toEqual([]);
    }
    expect(elementFields(AdminOrderDto).map(({ name }) => name)).toEqual([
      'orderId',
      'userId',
      'concertId',
      'seats',
      'totalPrice',
      'status',
      'createdAt',
      'updatedAt',
    ]);
    expect(elementFields(UserOrderDto).map(({ name }) => name)).not.toContain('userId');
  });

  it('reports a field planted in any one of the three', async () => {
    const openApi = (await openApiSchemas()).AdminOrderDto;
    const serializer = objectSchemaOf(elementFields(AdminOrderDto));
    const fields = elementFields(AdminOrderDto);
    const planted = { type: 'string' } as const;
    expect(
      disagreements({ properties: { ...openApi.properties, planted } }, serializer, fields).map((text) =>
        text.slice(0, 22),
      ),
    ).toEqual(['the OpenAPI schema has']);
    expect(
      disagreements(
        openApi,
        { ...serializer, properties: { ...serializer.properties, planted } as ObjectSchema['properties'] },
        fields,
      ).map((text) => text.slice(0, 18)),
    ).toEqual(['the serializer has']);
    expect(disagreements(openApi, serializer, [...fields, { name: 'planted', kind: 'text' }])).toHaveLength(2);
    // A field of another type is a disagreement too.
    expect(
      disagreements(
        openApi,
        serializer,
        fields.map((field) => ({ ...field, kind: 'text' })),
      ),
    ).toHaveLength(2);
  });

  it('describes the page envelope alike in the OpenAPI document, the page serializer and OrdersPageDto', async () => {
    const openApi = (await openApiSchemas()).OrdersPageDto;
    const declared = apiPropertiesOf(OrdersPageDto).map(({ name, metadata }) => `${name}: ${String(metadata.type)}`);
    const typesOf = (properties: Record<string, unknown> = {}) =>
      Object.entries(properties).map(([name, property]) => `${name}: ${(property as { type?: string }).type}`);
    expect(typesOf(openApi.properties)).toEqual(declared);
    for (const element of [UserOrderDto, AdminOrderDto])
      expect(typesOf(pageSchemaOf(element).properties)).toEqual(declared);
    // The page the service builds has the same keys, in the same order.
    expect(Object.keys(OrdersPageDto.of([], 0, 1, 20))).toEqual(declared.map((entry) => entry.split(':')[0]));
    expect(declared).toContain('elements: array');
  });
});
