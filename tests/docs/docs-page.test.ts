import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUser, login, type TestUser } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureChromium } from './chromium.js';

/**
 * GET /docs in headless Chromium: the page loads, lists every documented operation, and a
 * "try it" call with a bearer token (Authorize → GET /auth/me → Execute) answers 200.
 * Skipped only when Chromium is missing and cannot be installed.
 */

const SCREENSHOT = path.resolve('tests/.artifacts/docs.png');

let api: Api;
let user: TestUser;
let browser: Browser | undefined;
let unavailable: string | null = null;

beforeAll(async () => {
  api = await startServer();
  user = await buildUser({ name: 'Docs Reader' });
  unavailable = await ensureChromium();
  if (unavailable) return;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}, 900_000);

afterAll(async () => {
  await browser?.close();
});

async function openDocs(): Promise<Page> {
  const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } });
  const failures: string[] = [];
  page.on('pageerror', (err) => failures.push(err.message));
  const res = await page.goto(`${api.baseUrl}/docs`, { waitUntil: 'load' });
  expect(res?.status()).toBe(200);
  await page.locator('.opblock-tag').first().waitFor({ timeout: 30_000 });
  expect(failures).toEqual([]);
  return page;
}

describe('/docs in headless Chromium', () => {
  it('loads and lists every operation of openapi.json under its tag, with operationIds and summaries', async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    const page = await openDocs();
    const doc = (
      await api.get<{ paths: Record<string, Record<string, { operationId: string; summary: string; tags: string[] }>> }>('/openapi.json')
    ).body;
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const byTag = new Map<string, typeof operations>();
    for (const operation of operations) byTag.set(operation.tags[0]!, [...(byTag.get(operation.tags[0]!) ?? []), operation]);

    let listed = 0;
    for (const [tag, ofTag] of byTag) {
      const header = page.locator(`#operations-tag-${tag.replaceAll(' ', '_')}`);
      await header.click();
      const section = page.locator('.opblock-tag-section').filter({ has: header });
      await expect.poll(() => section.locator('.opblock').count(), { timeout: 10_000 }).toBe(ofTag.length);
      const text = await section.innerText();
      for (const operation of ofTag) {
        expect(text, operation.operationId).toContain(operation.operationId);
        expect(text, operation.operationId).toContain(operation.summary);
      }
      listed += ofTag.length;
      await header.click();
    }
    expect(listed).toBe(operations.length);
    await page.close();
  });

  it('authorizes with a bearer token and executes GET /auth/me from the page (200)', async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    const token = await login(api, user);
    const page = await openDocs();

    await page.locator('button.authorize').first().click();
    const dialog = page.locator('.modal-ux');
    const bearerForm = dialog.locator('form').filter({ hasText: 'Authorization (http, Bearer)' });
    await bearerForm.locator('input').fill(token);
    await bearerForm.locator('button.modal-btn.authorize').click();
    await expect.poll(() => bearerForm.locator('button.modal-btn.auth').first().innerText()).toBe('Logout');
    await dialog.locator('button.close-modal').click();

    await page.locator('#operations-tag-Auth').click();
    const operation = page.locator('#operations-Auth-getMe');
    await operation.locator('.opblock-summary').click();
    const tryItOut = operation.locator('button.try-out__btn');
    if ((await tryItOut.count()) > 0 && (await tryItOut.innerText()).trim() === 'Try it out') await tryItOut.click();
    await operation.locator('button.execute').click();

    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await expect.poll(() => status.innerText(), { timeout: 15_000 }).toBe('200');
    const body = await operation.locator('.live-responses-table .response-col_description pre').first().innerText();
    expect(JSON.parse(body)).toMatchObject({ id: user.id, email: user.email, name: 'Docs Reader' });
    const curl = await operation.locator('.curl-command').innerText();
    expect(curl).toContain(`Authorization: Bearer ${token}`);

    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await operation.scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOT });
    await page.close();
  });
});
