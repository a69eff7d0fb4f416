import type { OpenAPIObject } from '@nestjs/swagger';

/** The schemas marked closed, by class name; filled as the decorated classes load. */
const closedSchemas = new Set<string>();

/** Marks a DTO's schema `additionalProperties: false`: its instances carry exactly their documented properties. */
export const ClosedSchema = (): ClassDecorator => (target) => {
  closedSchemas.add(target.name);
};

export function closeMarkedSchemas(document: OpenAPIObject): void {
  for (const name of closedSchemas) {
    const schema = document.components?.schemas?.[name];
    if (schema && !('$ref' in schema)) schema.additionalProperties = false;
  }
}
