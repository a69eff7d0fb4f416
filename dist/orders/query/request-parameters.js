"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.mergeRequestParameters = mergeRequestParameters;
exports.toQueryValues = toQueryValues;
const invalid_parameters_exception_1 = require("../../common/problem/invalid-parameters.exception");
const isPlainObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
function mergeRequestParameters(query, body) {
    if (body !== undefined && body !== null && !isPlainObject(body)) {
        throw new invalid_parameters_exception_1.InvalidParametersException([{ field: 'body', message: 'the JSON body must be an object of parameters' }]);
    }
    const values = new Map(Object.entries(body ?? {}));
    const repeated = new Set();
    for (const [name, value] of Object.entries(isPlainObject(query) ? query : {})) {
        values.set(name, value);
        if (Array.isArray(value))
            repeated.add(name);
    }
    return { values, repeated };
}
function toQueryValues(value) {
    if (Array.isArray(value))
        return value.flatMap(toQueryValues);
    if (typeof value === 'string')
        return [value];
    return [JSON.stringify(value)];
}
//# sourceMappingURL=request-parameters.js.map