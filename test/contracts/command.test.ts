import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runContractsCommand } from '../../src/cli/commands/contracts.ts';
import { dialectOf } from '../../src/config/dialect.ts';
import { defaultConfig } from '../../src/config/index.ts';
import { dialectContracts, PACT_FILE_NAME } from '../../src/contracts/index.ts';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: {} } };
}

describe('aggmock contracts', () => {
  it('prints where the contracts are and one line per interaction, with its provider states', async () => {
    const { out, io: streams } = io();
    expect(await runContractsCommand({}, { ...streams, cwd: process.cwd() })).toBe(0);
    const text = out.join('');
    expect(text).toContain(`contracts/${PACT_FILE_NAME}`);
    expect(text).toContain('contracts/openapi.json');
    for (const i of dialectContracts(dialectOf(defaultConfig().callbacks))) expect(text).toContain(`pact:${i.id}`);
    expect(text).toContain('given "player p1 has balance 100.00" and "transaction ctx-rb was debited from player p1 for 10.00"');
  });

  it('--out writes contracts for the given scheme and rollback style', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-contracts-cli-'));
    try {
      const { out, io: streams } = io();
      expect(
        await runContractsCommand(
          { out: dir, scheme: 'hmac-hex', rollbackStyle: 'reference' },
          { ...streams, cwd: process.cwd() },
        ),
      ).toBe(0);
      expect(out.join('')).toMatch(/dialect default, signing scheme hmac-hex/);
      const pact = JSON.parse(readFileSync(join(dir, PACT_FILE_NAME), 'utf8'));
      const rollback = pact.interactions.find((i: { description: string }) => i.description === 'a rollback of an accepted bet');
      expect(rollback.request.body.content.referenceTransactionId).toBe('ctx-rb');
      expect(rollback.request.matchingRules.header['X-Signature'].matchers[0].regex).toBe('^[0-9a-f]{64}(,[0-9a-f]{64})*$');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses --scheme without --out, and --regenerate with --out (exit 2)', async () => {
    const a = io();
    expect(await runContractsCommand({ scheme: 'hmac-hex' }, a.io)).toBe(2);
    expect(a.err.join('')).toMatch(/shape contracts written with --out/);
    const b = io();
    expect(await runContractsCommand({ regenerate: true, out: 'x' }, b.io)).toBe(2);
  });
});
