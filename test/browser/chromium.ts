import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type LaunchOptions } from 'playwright-core';

/**
 * Browser tests find a browser in this order and never download one at test time:
 * 1. `AGGMOCK_CHROMIUM`: an explicit executable path (it must exist);
 * 2. a system Chromium or Chrome at the usual Linux and macOS paths, then playwright-core's channels;
 * 3. the `@sparticuz/chromium` devDependency (Linux x64/arm64), a headless Chromium that arrives
 *    with `npm ci` from the npm registry and unpacks in about 2 s on first use.
 */
export const CHROMIUM_ENV = 'AGGMOCK_CHROMIUM';

const SYSTEM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];
const CHANNELS = ['chrome', 'msedge'];

/** Offline and quiet: no sign-in, sync, component updates or QUIC probes to the internet. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface FoundBrowser {
  /** Where it came from, for messages. */
  source: string;
  options: LaunchOptions;
}

let found: Promise<FoundBrowser | string> | undefined;

/** The first browser in the documented order, or a message saying what was tried. */
export function findChromium(): Promise<FoundBrowser | string> {
  found ??= search();
  return found;
}

async function search(): Promise<FoundBrowser | string> {
  const explicit = process.env[CHROMIUM_ENV];
  if (explicit) {
    return existsSync(explicit)
      ? { source: `${CHROMIUM_ENV}=${explicit}`, options: { executablePath: explicit } }
      : `${CHROMIUM_ENV}=${explicit} does not exist; point it at a Chromium or Chrome executable`;
  }
  const system = SYSTEM_PATHS.find((path) => existsSync(path));
  if (system) return { source: system, options: { executablePath: system } };
  for (const channel of CHANNELS) {
    if (await channelLaunches(channel)) return { source: `playwright channel ${channel}`, options: { channel } };
  }
  const packaged = await sparticuzChromium();
  if (typeof packaged !== 'string') return packaged;
  return (
    `no browser found: ${CHROMIUM_ENV} is unset, none of ${SYSTEM_PATHS.join(', ')} exists, ` +
    `playwright channels ${CHANNELS.join(', ')} are not installed, and @sparticuz/chromium ${packaged}`
  );
}

async function channelLaunches(channel: string): Promise<boolean> {
  try {
    const browser = await chromium.launch({ channel, headless: true, args: ARGS });
    await browser.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Unpacks @sparticuz/chromium into node_modules/.cache, one folder per package version. The
 * package unpacks into `os.tmpdir()` and writes in place, so parallel test files would see each
 * other's half-written binary; each unpacks into its own staging folder and renames it into place.
 */
async function sparticuzChromium(): Promise<FoundBrowser | string> {
  if (platform() !== 'linux' || !['x64', 'arm64'].includes(arch())) return `does not run on ${platform()}-${arch()}`;
  let packageDir: string;
  try {
    packageDir = dirname(dirname(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium'))));
  } catch {
    return 'is not installed (run npm ci)';
  }
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const cache = fileURLToPath(new URL('../../node_modules/.cache/aggmock-chromium/', import.meta.url));
  const target = join(cache, version);
  const executable = join(target, 'chromium');
  if (!existsSync(executable)) {
    mkdirSync(cache, { recursive: true });
    const staging = mkdtempSync(join(cache, `${version}.staging-`));
    await unpackInto(staging, join(packageDir, 'bin'));
    try {
      renameSync(staging, target);
    } catch {
      // Another test file finished first: its copy is complete, so this one is not needed.
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return { source: `@sparticuz/chromium ${version}`, options: { executablePath: executable } };
}

async function unpackInto(folder: string, bin: string): Promise<void> {
  const previous = process.env.TMPDIR;
  // executablePath() unpacks into os.tmpdir(), which reads TMPDIR on every call.
  process.env.TMPDIR = folder;
  try {
    const { default: packaged } = await import('@sparticuz/chromium');
    await packaged.executablePath(bin);
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  }
}

/**
 * Why the browser tests skip here, or undefined when they run. Under CI=true they never skip: a
 * missing browser fails there, at launch, with the same message.
 */
export async function browserSkipReason(): Promise<string | undefined> {
  if (process.env.CI === 'true') return undefined;
  const browser = await findChromium();
  if (typeof browser !== 'string') return undefined;
  console.warn(`browser tests skipped: ${browser}`);
  return browser;
}

/** Launches the browser found by {@link findChromium}, headless, with a fresh profile. */
export async function launchChromium(): Promise<Browser> {
  const browser = await findChromium();
  if (typeof browser === 'string') throw new Error(browser);
  // launch() (not launchPersistentContext) gives each browser a fresh temporary user-data-dir.
  return chromium.launch({ ...browser.options, headless: true, args: ARGS });
}
