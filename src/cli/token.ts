import 'dotenv/config';
import { parseArgs } from 'node:util';
import { signDevelopmentToken } from '../auth/development-token';
import { Role } from '../auth/role';
import { toAuthConfig } from '../config/auth.config';
import { validateEnvironment } from '../config/environment';
import { isDevelopmentVerification } from '../config/jwt-verification';

const USAGE = 'Usage: npm run token -- --sub <member id> --role USER|ADMIN [--exp 1h]';

/** Prints a token for the embedded demo database, signed with the built-in development secret. */
function main(): void {
  if (process.env.NODE_ENV === 'production') {
    throw new Error('Refusing to sign tokens with NODE_ENV=production: tokens come from the identity provider there.');
  }
  const env = validateEnvironment(process.env);
  const auth = toAuthConfig(env);
  if (!isDevelopmentVerification(auth.verification)) {
    throw new Error(
      'Refusing to sign tokens: this configuration verifies with its own JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URI, whose tokens come from its identity provider. The command signs only for the embedded database with the built-in development secret.',
    );
  }
  const { values } = parseArgs({
    options: { sub: { type: 'string' }, role: { type: 'string' }, exp: { type: 'string', default: '1h' } },
    strict: true,
  });
  const sub = Number(values.sub);
  if (!values.sub || !/^[1-9][0-9]*$/.test(values.sub) || !Number.isSafeInteger(sub)) {
    throw new Error(`--sub must be a positive integer member id.\n${USAGE}`);
  }
  const role = values.role as Role;
  if (role !== Role.User && role !== Role.Admin) {
    throw new Error(`--role must be USER or ADMIN.\n${USAGE}`);
  }
  if (!/^[1-9][0-9]*(s|m|h|d)?$/.test(values.exp)) {
    throw new Error(`--exp must be a lifetime such as 90s, 30m, 1h or 7d.\n${USAGE}`);
  }
  const lifetime = /[smhd]$/.test(values.exp)
    ? (values.exp as `${number}${'s' | 'm' | 'h' | 'd'}`)
    : Number(values.exp);
  console.log(signDevelopmentToken(auth, { sub, role }, lifetime));
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
