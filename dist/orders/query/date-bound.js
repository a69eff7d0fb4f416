"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.boundsRows = exports.DATE_FORMATS_HINT = void 0;
exports.parseStartBound = parseStartBound;
exports.parseEndBound = parseEndBound;
const luxon_1 = require("luxon");
exports.DATE_FORMATS_HINT = 'YYYY-MM-DD, YYYY-MM-DDThh:mm:ss (local time) or an ISO 8601 date-time with Z or an offset such as +09:00';
const PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?)?$/;
const EARLIEST_STORABLE_MS = Date.UTC(1000, 0, 1);
const LATEST_STORABLE_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
exports.boundsRows = {
    from: (epochMs) => (epochMs > EARLIEST_STORABLE_MS ? epochMs : undefined),
    before: (epochMs) => (epochMs <= LATEST_STORABLE_MS ? epochMs : undefined),
};
function zoneOf(designator, timeZone) {
    if (designator === undefined)
        return timeZone;
    if (designator === 'Z')
        return 'utc';
    const [hours, minutes] = designator.slice(1).split(':').map(Number);
    if (hours > 14 || minutes > 59)
        return undefined;
    const sign = designator.startsWith('-') ? -1 : 1;
    return luxon_1.FixedOffsetZone.instance(sign * (hours * 60 + minutes));
}
function parse(text, timeZone) {
    const match = PATTERN.exec(text);
    if (!match) {
        return `"${text}" is not a date; use ${exports.DATE_FORMATS_HINT}`;
    }
    const [, year, month, day, hour, minute, second, fraction, designator] = match;
    if (Number(hour ?? 0) > 23 || Number(minute ?? 0) > 59 || Number(second ?? 0) > 59) {
        return `"${text}" is not a valid time of day`;
    }
    if (Number(year) < 1000) {
        return `"${text}" is out of range; the year must be between 1000 and 9999`;
    }
    const zone = zoneOf(designator, timeZone);
    if (zone === undefined) {
        return `"${text}" has an offset outside -14:00..+14:00`;
    }
    const start = luxon_1.DateTime.fromObject({
        year: Number(year),
        month: Number(month),
        day: Number(day),
        hour: Number(hour ?? 0),
        minute: Number(minute ?? 0),
        second: Number(second ?? 0),
    }, { zone });
    if (!start.isValid) {
        return `"${text}" is not a valid calendar date or time`;
    }
    return { start, fraction, dateOnly: hour === undefined };
}
const fractionMs = (fraction, round) => fraction === undefined ? 0 : round(Number(`0.${fraction}`) * 1000);
function parseStartBound(text, timeZone) {
    const parsed = parse(text, timeZone);
    if (typeof parsed === 'string')
        return { ok: false, message: parsed };
    return { ok: true, epochMs: parsed.start.toMillis() + fractionMs(parsed.fraction, Math.ceil) };
}
function parseEndBound(text, timeZone) {
    const parsed = parse(text, timeZone);
    if (typeof parsed === 'string')
        return { ok: false, message: parsed };
    const { start, fraction, dateOnly } = parsed;
    const end = dateOnly
        ? start.plus({ days: 1 }).toMillis()
        : fraction === undefined
            ? start.toMillis() + 1000
            : start.toMillis() + fractionMs(fraction, Math.floor) + 1;
    return { ok: true, epochMs: end };
}
//# sourceMappingURL=date-bound.js.map