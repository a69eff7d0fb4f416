import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

/** `off`: plain TCP. */
export const DATABASE_TLS_MODES = ['off', 'required', 'verify-ca', 'verify-identity'] as const;

/** mysql2's `ssl` option, for the primary and every replica alike. */
export interface DatabaseTls {
  /** PEM of the CA(s) the servers' certificates are checked against; Node's own list when absent. */
  ca?: string;
  rejectUnauthorized: boolean;
  verifyIdentity: boolean;
}

interface TlsVariables {
  DB_SSL: (typeof DATABASE_TLS_MODES)[number];
  DB_SSL_CA?: string;
  DB_HOST: string;
  /** `host:port` each. */
  DB_REPLICAS: string[];
}

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

/** DB_SSL_CA holds the PEM itself (one line with `\n` escapes, as secret stores keep it) or a file's path. */
function readCa(value: string): { ca?: string; problem?: string } {
  let pem: string;
  if (value.includes(PEM_CERTIFICATE)) {
    pem = value.replace(/\\n/g, '\n');
  } else {
    try {
      pem = readFileSync(value, 'utf8');
    } catch (error) {
      return { problem: `DB_SSL_CA: the file could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
  }
  try {
    new X509Certificate(pem);
  } catch {
    return { problem: 'DB_SSL_CA: not a PEM-encoded certificate' };
  }
  return { ca: pem };
}

/** The TLS every database connection uses, or why the variables cannot say; each problem names its variable. */
export function readDatabaseTls(env: TlsVariables): { tls?: DatabaseTls; problems: string[] } {
  const verified = env.DB_SSL === 'verify-ca' || env.DB_SSL === 'verify-identity';
  if (env.DB_SSL_CA !== undefined && !verified) {
    // Refused rather than ignored: whoever set a CA believes the server is being checked against it.
    return { problems: ['DB_SSL_CA: only used with DB_SSL=verify-ca or DB_SSL=verify-identity'] };
  }
  if (env.DB_SSL === 'off') return { problems: [] };
  if (env.DB_SSL === 'required') return { tls: { rejectUnauthorized: false, verifyIdentity: false }, problems: [] };
  const { ca, problem } = env.DB_SSL_CA === undefined ? {} : readCa(env.DB_SSL_CA);
  if (problem) return { problems: [problem] };
  const addresses = [env.DB_HOST, ...env.DB_REPLICAS.map((address) => address.slice(0, address.lastIndexOf(':')))];
  if (env.DB_SSL === 'verify-identity' && addresses.some((host) => isIP(host) !== 0)) {
    // mysql2 checks the certificate of a server reached by address against the name `localhost`, not the address:
    // refused rather than checked against the wrong name.
    return {
      problems: ['DB_SSL: verify-identity needs DB_HOST and DB_REPLICAS to be the host names the certificates carry'],
    };
  }
  return { tls: { ca, rejectUnauthorized: true, verifyIdentity: env.DB_SSL === 'verify-identity' }, problems: [] };
}
