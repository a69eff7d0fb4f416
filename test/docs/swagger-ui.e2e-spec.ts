import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { seedDataset } from '../support/data/dataset';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';

/** Debian's Chromium; no browser is downloaded. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** `npm run docs:screenshot` points this at docs/ to refresh the README's picture. */
const SCREENSHOT = process.env.SWAGGER_SCREENSHOT ?? join(tmpdir(), 'orders-swagger-ui.png');

/**
 * What a front-end developer does in Swagger UI, in a real headless browser:
 * authorize with a token, open GET /orders, "Try it out", "Execute", and read
 * the answer. The role in the token decides whether elements carry userId.
 */
describe('Swagger UI in Chromium', () => {
  let context: TestApp;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `The Swagger UI test needs Chromium at ${CHROMIUM}: sudo apt-get install -y chromium, or set CHROMIUM_PATH.`,
      );
    }
    context = await startTestApp({});
    await seedDataset(context.dataSource, 3);
    await context.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(context.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await context?.close();
  });

  async function executeListOrders(
    page: Page,
    token: string,
  ): Promise<{ status: string; body: { elements: Array<Record<string, unknown>> } }> {
    await page.goto(`${baseUrl}/docs`);
    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.modal-ux input[type=text]').fill(token);
    await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
    await page.locator('.modal-ux .auth-btn-wrapper button.btn-done').click();
    const operation = page.locator('#operations-orders-listOrders');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const answer = operation.locator('.live-responses-table .response');
    await answer.first().waitFor();
    const status = (await answer.locator('.response-col_status').first().textContent())?.trim() ?? '';
    const body = (await answer.locator('.response-col_description pre').first().textContent()) ?? '{}';
    return { status, body: JSON.parse(body) as { elements: Array<Record<string, unknown>> } };
  }

  it('lists every order with userId for an ADMIN token', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1800 } });
    const { status, body } = await executeListOrders(page, adminToken());
    expect(status).toBe('200');
    expect(body.elements.length).toBe(20);
    for (const element of body.elements) expect(element).toHaveProperty('userId');
    // From the operation's header down to the answer the developer just got.
    const top = await page.locator('#operations-orders-listOrders').boundingBox();
    const answer = await page.locator('#operations-orders-listOrders .live-responses-table').boundingBox();
    if (top && answer) {
      await page.screenshot({
        path: SCREENSHOT,
        fullPage: true,
        clip: { x: top.x, y: top.y, width: top.width, height: answer.y + Math.min(answer.height, 520) - top.y },
      });
    }
    await page.close();
  }, 60_000);

  it('lists the member’s own orders without userId for a USER token', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1800 } });
    const { status, body } = await executeListOrders(page, userToken(1));
    expect(status).toBe('200');
    expect(body.elements.length).toBeGreaterThan(0);
    for (const element of body.elements) expect(element).not.toHaveProperty('userId');
    await page.close();
  }, 60_000);
});
