"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ToList = exports.ToInteger = exports.Optional = void 0;
exports.IsSortSpecification = IsSortSpecification;
const class_transformer_1 = require("class-transformer");
const class_validator_1 = require("class-validator");
const sort_1 = require("../query/sort");
const Optional = () => (0, class_validator_1.ValidateIf)((_, value) => value !== undefined);
exports.Optional = Optional;
const ToInteger = () => (0, class_transformer_1.Transform)(({ value }) => typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value);
exports.ToInteger = ToInteger;
const ToList = () => (0, class_transformer_1.Transform)(({ value }) => (typeof value === 'string' ? [value] : value));
exports.ToList = ToList;
function IsSortSpecification(allowed, options) {
    return (target, propertyName) => (0, class_validator_1.registerDecorator)({
        name: 'isSortSpecification',
        target: target.constructor,
        propertyName: String(propertyName),
        options,
        validator: {
            validate: (value) => Array.isArray(value) && value.every((term) => typeof term === 'string') && (0, sort_1.parseSort)(value, allowed).ok,
            defaultMessage: (args) => {
                const value = args?.value;
                if (!Array.isArray(value) || !value.every((term) => typeof term === 'string')) {
                    return 'must be a string or an array of strings';
                }
                const result = (0, sort_1.parseSort)(value, allowed);
                return result.ok ? '' : result.message;
            },
        },
    });
}
//# sourceMappingURL=validation.js.map