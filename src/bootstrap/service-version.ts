import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const PACKAGE_NAME = 'orders-service';

/** package.json's `version`: the one place the service's version is kept. */
export function serviceVersion(directory = process.cwd()): string {
  const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {
    name?: string;
    version?: string;
  };
  if (manifest.name !== PACKAGE_NAME || typeof manifest.version !== 'string') {
    throw new Error(
      `The service runs from its package's folder, whose package.json names ${PACKAGE_NAME}; ${directory} is not it`,
    );
  }
  return manifest.version;
}
