import { describe, expect, it } from 'vitest';
import { readyMessage } from '../../src/cli/commands/serve.ts';
import { validateConfig } from '../../src/config/index.ts';
import { maskedUrl } from '../../src/shared/secrets.ts';

/**
 * L-2 / L-4 (review 2026-11-27, tools/repro-config-echo.sh, repro-mcp.sh): the serve banner printed
 * the webhook URL with its userinfo and `?access_token=`, and MCP `info` returned it as configured.
 * Both show it through one mask now: userinfo as `…@`, secret-named query parameters masked.
 */
describe('L-2/L-4: the webhook URL is shown without its credentials', () => {
  const webhook = 'http://ops:PASSWD-IN-URL@127.0.0.1:14463/cb?access_token=WEBHOOK-SECRET-123&region=eu';

  it('the serve banner masks userinfo and token-like query parameters, and keeps the rest', () => {
    const config = validateConfig({ db: ':memory:', callbacks: { webhookUrl: webhook } });
    const banner = readyMessage(config, 'http://127.0.0.1:4000');
    expect(banner).not.toContain('PASSWD-IN-URL');
    expect(banner).not.toContain('WEBHOOK-SECRET-123');
    expect(banner).toContain('http://…@127.0.0.1:14463/cb?access_token=[masked]&region=eu');
  });

  it('masks by name both ways: secrets go, ordinary parameters and plain URLs stay as they are', () => {
    expect(maskedUrl('http://127.0.0.1:4001/callback/webhook')).toBe('http://127.0.0.1:4001/callback/webhook');
    expect(maskedUrl('https://w.example/cb?apiKey=k&sig=s&player=p1')).toBe(
      'https://w.example/cb?apiKey=[masked]&sig=[masked]&player=p1',
    );
    expect(maskedUrl('https://user@w.example/')).toBe('https://…@w.example/');
    expect(maskedUrl('not a url token=abc')).toBe('not a url token=[masked]');
  });
});
