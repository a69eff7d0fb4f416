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
Object.defineProperty(exports, "__esModule", { value: true });
exports.InvalidConfigurationError = exports.EnvironmentVariables = exports.JWT_ALGORITHMS = exports.LOG_LEVELS = exports.DATABASE_TYPES = exports.NODE_ENVIRONMENTS = exports.DEVELOPMENT_JWT_SECRET = void 0;
exports.validateEnvironment = validateEnvironment;
const node_crypto_1 = require("node:crypto");
const class_transformer_1 = require("class-transformer");
const class_validator_1 = require("class-validator");
const is_iana_time_zone_1 = require("./is-iana-time-zone");
exports.DEVELOPMENT_JWT_SECRET = 'development-only-secret-never-use-in-production';
exports.NODE_ENVIRONMENTS = ['development', 'production', 'test'];
exports.DATABASE_TYPES = ['sqlite', 'mysql'];
exports.LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
exports.JWT_ALGORITHMS = [
    'HS256',
    'HS384',
    'HS512',
    'RS256',
    'RS384',
    'RS512',
    'PS256',
    'PS384',
    'PS512',
    'ES256',
    'ES384',
    'ES512',
];
const toList = ({ value }) => typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0)
    : value;
class EnvironmentVariables {
    NODE_ENV = 'development';
    PORT = 3000;
    DB_TYPE = 'sqlite';
    SQLITE_PATH = 'data/orders.sqlite';
    DB_HOST = '127.0.0.1';
    DB_PORT = 3306;
    DB_USERNAME = 'orders';
    DB_PASSWORD = '';
    DB_DATABASE = 'orders';
    DB_POOL_SIZE = 10;
    DB_QUERY_TIMEOUT_MS = 2000;
    JWT_SECRET;
    JWT_PUBLIC_KEY;
    JWT_JWKS_URI;
    JWT_ALGORITHMS;
    JWT_ISSUER;
    JWT_AUDIENCE;
    JWT_CLOCK_TOLERANCE_S = 30;
    APP_TIMEZONE = 'Asia/Seoul';
    LOG_LEVEL = 'info';
    RATE_LIMIT_PER_MINUTE = 600;
    CORS_ORIGINS = [];
    SHUTDOWN_GRACE_MS = 10000;
}
exports.EnvironmentVariables = EnvironmentVariables;
__decorate([
    (0, class_validator_1.IsIn)(exports.NODE_ENVIRONMENTS),
    __metadata("design:type", Object)
], EnvironmentVariables.prototype, "NODE_ENV", void 0);
__decorate([
    (0, class_validator_1.IsInt)(),
    (0, class_validator_1.Min)(1),
    (0, class_validator_1.Max)(65535),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "PORT", void 0);
__decorate([
    (0, class_validator_1.IsIn)(exports.DATABASE_TYPES),
    __metadata("design:type", Object)
], EnvironmentVariables.prototype, "DB_TYPE", void 0);
__decorate([
    (0, class_validator_1.IsString)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "SQLITE_PATH", void 0);
__decorate([
    (0, class_validator_1.IsString)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "DB_HOST", void 0);
__decorate([
    (0, class_validator_1.IsInt)(),
    (0, class_validator_1.Min)(1),
    (0, class_validator_1.Max)(65535),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "DB_PORT", void 0);
__decorate([
    (0, class_validator_1.IsString)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "DB_USERNAME", void 0);
__decorate([
    (0, class_validator_1.IsString)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "DB_PASSWORD", void 0);
__decorate([
    (0, class_validator_1.IsString)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "DB_DATABASE", void 0);
__decorate([
    (0, class_validator_1.IsInt)(),
    (0, class_validator_1.Min)(1),
    (0, class_validator_1.Max)(1000),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "DB_POOL_SIZE", void 0);
__decorate([
    (0, class_validator_1.IsInt)(),
    (0, class_validator_1.Min)(100),
    (0, class_validator_1.Max)(600000),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "DB_QUERY_TIMEOUT_MS", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsString)(),
    (0, class_validator_1.MinLength)(32),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "JWT_SECRET", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(({ value }) => (typeof value === 'string' ? value.replace(/\\n/g, '\n') : value)),
    (0, class_validator_1.IsString)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "JWT_PUBLIC_KEY", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsUrl)({ require_tld: false, protocols: ['https', 'http'], require_protocol: true }),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "JWT_JWKS_URI", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toList),
    (0, class_validator_1.IsIn)(exports.JWT_ALGORITHMS, { each: true }),
    __metadata("design:type", Array)
], EnvironmentVariables.prototype, "JWT_ALGORITHMS", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsString)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "JWT_ISSUER", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsString)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "JWT_AUDIENCE", void 0);
__decorate([
    (0, class_validator_1.IsInt)(),
    (0, class_validator_1.Min)(0),
    (0, class_validator_1.Max)(3600),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "JWT_CLOCK_TOLERANCE_S", void 0);
__decorate([
    (0, is_iana_time_zone_1.IsIanaTimeZone)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "APP_TIMEZONE", void 0);
__decorate([
    (0, class_validator_1.IsIn)(exports.LOG_LEVELS),
    __metadata("design:type", Object)
], EnvironmentVariables.prototype, "LOG_LEVEL", void 0);
__decorate([
    (0, class_validator_1.IsInt)(),
    (0, class_validator_1.Min)(0),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "RATE_LIMIT_PER_MINUTE", void 0);
__decorate([
    (0, class_transformer_1.Transform)(toList),
    (0, class_validator_1.IsString)({ each: true }),
    __metadata("design:type", Array)
], EnvironmentVariables.prototype, "CORS_ORIGINS", void 0);
__decorate([
    (0, class_validator_1.IsInt)(),
    (0, class_validator_1.Min)(0),
    (0, class_validator_1.Max)(600000),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "SHUTDOWN_GRACE_MS", void 0);
class InvalidConfigurationError extends Error {
    problems;
    constructor(problems) {
        super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
        this.problems = problems;
        this.name = 'InvalidConfigurationError';
    }
}
exports.InvalidConfigurationError = InvalidConfigurationError;
function describe(error, raw) {
    const received = JSON.stringify(raw[error.property]);
    const reasons = Object.values(error.constraints ?? {}).join('; ');
    return `${error.property}: ${reasons} (got ${received})`;
}
function isPublicKey(pem) {
    try {
        const type = (0, node_crypto_1.createPublicKey)(pem).asymmetricKeyType;
        return type === 'rsa' || type === 'ec' || type === 'rsa-pss';
    }
    catch {
        return false;
    }
}
function crossFieldProblems(env) {
    const problems = [];
    const asymmetricSources = [env.JWT_PUBLIC_KEY && 'JWT_PUBLIC_KEY', env.JWT_JWKS_URI && 'JWT_JWKS_URI'].filter(Boolean);
    if (asymmetricSources.length > 1 || (asymmetricSources.length === 1 && env.JWT_SECRET)) {
        problems.push(`JWT_SECRET, JWT_PUBLIC_KEY, JWT_JWKS_URI: set only one verification mode (got ${[
            env.JWT_SECRET && 'JWT_SECRET',
            ...asymmetricSources,
        ]
            .filter(Boolean)
            .join(', ')})`);
    }
    if (env.JWT_PUBLIC_KEY && !isPublicKey(env.JWT_PUBLIC_KEY)) {
        problems.push('JWT_PUBLIC_KEY: not a PEM-encoded RSA or EC public key');
    }
    const symmetric = asymmetricSources.length === 0;
    const wrongFamily = (env.JWT_ALGORITHMS ?? []).filter((algorithm) => algorithm.startsWith('HS') !== symmetric);
    if (wrongFamily.length > 0) {
        problems.push(`JWT_ALGORITHMS: ${wrongFamily.join(', ')} cannot be used with ${symmetric ? 'a shared secret (JWT_SECRET)' : 'a public key (JWT_PUBLIC_KEY / JWT_JWKS_URI)'}`);
    }
    if (env.JWT_ALGORITHMS?.length === 0) {
        problems.push('JWT_ALGORITHMS: must name at least one algorithm');
    }
    if (env.NODE_ENV === 'production') {
        if (env.DB_TYPE === 'sqlite') {
            problems.push('DB_TYPE: the embedded database is for development only; use mysql with NODE_ENV=production');
        }
        if (symmetric && (!env.JWT_SECRET || env.JWT_SECRET === exports.DEVELOPMENT_JWT_SECRET)) {
            problems.push('JWT_SECRET: the development secret is refused with NODE_ENV=production; set a secret of your own or a public key');
        }
    }
    return problems;
}
function validateEnvironment(raw) {
    const present = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined && value !== ''));
    const env = (0, class_transformer_1.plainToInstance)(EnvironmentVariables, present, {
        enableImplicitConversion: true,
        excludeExtraneousValues: false,
    });
    const errors = (0, class_validator_1.validateSync)(env, { skipMissingProperties: false, forbidUnknownValues: true });
    const problems = errors.map((error) => describe(error, raw));
    if (problems.length === 0) {
        problems.push(...crossFieldProblems(env));
    }
    if (problems.length > 0) {
        throw new InvalidConfigurationError(problems);
    }
    return env;
}
//# sourceMappingURL=environment.js.map