import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LISTING_SQL_FILES, SERVER_KINDS, listingSql } from './listing-sql';

/** `npm run sql:generate`: writes the listing's statements for each kind of server into the files checked in. */
async function main(): Promise<void> {
  for (const kind of SERVER_KINDS) {
    const file = LISTING_SQL_FILES[kind];
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, await listingSql(kind));
    console.log(`wrote ${file}`);
  }
}

void main();
