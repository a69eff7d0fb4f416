"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.IsIanaTimeZone = IsIanaTimeZone;
const class_validator_1 = require("class-validator");
const luxon_1 = require("luxon");
function IsIanaTimeZone(options) {
    return (target, propertyName) => (0, class_validator_1.registerDecorator)({
        name: 'isIanaTimeZone',
        target: target.constructor,
        propertyName: String(propertyName),
        options: { message: '$property must be an IANA time zone such as Asia/Seoul', ...options },
        validator: {
            validate: (value) => typeof value === 'string' && luxon_1.IANAZone.isValidZone(value),
        },
    });
}
//# sourceMappingURL=is-iana-time-zone.js.map