import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';

/** Debian's Chromium (scripts/test.sh installs it), driven by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';
/** The flags this machine's closed network needs (no background connections), headless and as root. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Where the screenshots of the edge pages are kept as test artefacts. */
const ARTIFACTS = resolve('test-artifacts/edge-pages');

/** Whether the browser is there; when not, the file says so and its suite is skipped. */
export function chromiumAvailable(file: string): boolean {
  const available = existsSync(CHROMIUM);
  if (!available) console.warn(`${file}: ${CHROMIUM} not found, suite skipped (scripts/test.sh installs Debian's chromium)`);
  return available;
}

let axe: string | undefined;

/** Serious and critical axe-core findings on the page (axe injected by the DevTools protocol, which the page's CSP does not govern). */
export async function seriousViolations(page: Page): Promise<string[]> {
  axe ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axe);
  const found = (await page.evaluate('axe.run(document).then((r) => r.violations)')) as Array<{ id: string; impact: string; help: string }>;
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

/** A full-page screenshot kept as an artefact. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
}
