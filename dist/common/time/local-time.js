"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.LocalTimeFormatter = void 0;
exports.toStoredDateTime = toStoredDateTime;
exports.storedDateTimeToEpochMs = storedDateTimeToEpochMs;
const luxon_1 = require("luxon");
function toStoredDateTime(epochMs) {
    return new Date(epochMs).toISOString().slice(0, 23).replace('T', ' ');
}
function storedDateTimeToEpochMs(value) {
    return value instanceof Date ? value.getTime() : Date.parse(`${value.replace(' ', 'T')}Z`);
}
class LocalTimeFormatter {
    timeZone;
    constructor(timeZone) {
        this.timeZone = timeZone;
    }
    format(epochMs) {
        return luxon_1.DateTime.fromMillis(epochMs, { zone: this.timeZone }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
    }
}
exports.LocalTimeFormatter = LocalTimeFormatter;
//# sourceMappingURL=local-time.js.map