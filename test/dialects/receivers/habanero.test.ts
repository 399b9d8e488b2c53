/**
 * Proves the Habanero wallet against requests built by hand from the shapes in the integrations
 * cited in habanero.ts (t1softxxx habanero_service_api.php; the Java nextgen Habanero vendor).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHabaneroReceiver, type VendorReceiver } from './habanero.ts';

const PASSKEY = 'hb-passkey-1';
let wallet: VendorReceiver;

type Json = Record<string, unknown>;

function envelope(type: string, inner: Json, passkey = PASSKEY): Json {
  return {
    type,
    dtsent: '2026-11-25T12:00:00.0000000Z',
    basegame: { brandgameid: 'bg-1', keyname: 'SGCoyoteCash' },
    auth: { username: 'hb', passkey, machinename: 'HB01', locale: 'en', brandid: 'brand-1' },
    [type]: inner,
  };
}

function transfer(funds: Json, extra: Json = {}): Json {
  return envelope('fundtransferrequest', {
    token: 'tok-1',
    accountid: 'p1',
    customplayertype: 0,
    gameinstanceid: 'gi-1',
    friendlygameinstanceid: 101,
    isretry: false,
    retrycount: 0,
    isrefund: false,
    isrecredit: false,
    funds,
    gamedetails: { keyname: 'SGCoyoteCash', gameinstanceid: 'gi-1' },
    ...extra,
  });
}

const entry = (transferid: string, amount: number, extra: Json = {}): Json => ({
  transferid,
  amount,
  currencycode: 'EUR',
  gamestatemode: amount < 0 ? 1 : 2,
  dtevent: '2026-11-25T12:00:00Z',
  isbonus: false,
  jpwin: false,
  ...extra,
});

async function post(body: Json): Promise<Json> {
  const response = await fetch(`${wallet.url}/habanero/transaction`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

async function fund(body: Json) {
  const reply = await post(body);
  return reply.fundtransferresponse as { status: Record<string, unknown>; balance: number; remotetransferid: string | null };
}

beforeEach(async () => {
  wallet = await startHabaneroReceiver({
    credentials: { passkey: PASSKEY, brandId: 'brand-1' },
    players: [{ playerId: 'p1', currency: 'EUR', balance: '100.00', token: 'tok-1' }],
  });
});
afterEach(async () => {
  await wallet.stop();
});

describe('Habanero wallet', () => {
  it('answers playerdetailrequest for the launch token with the account and its balance', async () => {
    const reply = await post(envelope('playerdetailrequest', { token: 'tok-1', gamelaunch: true }));
    expect(reply).toEqual({
      playerdetailresponse: {
        status: expect.objectContaining({ success: true, autherror: false }),
        accountid: 'p1',
        accountname: 'p1',
        balance: 100,
        currencycode: 'EUR',
      },
    });
    expect(wallet.errors).toEqual([]);
  });

  it('refuses playerdetailrequest for a token it never issued', async () => {
    const reply = await post(envelope('playerdetailrequest', { token: 'tok-forged', gamelaunch: true }));
    expect((reply.playerdetailresponse as Json).status).toMatchObject({ success: false, autherror: true });
    expect(wallet.errors).toEqual([expect.stringContaining('playerdetailrequest.token: string "tok-forged" is no session')]);
  });

  it('notes a request without its type, and still reads it by the object it carries', async () => {
    const { type: _omitted, ...untyped } = transfer({ debitandcredit: false, fundinfo: [entry('t1', -1)] });
    const reply = await fund(untyped);
    expect(reply.status.success).toBe(true);
    expect(wallet.errors).toEqual([expect.stringContaining('type: got missing; expected one of playerdetailrequest')]);
  });

  it('debits a negative fundinfo amount and credits a positive one', async () => {
    const debit = await fund(transfer({ debitandcredit: false, fundinfo: [entry('t1', -2.5)] }));
    expect(debit.status).toMatchObject({ success: true, successdebit: true, nofunds: false });
    expect(debit.balance).toBe(97.5);
    const credit = await fund(transfer({ debitandcredit: false, fundinfo: [entry('t2', 10, { initialdebittransferid: 't1' })] }));
    expect(credit.status).toMatchObject({ success: true, successcredit: true });
    expect(credit.balance).toBe(107.5);
    expect(credit.remotetransferid).toEqual(expect.any(String));
    expect(wallet.errors).toEqual([]);
  });

  it('applies a debitandcredit call as one unit', async () => {
    const reply = await fund(
      transfer({ debitandcredit: true, fundinfo: [entry('t1', -5), entry('t2', 7.25, { initialdebittransferid: 't1' })] }),
    );
    expect(reply.status).toMatchObject({ success: true, successdebit: true, successcredit: true });
    expect(wallet.balanceOf('p1')).toBe('102.25');
  });

  it('answers a repeated transferid with success and moves no money twice', async () => {
    const request = transfer({ debitandcredit: false, fundinfo: [entry('t1', -10)] });
    const first = await fund(request);
    const again = await fund({
      ...request,
      fundtransferrequest: { ...(request.fundtransferrequest as Json), isretry: true, retrycount: 1 },
    });
    expect(again.status.success).toBe(true);
    expect(again.remotetransferid).toBe(first.remotetransferid);
    expect(wallet.balanceOf('p1')).toBe('90.00');
  });

  it('refuses a repeated transferid with another amount', async () => {
    await fund(transfer({ debitandcredit: false, fundinfo: [entry('t1', -10)] }));
    const again = await fund(transfer({ debitandcredit: false, fundinfo: [entry('t1', -20)] }));
    expect(again.status.success).toBe(false);
    expect(wallet.balanceOf('p1')).toBe('90.00');
    expect(wallet.errors).toEqual([
      expect.stringContaining('transferid t1 was first sent for p1 with -10.00; now p1 with -20.00'),
    ]);
  });

  it('answers nofunds for a debit above the balance and takes nothing, not even the credit beside it', async () => {
    const reply = await fund(transfer({ debitandcredit: true, fundinfo: [entry('t1', -100.01), entry('t2', 500)] }));
    expect(reply.status).toMatchObject({ success: false, nofunds: true });
    expect(reply.balance).toBe(100);
    expect(wallet.balanceOf('p1')).toBe('100.00');
    expect(wallet.errors).toEqual([]);
  });

  it('refunds a debit once, with refundstatus 1', async () => {
    await fund(transfer({ debitandcredit: false, fundinfo: [entry('t1', -10)] }));
    const refund = (id: string) =>
      transfer(
        { debitandcredit: false, refund: { transferid: id, originaltransferid: 't1', amount: -10, currencycode: 'EUR' } },
        { isrefund: true, isretry: true },
      );
    expect((await fund(refund('rf1'))).status).toMatchObject({ success: true, refundstatus: '1' });
    expect((await fund(refund('rf1'))).status).toMatchObject({ success: true, refundstatus: '1' });
    expect((await fund(refund('rf2'))).status).toMatchObject({ success: true, refundstatus: '1' });
    expect(wallet.balanceOf('p1')).toBe('100.00');
    expect(wallet.errors).toEqual([]);
  });

  it('closes a refund of a debit it never took with refundstatus 2, then never charges that debit', async () => {
    const reply = await fund(
      transfer(
        { debitandcredit: false, refund: { transferid: 'rf1', originaltransferid: 'late', amount: 10, currencycode: 'EUR' } },
        { isrefund: true },
      ),
    );
    expect(reply.status).toMatchObject({
      success: true,
      refundstatus: '2',
      message: 'Original request never debited. So closing record.',
    });
    const repeated = await fund(
      transfer(
        { debitandcredit: false, refund: { transferid: 'rf1', originaltransferid: 'late', amount: 10, currencycode: 'EUR' } },
        { isrefund: true, isretry: true },
      ),
    );
    expect(repeated.status).toMatchObject({ success: true, refundstatus: '2' });
    const late = await fund(transfer({ debitandcredit: false, fundinfo: [entry('late', -10)] }));
    expect(late.status.success).toBe(false);
    expect(wallet.balanceOf('p1')).toBe('100.00');
  });

  it('refuses a credit that names a debit it never took ("Bet not exist")', async () => {
    const reply = await fund(
      transfer({ debitandcredit: false, fundinfo: [entry('t9', 5, { initialdebittransferid: 'ghost' })] }),
    );
    expect(reply.status).toMatchObject({ success: false, message: 'Bet not exist' });
    expect(wallet.balanceOf('p1')).toBe('100.00');
    expect(wallet.errors).toEqual([expect.stringContaining('initialdebittransferid ghost, a debit this wallet never took')]);
  });

  it('pays a recredit once when the original credit never arrived, and not at all when it did', async () => {
    await fund(transfer({ debitandcredit: false, fundinfo: [entry('t1', -1)] }));
    await fund(transfer({ debitandcredit: false, fundinfo: [entry('t2', 3, { initialdebittransferid: 't1' })] }));
    const recredit = (transferid: string, original: string, amount: number) =>
      transfer(
        { debitandcredit: false, fundinfo: [entry(transferid, amount, { originaltransferid: original })] },
        { isrecredit: true, isretry: true },
      );
    expect((await fund(recredit('rc1', 't2', 3))).status.success).toBe(true);
    expect(wallet.balanceOf('p1')).toBe('102.00');
    expect((await fund(recredit('rc2', 't3', 4))).status.success).toBe(true);
    expect((await fund(recredit('rc2', 't3', 4))).status.success).toBe(true);
    expect(wallet.balanceOf('p1')).toBe('106.00');
  });

  it('refuses a wrong passkey with autherror and moves no money', async () => {
    const reply = await fund({
      ...transfer({ debitandcredit: false, fundinfo: [entry('t1', -10)] }),
      auth: { passkey: 'guess', brandid: 'brand-1' },
    });
    expect(reply.status).toMatchObject({ success: false, autherror: true });
    expect(wallet.balanceOf('p1')).toBe('100.00');
    expect(wallet.errors).toEqual([expect.stringContaining('auth.passkey: does not match')]);
  });

  it('refuses a new debit under another token but settles an expired round by accountid', async () => {
    const stranger = await fund(transfer({ debitandcredit: false, fundinfo: [entry('t1', -10)] }, { token: 'tok-old' }));
    expect(stranger.status).toMatchObject({ success: false, autherror: true });
    const expired = await fund(
      transfer({ debitandcredit: false, fundinfo: [entry('t2', -1, { gamestatemode: 3 })] }, { token: 'tok-old' }),
    );
    expect(expired.status.success).toBe(true);
    expect(wallet.balanceOf('p1')).toBe('99.00');
  });

  it('names what is wrong in a malformed transfer and refuses a foreign currency', async () => {
    const bad = await fund(
      transfer({ debitandcredit: false, fundinfo: [{ transferid: 't1', amount: 'ten', currencycode: 'EUR' }] }),
    );
    expect(bad.status.success).toBe(false);
    const foreign = await fund(transfer({ debitandcredit: false, fundinfo: [entry('t2', -1, { currencycode: 'USD' })] }));
    expect(foreign.status).toMatchObject({ success: false, message: 'Invalid currency.' });
    expect(wallet.errors).toEqual([
      expect.stringContaining('fundtransferrequest.funds.fundinfo[0].amount: got string "ten"'),
      expect.stringContaining('currencycode string "USD" on transfer t2'),
    ]);
    expect(wallet.balanceOf('p1')).toBe('100.00');
  });

  it('answers queryrequest for a transfer it holds, with the same amount', async () => {
    await fund(transfer({ debitandcredit: false, fundinfo: [entry('t1', -10)] }));
    const known = await post(envelope('queryrequest', { transferid: 't1', queryamount: -10 }));
    expect((known.fundtransferresponse as Json).status).toMatchObject({ success: true });
    const unknown = await post(envelope('queryrequest', { transferid: 'nope', queryamount: -10 }));
    expect((unknown.fundtransferresponse as Json).status).toMatchObject({ success: false });
  });
});
