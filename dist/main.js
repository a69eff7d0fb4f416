"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
require("dotenv/config");
require("reflect-metadata");
const core_1 = require("@nestjs/core");
const app_module_1 = require("./app.module");
const configure_app_1 = require("./bootstrap/configure-app");
const startup_banner_1 = require("./bootstrap/startup-banner");
const app_config_1 = require("./config/app.config");
const auth_config_1 = require("./config/auth.config");
const environment_1 = require("./config/environment");
async function bootstrap() {
    (0, environment_1.validateEnvironment)(process.env);
    const app = await core_1.NestFactory.create(app_module_1.AppModule, { abortOnError: false });
    (0, configure_app_1.configureApp)(app);
    app.enableShutdownHooks();
    const config = app.get(app_config_1.appConfig.KEY);
    await app.listen(config.port);
    if (config.nodeEnv !== 'production') {
        console.log(`\n${(0, startup_banner_1.startupBanner)(`http://localhost:${config.port}`, app.get(auth_config_1.authConfig.KEY))}\n`);
    }
}
bootstrap().catch((error) => {
    console.error(error instanceof environment_1.InvalidConfigurationError ? error.message : error);
    process.exit(1);
});
//# sourceMappingURL=main.js.map