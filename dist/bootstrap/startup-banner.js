"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.startupBanner = startupBanner;
const development_token_1 = require("../auth/development-token");
const role_1 = require("../auth/role");
const demo_data_1 = require("../database/demo-data");
const configure_app_1 = require("./configure-app");
const DEMO_TOKEN_LIFETIME = '12h';
function startupBanner(baseUrl, auth) {
    const lines = [`Orders service listening on ${baseUrl}`, `Swagger UI: ${baseUrl}/${configure_app_1.DOCS_PATH}`];
    if (auth.keySource.mode === 'secret') {
        const user = (0, development_token_1.signDevelopmentToken)(auth, { sub: demo_data_1.DEMO_MEMBER_ID, role: role_1.Role.User }, DEMO_TOKEN_LIFETIME);
        const admin = (0, development_token_1.signDevelopmentToken)(auth, { sub: 9000, role: role_1.Role.Admin }, DEMO_TOKEN_LIFETIME);
        lines.push('', `USER token (member ${demo_data_1.DEMO_MEMBER_ID}, valid ${DEMO_TOKEN_LIFETIME}):`, user, '', `ADMIN token (valid ${DEMO_TOKEN_LIFETIME}):`, admin, '', 'Try it:', `  curl -H "Authorization: Bearer ${user}" "${baseUrl}/orders?size=5"`, `  curl -H "Authorization: Bearer ${admin}" "${baseUrl}/orders?orderStatus=PAYMENT_COMPLETED&sort=totalPrice,desc"`);
    }
    return lines.join('\n');
}
//# sourceMappingURL=startup-banner.js.map