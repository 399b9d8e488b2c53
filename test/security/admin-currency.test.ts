import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestReceiver, type TestReceiver } from '../../src/callbacks/test-receiver.ts';
import type { Aggmock } from '../../src/runtime.ts';
import { startSmallAggmock } from '../api/helpers.ts';

/**
 * The admin API speaks major units in the event's own currency (security review L5): 5 JPY is sent
 * as 5 (JPY has no decimals), 0.5 KWD as 0.5 (three decimals), and a currency nobody knows is a
 * 400 naming the field, not a callback in "__proto__".
 */
describe('admin events in currencies without two decimals', () => {
  let aggmock: Aggmock;
  let wallet: TestReceiver;
  beforeAll(async () => {
    wallet = await startTestReceiver();
    aggmock = await startSmallAggmock({ webhookUrl: wallet.url, retrySchedule: [0] });
  });
  afterAll(async () => {
    await aggmock?.close();
    await wallet?.close();
  });

  const trigger = (body: Record<string, unknown>) =>
    fetch(`${aggmock.url}/__admin/events?wait=true&timeout=5000`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: aggmock.url },
      body: JSON.stringify(body),
    });

  it.each([
    ['JPY', 5, 5, 5],
    ['KWD', 0.5, 500, 0.5],
    ['EUR', 10.5, 1050, 10.5],
  ])('sends %s %s as that amount and shows it back the same way', async (currency, amount, minor, shown) => {
    const res = await trigger({ type: 'credit', playerId: 'p9', amount, currency });
    expect(res.status).toBe(200);
    const { event } = (await res.json()) as { event: { id: number; amountMinor: number; amount: number; body: string } };
    expect(event.amountMinor).toBe(minor);
    expect(event.amount).toBe(shown);
    expect(JSON.parse(event.body).amount).toBe(shown);
    const listed = (await (await fetch(`${aggmock.url}/__admin/deliveries/${event.id}`)).json()) as {
      delivery: { amount: number };
    };
    expect(listed.delivery.amount).toBe(shown);
  });

  it('refuses a well-formed but unknown currency (XYZ) with a 400 naming the field, and sends nothing', async () => {
    for (const currency of ['XYZ', 'QQQ']) {
      const res = await trigger({ type: 'credit', playerId: 'p9', amount: 1, currency });
      expect(res.status, currency).toBe(400);
      const body = (await res.json()) as { errors: { field: string; message: string }[] };
      expect(body.errors[0]?.field).toBe('currency');
      expect(body.errors[0]?.message).toContain('ISO 4217');
    }
    // Real codes with other decimals still pass (both sides): see the cases above.
    expect((await trigger({ type: 'credit', playerId: 'p9', amount: 1, currency: 'CHF' })).status).toBe(200);
  });

  it('refuses more decimals than the currency has, naming the field and the decimals', async () => {
    const res = await trigger({ type: 'credit', playerId: 'p9', amount: 5.5, currency: 'JPY' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { field: string; message: string }[] };
    expect(body.errors[0]).toMatchObject({ field: 'amount', message: expect.stringContaining('at most 0 decimals (JPY)') });
  });

  it.each(['jpy', '__proto__', 'EURO', 'constructor'])(
    'refuses the currency %s with a 400 naming the field',
    async (currency) => {
      const res = await trigger({ type: 'credit', playerId: 'p9', amount: 5, currency });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { errors: { field: string; message: string }[] };
      expect(body.errors[0]).toMatchObject({ field: 'currency', message: expect.stringContaining('ISO 4217') });
    },
  );
});
