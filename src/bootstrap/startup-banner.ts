import type { AppConfig } from '../config/app.config';
import type { AuthConfig } from '../config/auth.config';
import { signDevelopmentToken } from '../auth/development-token';
import { Role } from '../auth/role';
import { isDevelopmentVerification } from '../config/jwt-verification';
import { DOCS_PATH } from './configure-app';

const DEMO_TOKEN_LIFETIME = '12h';

/** What a developer needs to try the service at once: where it is and, on the embedded demo database with the
 * built-in development secret (the only configuration whose tokens anyone may sign), tokens for both variants. */
export function startupBanner(
  baseUrl: string,
  app: AppConfig,
  auth: AuthConfig,
  demoMemberId: number,
  records: { embedded: boolean; sealKeyGiven: boolean },
): string {
  const lines = [`Orders service listening on ${baseUrl}`];
  if (app.docsEnabled) lines.push(`Swagger UI: ${baseUrl}/${DOCS_PATH}`);
  if (records.embedded) {
    lines.push('Access records of ADMIN reads: in the embedded database’s own file, with no grants to check (§21).');
  }
  if (!records.sealKeyGiven) {
    lines.push('Access records are sealed with a key of this process only: set ACCESS_RECORD_SEAL_KEY to verify them.');
  }
  if (isDevelopmentVerification(auth.verification)) {
    const user = signDevelopmentToken(auth, { sub: demoMemberId, role: Role.User }, DEMO_TOKEN_LIFETIME);
    const admin = signDevelopmentToken(auth, { sub: 9000, role: Role.Admin }, DEMO_TOKEN_LIFETIME);
    lines.push(
      '',
      `USER token (member ${demoMemberId}, valid ${DEMO_TOKEN_LIFETIME}):`,
      user,
      '',
      `ADMIN token (valid ${DEMO_TOKEN_LIFETIME}):`,
      admin,
      '',
      'Try it:',
      `  curl -H "Authorization: Bearer ${user}" "${baseUrl}/orders?size=5"`,
      `  curl -H "Authorization: Bearer ${admin}" "${baseUrl}/orders?orderStatus=PAYMENT_COMPLETED&sort=totalPrice,desc"`,
    );
  }
  return lines.join('\n');
}
