import 'dotenv/config';
import { parseArgs } from 'node:util';
import { signDevelopmentToken } from '../auth/development-token';
import { Role } from '../auth/role';
import { toAuthConfig } from '../config/auth.config';
import { validateEnvironment } from '../config/environment';

const USAGE = 'Usage: npm run token -- --sub <member id> --role USER|ADMIN [--exp 1h]';

/** Prints a development token signed with the configured JWT_SECRET (CONTRACT §2). Never in production. */
function main(): void {
  if (process.env.NODE_ENV === 'production') {
    throw new Error('Refusing to sign tokens with NODE_ENV=production: tokens come from the identity provider there.');
  }
  const env = validateEnvironment(process.env);
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
  console.log(signDevelopmentToken(toAuthConfig(env), { sub, role }, lifetime));
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
