import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { MEMBERS, seedDataset } from '../support/data/dataset';

const CLIENTS = 'test/docs/generated-clients';

/** Runs a command of the project's own packages; its output is the failure's message. */
function run(args: string[]): string {
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 120_000 });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed:\n${output}`);
  return result.stdout;
}

/** The same, without blocking this process, which serves the requests the command sends. */
async function runBeside(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, args, { encoding: 'utf8', timeout: 120_000 });
  return stdout;
}

/** Type-checks a tool's program against what the tool generated, under strict tsc. */
const typeCheck = (tool: string) =>
  expect(run(['node_modules/typescript/bin/tsc', '-p', join(CLIENTS, tool, 'tsconfig.json')])).toBe('');

/** A fresh folder for what a tool generates, beside the program that uses it (and ignored by git). */
function generatedFolder(tool: string): string {
  const folder = join(CLIENTS, tool, 'generated');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  return folder;
}

/**
 * Clients generated from the live document by the tools front-end teams use, each with its defaults: a program
 * that reads a page (its `totalPages`, an element's `status`), a 400's `errors[]` and downloads an export compiles
 * under strict tsc against each; the openapi-fetch one also runs against the service.
 */
describe('clients generated from /docs-json', () => {
  let context: TestApp;
  let baseUrl: string;
  let documentFile: string;
  let document: Record<string, unknown>;

  beforeAll(async () => {
    context = await startTestApp({});
    await seedDataset(context.dataSource, 5);
    baseUrl = await context.app.listen(0, '127.0.0.1').then(() => context.app.getUrl());
    document = (await (await fetch(`${baseUrl}/docs-json`)).json()) as Record<string, unknown>;
    documentFile = join(CLIENTS, 'openapi.json');
    writeFileSync(documentFile, JSON.stringify(document));
  }, 60_000);

  afterAll(async () => {
    rmSync(documentFile ?? join(CLIENTS, 'openapi.json'), { force: true });
    await context?.close();
  });

  it('openapi-typescript + openapi-fetch, a plain createClient<paths>(): compiles, and works against the service', async () => {
    const folder = generatedFolder('openapi-fetch');
    writeFileSync(join(folder, 'orders-api.d.ts'), astToString(await openapiTS(structuredClone(document) as never)));
    typeCheck('openapi-fetch');

    const member = MEMBERS[0];
    const found = JSON.parse(
      await runBeside([
        '-r',
        'ts-node/register',
        join(CLIENTS, 'openapi-fetch', 'run.ts'),
        baseUrl,
        adminToken(),
        userToken(member),
      ]),
    ) as {
      ready: boolean;
      totalPages: number;
      orderIds: number[];
      firstStatus: string;
      invalid: string[];
      csvLines: string[];
    };

    const page = (await (
      await fetch(`${baseUrl}/orders?size=5&sort=createdAt,desc`, {
        headers: { Authorization: `Bearer ${userToken(member)}` },
      })
    ).json()) as { totalPages: number; elements: Array<{ orderId: number; status: string }> };
    expect(found.ready).toBe(true);
    expect(found.totalPages).toBe(page.totalPages);
    expect(found.orderIds).toEqual(page.elements.map((element) => element.orderId));
    expect(found.firstStatus).toBe(page.elements[0].status);
    expect(found.invalid.sort()).toEqual(['size', 'sort']);
    const [paid] = await context.dataSource.query<Array<{ count: number }>>(
      "SELECT COUNT(*) AS count FROM orders WHERE status = 'PAYMENT_COMPLETED'",
    );
    expect(found.csvLines[0]).toBe('orderId,userId,concertId,seats,totalPrice,status,createdAt,updatedAt');
    // The header, one line per paid order, and the empty string after the last CRLF.
    expect(found.csvLines).toHaveLength(Number(paid.count) + 2);
  }, 120_000);

  it('orval’s fetch client (orval --client fetch): compiles', () => {
    const folder = generatedFolder('orval');
    run([
      'node_modules/orval/dist/bin/orval.mjs',
      '--input',
      documentFile,
      '--output',
      join(folder, 'orders.ts'),
      '--client',
      'fetch',
    ]);
    typeCheck('orval');
  }, 120_000);

  it('@hey-api/openapi-ts with its defaults (types, SDK, fetch client): compiles', () => {
    const folder = generatedFolder('hey-api');
    run(['node_modules/@hey-api/openapi-ts/bin/run.js', '--input', documentFile, '--output', folder]);
    typeCheck('hey-api');
  }, 120_000);
});
