"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DOCS_PATH = void 0;
exports.configureApp = configureApp;
const swagger_1 = require("@nestjs/swagger");
const auth_decorator_1 = require("../auth/auth.decorator");
const problem_details_filter_1 = require("../common/problem/problem-details.filter");
const request_id_1 = require("../common/request-id");
const app_config_1 = require("../config/app.config");
exports.DOCS_PATH = 'docs';
function setUpSwagger(app) {
    const document = swagger_1.SwaggerModule.createDocument(app, new swagger_1.DocumentBuilder()
        .setTitle('Orders')
        .setDescription('Order listing of the concert ticketing platform. One GET /orders, two variants: the role in the bearer token picks USER (own orders) or ADMIN (all orders, filters, userId).')
        .setVersion('1.0')
        .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, auth_decorator_1.BEARER_SCHEME)
        .build());
    swagger_1.SwaggerModule.setup(exports.DOCS_PATH, app, document, { jsonDocumentUrl: `${exports.DOCS_PATH}-json` });
}
function configureApp(app) {
    const config = app.get(app_config_1.appConfig.KEY);
    app.use(request_id_1.assignRequestId);
    app.useGlobalFilters(new problem_details_filter_1.ProblemDetailsFilter());
    if (config.corsOrigins.length > 0) {
        app.enableCors({ origin: config.corsOrigins, exposedHeaders: ['Link', 'X-Request-Id', 'Retry-After'] });
    }
    setUpSwagger(app);
}
//# sourceMappingURL=configure-app.js.map