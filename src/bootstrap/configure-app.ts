import type { INestApplication } from '@nestjs/common';
import type { FastifyCorsOptions } from '@fastify/cors';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { Logger, PinoLogger } from 'nestjs-pino';
import { BEARER_SCHEME } from '../auth/auth.decorator';
import { DATA_STALENESS_HEADER } from '../common/data-staleness';
import { deferredJsonBody } from '../common/deferred-json-body';
import { limitQueryString } from '../common/http-limits';
import { sendSecurityHeaders } from '../common/security-headers';
import { REQUEST_ID_HEADER } from '../common/request-id';
import type { AppConfig } from '../config/app.config';
import type { AuthConfig } from '../config/auth.config';
import { APP_CONFIG, AUTH_CONFIG, DATABASE_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from '../config/database.config';
import { recordAdminAccess } from '../access-records/access-record.hook';
import { AccessRecorder } from '../access-records/access-recorder';
import { logRequests } from '../logging/request-log';
import { observeRequests } from '../observability/http-metrics';
import { Metrics } from '../observability/metrics';
import { withClaimNames } from '../common/openapi/claim-names';
import { closeMarkedSchemas } from '../common/openapi/closed-schema';
import { serviceVersion } from './service-version';

export const DOCS_PATH = 'docs';

/** The embedded database has no query timeout: its records have as long as MySQL's default one. */
const EMBEDDED_RECORD_BUDGET_MS = 2000;
const recordBudgetMs = (config: DatabaseConfig): number =>
  config.type === 'mysql' ? config.queryTimeoutMs : EMBEDDED_RECORD_BUDGET_MS;

/** Options for `NestFactory.create` shared by main.ts and the tests: no body parser of Nest's, logs wait for pino. */
export const APP_OPTIONS = { bodyParser: false, bufferLogs: true } as const;

function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Orders')
      .setDescription(
        'Order listing of the concert ticketing platform. One `GET /orders`, two variants: the role in the bearer token picks USER (the caller’s own orders) or ADMIN (every order, with `userId` and filters). Every error is `application/problem+json` (RFC 9457).',
      )
      .setVersion(serviceVersion())
      .setContact('Orders team', '', 'orders-team@tickets.example')
      .addServer('/', 'This server')
      .addTag('orders', 'Paged order listing for members and administrators')
      .addTag('health', 'Probes for the orchestrator')
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token whose role ({userRoles} or {adminRoles}, in {rolesClaims}) picks the variant.',
        },
        BEARER_SCHEME,
      )
      .build(),
  );
  // HEAD is answered wherever GET is, as HTTP has it, and is no operation of the document: generated clients would
  // grow a method per route for it.
  closeMarkedSchemas(document);
  return withClaimNames(document, app.get<AuthConfig>(AUTH_CONFIG).claims);
}

function setUpSwagger(app: INestApplication): void {
  SwaggerModule.setup(DOCS_PATH, app, buildOpenApiDocument(app), {
    jsonDocumentUrl: `${DOCS_PATH}-json`,
    swaggerOptions: { persistAuthorization: false, displayRequestDuration: true },
  });
}

/** CORS for the configured web clients. */
function enableCors(app: NestFastifyApplication, origins: string[]): void {
  const options: FastifyCorsOptions = {
    origin: origins,
    exposedHeaders: ['ETag', 'Link', REQUEST_ID_HEADER, 'Retry-After', DATA_STALENESS_HEADER],
  };
  app.enableCors({
    delegator: ({ method, headers }, answer) => {
      const notPreflight = method === 'OPTIONS' && (!headers.origin || !headers['access-control-request-method']);
      answer(null, notPreflight ? { origin: false } : options);
    },
  });
}

/** Everything about the HTTP surface that is not a module: shared by `main.ts` and the end-to-end tests. */
export function configureApp(app: NestFastifyApplication): void {
  const config = app.get<AppConfig>(APP_CONFIG);
  app.useLogger(app.get(Logger));
  // Nest's own start-up messages, held back until pino writes them.
  app.flushLogs();
  const fastify = app.getHttpAdapter().getInstance();
  // On sending, not on receiving: a preflight is answered by the CORS hook, which runs before any hook added here.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done(null, payload);
  });
  sendSecurityHeaders(fastify);
  fastify.addHook('onRequest', limitQueryString);
  observeRequests(fastify, app.get(Metrics));
  logRequests(fastify, PinoLogger.root);
  fastify.addHook('preHandler', deferredJsonBody());
  recordAdminAccess(fastify, app.get(AccessRecorder), recordBudgetMs(app.get<DatabaseConfig>(DATABASE_CONFIG)));
  if (config.corsOrigins.length > 0) enableCors(app, config.corsOrigins);
  // DOCS_ENABLED=false: a deployment that does not publish its API serves no document route at all.
  if (config.docsEnabled) setUpSwagger(app);
}
