import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../src/config/index.ts';
import { type Aggmock, startAggmock } from '../src/runtime.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

// The README's signing examples, run for real against a server that accepts only signatures.
describe('README signing examples', () => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    aggmock = await startAggmock(validateConfig({ port: 0, db: ':memory:', auth: { mode: 'hmac' } }));
  });
  afterAll(async () => {
    await aggmock.close();
  });

  it('curl + openssl (examples/signed-request.sh) launches a game', async () => {
    const { stdout } = await run('bash', ['examples/signed-request.sh'], {
      cwd: root,
      env: { ...process.env, AGGMOCK_URL: aggmock.url },
    });
    const body = JSON.parse(stdout);
    expect(body).toMatchObject({ code: 0, success: true });
    expect(body.payload.game_launch_url).toMatch(new RegExp(`^${aggmock.url}/play/`));
  });

  it('TypeScript (examples/signed-request.ts) launches a game', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/signed-request.ts'], {
      cwd: root,
      env: { ...process.env, AGGMOCK_URL: aggmock.url },
    });
    expect(stdout.trim()).toMatch(new RegExp(`^${aggmock.url}/play/[0-9a-f]{32}$`));
  });

  it('the curl example fails loudly with the wrong secret', async () => {
    await expect(
      run('bash', ['examples/signed-request.sh'], {
        cwd: root,
        env: { ...process.env, AGGMOCK_URL: aggmock.url, AGGMOCK_SECRET: 'wrong' },
      }),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('INVALID_SIGNATURE') });
  });
});
