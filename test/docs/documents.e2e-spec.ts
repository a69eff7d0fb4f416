import { afterEach, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { userToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';

const DOCUMENT_ROUTES = ['/docs', '/docs/', '/docs-json', '/docs-yaml'];

/** Which document routes a deployment serves (DOCS_ENABLED), and the one version they carry. */
describe('the API’s documents', () => {
  let context: TestApp;

  afterEach(async () => {
    await context?.close();
  });

  it('are served by default, with package.json’s version as the document’s', async () => {
    context = await startTestApp({});
    for (const route of DOCUMENT_ROUTES)
      expect([route, (await request(context.server).get(route)).status]).toEqual([route, 200]);
    const document = (await request(context.server).get('/docs-json')).body as { info: { version: string } };
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(document.info.version).toBe(manifest.version);
  });

  it('with DOCS_ENABLED=false, are none of them served, and the API still is', async () => {
    context = await startTestApp({ DOCS_ENABLED: 'false' });
    for (const route of [...DOCUMENT_ROUTES, '/docs/swagger-ui.css', '/docs/swagger-ui-init.js']) {
      expect([route, (await request(context.server).get(route)).status]).toEqual([route, 404]);
    }
    expect((await api(context.server, userToken(1)).get('/orders')).status).toBe(200);
  });

  it('are described by CHANGELOG.md, whose newest release is package.json’s version', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const changelog = readFileSync('CHANGELOG.md', 'utf8');
    expect(changelog).toMatch(/^# Changelog\n/);
    // Keep a Changelog: `## [Unreleased]` first, then releases newest first, each `## [x.y.z] - YYYY-MM-DD`.
    const releases = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)].map(
      (match) => match[1],
    );
    expect(releases[0]).toBe(manifest.version);
    const newestFirst = [...releases].sort((a, b) => b.localeCompare(a, undefined, { numeric: true }));
    expect(releases).toEqual(newestFirst);
  });
});
