import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import helmet from 'helmet';
import type { Server } from 'node:http';
import { BEARER_SCHEME } from '../auth/auth.decorator';
import { deferredJsonBody } from '../common/deferred-json-body';
import { answerUnparsableRequests, limitQueryString } from '../common/http-limits';
import { PINO, PinoLoggerService, requestLogging } from '../common/logging';
import { ProblemDetailsFilter } from '../common/problem/problem-details.filter';
import { assignRequestId, REQUEST_ID_HEADER } from '../common/request-id';
import { appConfig, type AppConfig } from '../config/app.config';

export const DOCS_PATH = 'docs';

/**
 * Options for `NestFactory.create` shared by main.ts and the tests: Nest's own
 * body parser is replaced by {@link deferredJsonBody}, and logs wait for pino.
 */
export const APP_OPTIONS = { bodyParser: false, bufferLogs: true } as const;
const MAX_BODY_SIZE = '16kb';

function setUpSwagger(app: INestApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Orders')
      .setDescription(
        'Order listing of the concert ticketing platform. One GET /orders, two variants: the role in the bearer token picks USER (own orders) or ADMIN (all orders, filters, userId).',
      )
      .setVersion('1.0')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_SCHEME)
      .build(),
  );
  SwaggerModule.setup(DOCS_PATH, app, document, { jsonDocumentUrl: `${DOCS_PATH}-json` });
}

/** Everything about the HTTP surface that is not a module: shared by `main.ts` and the end-to-end tests. */
export function configureApp(app: INestApplication): void {
  const config = app.get<AppConfig>(appConfig.KEY);
  app.useLogger(app.get(PinoLoggerService));
  answerUnparsableRequests(app.getHttpServer() as Server);
  app.use(assignRequestId);
  app.use(requestLogging(app.get(PINO)));
  // Swagger UI is served over plain HTTP in development; upgrading its requests to HTTPS would break it.
  app.use(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }));
  app.use(limitQueryString);
  app.use(deferredJsonBody({ limit: MAX_BODY_SIZE }));
  app.useGlobalFilters(new ProblemDetailsFilter());
  if (config.corsOrigins.length > 0) {
    app.enableCors({ origin: config.corsOrigins, exposedHeaders: ['Link', REQUEST_ID_HEADER, 'Retry-After'] });
  }
  setUpSwagger(app);
}
