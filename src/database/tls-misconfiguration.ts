import { createConnection } from 'mysql2/promise';
import type { DataSourceOptions } from 'typeorm';
import { InvalidConfigurationError } from '../config/environment';

/** MySQL 8 names the refusal of a plain connection by a server with require_secure_transport=ON. */
const ER_SECURE_TRANSPORT_REQUIRED = 3159;
/** MariaDB answers the same refusal as a failed log-in, so it is told apart by trying TLS once. */
const ER_ACCESS_DENIED_ERROR = 1045;
const TRY_TLS_TIMEOUT_MS = 2000;

interface Credentials {
  host?: string;
  port?: number;
  username?: string;
  password?: string | (() => string);
}

interface DriverError {
  code?: string;
  errno?: number;
  message?: string;
}

/** Whether the server lets these credentials in over TLS, not checking its certificate: only to diagnose a failure. */
async function acceptsTls(options: Credentials): Promise<boolean> {
  try {
    const connection = await createConnection({
      host: options.host,
      port: options.port,
      user: options.username,
      password: typeof options.password === 'function' ? options.password() : options.password,
      ssl: { rejectUnauthorized: false },
      connectTimeout: TRY_TLS_TIMEOUT_MS,
    });
    await connection.end();
    return true;
  } catch {
    return false;
  }
}

/** A failure to reach the database at start that DB_SSL, not the network, explains: the server requires TLS and
 * DB_SSL is off, the server offers no TLS, or its certificate failed the verification DB_SSL asks for. */
export async function tlsMisconfigurationOf(
  error: unknown,
  options: DataSourceOptions,
): Promise<InvalidConfigurationError | undefined> {
  if (options.type !== 'mysql') return undefined;
  const { code, errno, message } = (error ?? {}) as DriverError;
  const where = `${options.host}:${options.port}`;
  if (code === 'HANDSHAKE_NO_SSL_SUPPORT') {
    return new InvalidConfigurationError([`DB_SSL: the database server at ${where} offers no TLS; DB_SSL requires it`]);
  }
  if (code === 'HANDSHAKE_SSL_ERROR' || code?.startsWith('ERR_TLS_') || /certificate/i.test(message ?? '')) {
    return new InvalidConfigurationError([
      `DB_SSL: the certificate of the database server at ${where} failed verification (${message}); check DB_SSL_CA and DB_HOST`,
    ]);
  }
  const requiresTls =
    !options.ssl &&
    (errno === ER_SECURE_TRANSPORT_REQUIRED || (errno === ER_ACCESS_DENIED_ERROR && (await acceptsTls(options))));
  if (requiresTls) {
    return new InvalidConfigurationError([
      `DB_SSL: the database server at ${where} requires TLS (require_secure_transport) and DB_SSL is off; set DB_SSL=verify-identity, verify-ca or required`,
    ]);
  }
  return undefined;
}
