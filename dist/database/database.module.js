"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __metadata = (this && this.__metadata) || function (k, v) {
    if (typeof Reflect === "object" && typeof Reflect.metadata === "function") return Reflect.metadata(k, v);
};
var __param = (this && this.__param) || function (paramIndex, decorator) {
    return function (target, key) { decorator(target, key, paramIndex); }
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.DatabaseModule = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const database_config_1 = require("../config/database.config");
const app_config_1 = require("../config/app.config");
const data_source_options_1 = require("./data-source-options");
const demo_data_1 = require("./demo-data");
let DatabaseModule = class DatabaseModule {
    dataSource;
    database;
    app;
    constructor(dataSource, database, app) {
        this.dataSource = dataSource;
        this.database = database;
        this.app = app;
    }
    async onApplicationBootstrap() {
        const isDemo = this.database.type === 'sqlite' && this.database.path !== data_source_options_1.IN_MEMORY_SQLITE && this.app.nodeEnv !== 'test';
        if (isDemo) {
            await (0, demo_data_1.fillEmptyDatabaseWithDemoOrders)(this.dataSource);
        }
    }
};
exports.DatabaseModule = DatabaseModule;
exports.DatabaseModule = DatabaseModule = __decorate([
    (0, common_1.Module)({
        imports: [
            typeorm_1.TypeOrmModule.forRootAsync({
                inject: [database_config_1.databaseConfig.KEY],
                useFactory: (config) => ({
                    ...(0, data_source_options_1.buildDataSourceOptions)(config),
                    migrationsRun: config.type === 'sqlite',
                }),
            }),
        ],
    }),
    __param(1, (0, common_1.Inject)(database_config_1.databaseConfig.KEY)),
    __param(2, (0, common_1.Inject)(app_config_1.appConfig.KEY)),
    __metadata("design:paramtypes", [typeorm_2.DataSource, void 0, void 0])
], DatabaseModule);
//# sourceMappingURL=database.module.js.map