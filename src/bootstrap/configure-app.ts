import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { BEARER_SCHEME } from '../auth/auth.decorator';
import { ProblemDetailsFilter } from '../common/problem/problem-details.filter';
import { deferredJsonBody } from '../common/deferred-json-body';
import { assignRequestId } from '../common/request-id';
import { appConfig, type AppConfig } from '../config/app.config';

export const DOCS_PATH = 'docs';

/** Nest's own body parser is replaced by {@link deferredJsonBody}; main.ts and the tests create the app with these. */
export const APP_OPTIONS = { bodyParser: false } as const;
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
  app.use(assignRequestId);
  app.use(deferredJsonBody({ limit: MAX_BODY_SIZE }));
  app.useGlobalFilters(new ProblemDetailsFilter());
  if (config.corsOrigins.length > 0) {
    app.enableCors({ origin: config.corsOrigins, exposedHeaders: ['Link', 'X-Request-Id', 'Retry-After'] });
  }
  setUpSwagger(app);
}
