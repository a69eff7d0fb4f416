import { Ajv, type ValidateFunction } from 'ajv';

type OpenApiDocument = {
  paths: Record<
    string,
    Record<
      string,
      {
        responses: Record<
          string,
          { content?: Record<string, { schema: unknown }>; headers?: Record<string, { required?: boolean }> }
        >;
      }
    >
  >;
};

/**
 * Validates real responses against the schemas the document declares for
 * them. OpenAPI 3.0 schemas are JSON Schema plus a few annotations
 * (`example`), which ajv is told to ignore.
 */
export class ResponseValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });

  constructor(private readonly document: OpenApiDocument) {
    this.ajv.addSchema(document, 'openapi');
  }

  /** The body's schema and media type, and the headers every such answer carries (those not said to be optional). */
  declared(path: string, method: string, status: number): { schema: unknown; mediaType: string; headers: string[] } {
    const response = this.document.paths[path]?.[method]?.responses[String(status)];
    if (!response?.content)
      throw new Error(`The document declares no ${status} body for ${method.toUpperCase()} ${path}`);
    const [mediaType, { schema }] = Object.entries(response.content)[0];
    const always = Object.entries(response.headers ?? {}).filter(([, header]) => header.required !== false);
    return { schema, mediaType, headers: always.map(([name]) => name) };
  }

  validator(schema: unknown): ValidateFunction {
    // Resolve the document's local references against the document itself.
    const rewritten = JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'),
    ) as object;
    return this.ajv.compile(rewritten);
  }

  componentValidator(name: string): ValidateFunction {
    return this.validator({ $ref: `#/components/schemas/${name}` });
  }
}
