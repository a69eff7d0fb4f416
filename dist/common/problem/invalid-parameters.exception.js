"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.InvalidParametersException = void 0;
const common_1 = require("@nestjs/common");
class InvalidParametersException extends common_1.BadRequestException {
    errors;
    constructor(errors) {
        super(errors.length === 1
            ? `Invalid parameter ${errors[0].field}: ${errors[0].message}`
            : `Invalid parameters: ${[...new Set(errors.map((error) => error.field))].join(', ')}`);
        this.errors = errors;
    }
}
exports.InvalidParametersException = InvalidParametersException;
//# sourceMappingURL=invalid-parameters.exception.js.map