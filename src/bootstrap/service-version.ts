import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const PACKAGE_NAME = 'orders-service';

/**
 * The service's version, kept in one place: package.json's `version`, which the OpenAPI document carries as
 * `info.version` and CHANGELOG.md describes. Read from the folder the service runs in (the package's own, as its
 * npm scripts and the container image run it), and refused from any other package's.
 */
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
