import { readFileSync } from 'node:fs';

/**
 * Node's arguments for the service as production starts it (`npm run
 * start:prod`), read from package.json so that the tests, the benchmark and
 * the soak start exactly what is deployed. Heap settings are no part of it:
 * they are the operator's (the container's memory limit, or NODE_OPTIONS).
 */
export const PRODUCTION_NODE_ARGUMENTS: string[] = (
  JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
).scripts['start:prod']
  .split(' ')
  .slice(1);
