"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.callerFromClaims = callerFromClaims;
const role_1 = require("./role");
function memberIdOf(sub) {
    if (typeof sub === 'number') {
        return Number.isSafeInteger(sub) && sub > 0 ? sub : undefined;
    }
    if (typeof sub === 'string' && /^[1-9][0-9]*$/.test(sub)) {
        const id = Number(sub);
        return Number.isSafeInteger(id) ? id : undefined;
    }
    return undefined;
}
function roleOf(claims) {
    const granted = [claims.role, ...(Array.isArray(claims.roles) ? claims.roles : [])];
    if (granted.includes(role_1.Role.Admin))
        return role_1.Role.Admin;
    if (granted.includes(role_1.Role.User))
        return role_1.Role.User;
    return undefined;
}
function callerFromClaims(claims) {
    const id = memberIdOf(claims.sub);
    if (id === undefined) {
        return { ok: false, reason: 'The token subject (sub) must be a positive integer member id' };
    }
    const role = roleOf(claims);
    if (role === undefined) {
        return { ok: false, reason: 'The token carries no role this service knows (USER or ADMIN)' };
    }
    return { ok: true, caller: { id, role } };
}
//# sourceMappingURL=caller-claims.js.map