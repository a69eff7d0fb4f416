"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEFAULT_SORT = exports.ADMIN_SORT_FIELDS = exports.USER_SORT_FIELDS = void 0;
exports.parseSort = parseSort;
exports.USER_SORT_FIELDS = ['orderId', 'concertId', 'totalPrice', 'status', 'createdAt', 'updatedAt'];
exports.ADMIN_SORT_FIELDS = [...exports.USER_SORT_FIELDS, 'userId'];
exports.DEFAULT_SORT = 'createdAt,desc';
function parseTerm(term, allowed) {
    const parts = term.split(',');
    if (parts.length > 2) {
        return `"${term}" is not of the form field or field,asc or field,desc`;
    }
    const [field, direction = 'asc'] = parts;
    if (!allowed.includes(field)) {
        return `"${field}" is not a sortable field; use one of ${allowed.join(', ')}`;
    }
    const normalized = direction.toUpperCase();
    if (normalized !== 'ASC' && normalized !== 'DESC') {
        return `"${direction}" is not a direction; use asc or desc`;
    }
    return { field: field, direction: normalized };
}
function parseSort(terms, allowed) {
    const keys = [];
    for (const term of terms.length > 0 ? terms : [exports.DEFAULT_SORT]) {
        const key = parseTerm(term, allowed);
        if (typeof key === 'string') {
            return { ok: false, message: key };
        }
        if (keys.some((existing) => existing.field === key.field)) {
            return { ok: false, message: `"${key.field}" is given more than once` };
        }
        keys.push(key);
    }
    if (!keys.some((key) => key.field === 'orderId')) {
        keys.push({ field: 'orderId', direction: 'DESC' });
    }
    return { ok: true, keys };
}
//# sourceMappingURL=sort.js.map