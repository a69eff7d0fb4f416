import { readFileSync } from 'node:fs';

/**
 * Node's arguments for the service as production starts it (`npm run
 * start:prod`, Node options included), read from package.json so that the
 * benchmark and the soak measure exactly what is deployed.
 */
export const PRODUCTION_NODE_ARGUMENTS: string[] = (
  JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
).scripts['start:prod']
  .split(' ')
  .slice(1);
