/*
 * The vendors' own wallet test suites, where public (docs/research/vendor-rules.md, "Vendors' own
 * test suites"), case by case: which of verify's checks and contract interactions try each case on
 * that vendor's dialect, and which cases no check tries yet. verify's report names the cases beside
 * each result; the dialect's docs page lists them all, the uncovered ones too.
 */

/** One case of a vendor's suite. */
export interface VendorCase {
  /** The vendor's (or its mirror's) name for the case. */
  id: string;
  /** What it sends and expects, in a few words. */
  expects: string;
  /** The check ids (`pact:<id>` for a contract interaction) that try it; empty: not covered yet. */
  checks: readonly string[];
  /** What the checks leave out of the case, when they cover only part of it. */
  partly?: string;
}

/** A vendor's suite: where it is published and its cases. */
export interface VendorSuite {
  /** The dialect it is for. */
  dialect: string;
  name: string;
  /** Where the case list is (a vendor page, or the third-party copy with repository and path). */
  source: string;
  cases: readonly VendorCase[];
}

const VALKYRIE = 'valkyrie-fnd/valkyrie @ fe49faae254f20311af90157952f9c365779768a';

const c = (id: string, expects: string, checks: readonly string[], partly?: string): VendorCase =>
  partly === undefined ? { id, expects, checks } : { id, expects, checks, partly };

export const VENDOR_SUITES: readonly VendorSuite[] = [
  {
    dialect: 'evolution',
    name: 'Evolution wallet test tool (licensee integration tests)',
    source: `${VALKYRIE}: provider/evolution/test/evo_integration_test.go ("A copy of Evo's licensee integration tests")`,
    cases: [
      c('Test_allMethodsCheckBeforeRunningTests', 'balance; debit 1; credit 1 → OK', [
        'pact:balance',
        'debit-applies',
        'credit-applies',
      ]),
      c('Test_debitBetAlreadyExist', 'the same debit again → BET_ALREADY_EXIST or OK, charged once', ['idempotent-debit']),
      c('Test_debitCancel', 'debit, cancel → OK, restored', ['rollback-restores']),
      c('Test_debitCredit', 'debit 2; credit 2 by refId → OK', ['credit-applies']),
      c('Test_debitCreditBetAlreadySettled', 'the same credit again → BET_ALREADY_SETTLED or OK, paid once', [
        'idempotent-credit',
      ]),
      c('Test_debitCancelBetDoesNotExist', 'cancel of an unknown bet → BET_DOES_NOT_EXIST', ['rollback-unknown']),
      c('Test_debitCancelBetAlreadySettled', 'cancel twice → BET_ALREADY_SETTLED (or OK), restored once', ['duplicate-rollback']),
      c('Test_creditWithZeroAmount', 'debit 3; credit 0 → OK', ['zero-amount'], 'a refusal of the credit 0 also passes'),
      c(
        'Test_insufficientFunds',
        'debit 3× the balance → INSUFFICIENT_FUNDS',
        ['insufficient-funds'],
        'the balance in the refusal is not compared',
      ),
      c('Test_debitCreditWithBigPayout', 'debit and credit of 63727092.34', ['large-amounts']),
      c(
        'Test_checkUsingInvalidUserId',
        'a valid sid with another userId → INVALID_SID',
        ['unknown-player'],
        'a ghost player, not a known sid with another userId',
      ),
      c(
        'Test_verifyCanPlaceBetBeforeSettleForAnotherGame',
        'bets in rounds A and B, settled B then A',
        ['concurrent-mixed'],
        'not in this order',
      ),
      c(
        'Test_onePlayerPlaysTwoGameRoundsOnOneTableInParallel',
        '4 bets in 2 rounds, a cancel, credits',
        ['concurrent-mixed'],
        'the final cancel of a settled bet is not sent',
      ),
      c(
        'Test_checkUsingNewSID',
        '/check answers a new sid; the old one is refused INVALID_SID',
        ['old-token-bet'],
        'the balance call with the old sid is not sent',
      ),
      c('Test_debitCreditBetDoesNotExist', 'credit with an unknown refId → BET_DOES_NOT_EXIST', []),
      c('Test_debitCreditCancel', 'debit, credit, cancel → BET_ALREADY_SETTLED', []),
      c('Test_sameUserPlayingWithDifferentChannelType', 'two sids of one user, both valid', []),
      c('Test_twoUsersBjGameEachPlaying_2_hands', 'two users, two bets each in one round', []),
      c('Test_debitCreditWithDifferentSids', 'a bet under sid 1, a new sid, a bet under it; both credits OK', []),
      c('Test_multiStepGameTwoDebitsCreditCancel', 'two debits in one round; credit one, cancel the other', []),
      c('Test_multiStepGameTwoDebitsCancelCredit', 'two debits; cancel the second, credit the first', []),
      c('Test_multipleDontSettlementsScenario', '101 debit/credit pairs in one round', []),
      c('Test_debitCancelCredit', 'debit, cancel, credit → BET_ALREADY_SETTLED', []),
      c('Test_doublePromoPayouts', 'promo_payout twice → paid once', []),
      c('Test_promoPayout', 'one promo_payout → paid', []),
      c('Test_multipleDebitCreditCancelSettleTypeMixed', '15 bets in one round, credits and cancels', []),
    ],
  },
  {
    dialect: 'blueocean',
    name: 'Blue Ocean "Failed possible tests"',
    source:
      'https://blueoceangaming.atlassian.net/wiki/x/AYBMqw ("Failed possible tests"; the rest of the page was not readable)',
    cases: [
      c('Get first balance', 'the balance call', ['pact:balance']),
      c('Test credit win 10', 'a win with no bet is accepted', ['credit-applies'], 'verify opens the round with a bet first'),
      c('Test debit bet 5', 'a debit', ['debit-applies']),
      c(
        'Rollback the previous bet without round_id, game_id and amount',
        'rollback by transaction id only',
        ['rollback-restores', 'rollback-amount-mismatch'],
        'aggmock always sends amount and round_id',
      ),
      c('Test salt check', 'a debit with a wrong key is refused', ['wrong-secret', 'tampered-signature', 'missing-signature']),
      c('Remove all balance / Add 1000 initial balance', 'a debit of the whole balance, then a win', ['exact-balance']),
      c('Test zero Bet', 'debit 0 → status 200, not processed', ['zero-amount'], 'a refusal also passes'),
      c('Bet again with same transid', 'the same response, balance unchanged', ['idempotent-debit', 'idempotent-later-retry']),
      c(
        '2 players test',
        'one transaction id for two players → two transactions',
        ['same-tx-two-players'],
        'a refusal also passes',
      ),
      c('Concurrent test', '10 requests at once, final balance right', ['concurrent-debits']),
      c('Concurrent test with wins', 'duplicates with wins, concurrently', ['concurrent-credits', 'concurrent-duplicates']),
    ],
  },
  {
    dialect: 'redtiger',
    name: 'Red Tiger integration cases (names as mirrored; vendor origin unconfirmed)',
    source: `${VALKYRIE}: provider/redtiger/test/integration_test.go`,
    cases: [
      c('TEST_AUTH_WITH_VALID_TOKEN', '/auth succeeds', ['pact:authenticate']),
      c('MAKES_A_BET_REQUEST', 'stake → success', ['debit-applies']),
      c('MAKES_A_BET_REQUEST_WITH_EXISTING_TRANSACTION_ID', '200, balance unchanged', ['idempotent-debit']),
      c('MAKES_A_BET_WITH_AN_INVALID_USER_ID', '301', ['unknown-player']),
      c('MAKES_A_BET_REQUEST_WITH_AN_INVALID_CURRENCY', '305', ['wrong-currency']),
      c('MAKES_A_BET_REQUEST_WITH_A_NEGATIVE_STAKE', 'refused', ['negative-amount']),
      c('MAKES_A_BET_REQUEST_WITH_A_GREATER_STAKE_THAN_BALANCE', '304', ['insufficient-funds']),
      c('MAKES_A_BET_REQUEST_WITH_STAKE_0', 'success, balance unchanged', ['zero-amount'], 'a refusal also passes'),
      c('MAKES_AN_AWARD_REQUEST', 'payout paid', ['credit-applies']),
      c('MAKES_AN_AWARD_REQUEST_WITH_EXISTING_ID', 'payout paid once', ['idempotent-credit']),
      c('MAKES_AN_AWARD_REQUEST_WITH_INVALID_USER_ID', '301', ['unknown-player'], 'sent as a stake'),
      c('MAKES_AN_AWARD_REQUEST_WITH_A_NEGATIVE_PAYOUT', 'refused', ['negative-amount']),
      c('TEST_REFUND', 'stake restored', ['rollback-restores']),
      c('TEST_REFUND_INVALID_AMOUNT_IGNORED', "the stake's amount restored, not the stated one", ['rollback-amount-mismatch']),
      c('TRY_TO_REFUND_NON_EXISTING_TRANSACTION', '400 TransactionNotFound', ['rollback-unknown']),
      c('TRY_TO_REFUND_A_REFUNDED_TRANSACTION', 'success, nothing more', ['duplicate-rollback']),
      c('TEST_AUTH_WITH_INVALID_TOKEN', '/auth with a wrong token → error', []),
      c('MAKES_SEVERAL_BET_REQUESTS_WITH_SAME_ROUNDID', 'several stakes while the round is open', []),
      c('MAKES_A_BET_REQUEST_WITH_RECON_TOKEN', '301', []),
      c('MAKES_AN_AWARD_REQUEST_WITH_INVALID_TOKEN', '301', []),
      c('MAKES_AN_AWARD_REQUEST_WITH_RECON_TOKEN', 'accepted', []),
      c('MAKES_AN_AWARD_REQUEST_WITH_INVALID_CURRENCY', '305', []),
      c('TRY_TO_REFUND_WITH_AN_INVALID_TOKEN', '301', []),
      c('BUYIN_REQUEST, PROMO_REFUND, TEST_PROMO_SETTLE', 'promo calls', []),
    ],
  },
  {
    dialect: 'caleta',
    name: "Caleta's certification test list",
    source:
      'valkyrie-fnd/valkyrie @ 5f9633728f784f49b6c78ef8fe30e16a3f13da3e: provider/caleta/test/caleta_integration_test.go lines 62–74 ("C\'s manual tests are:")',
    cases: [
      c('Test Place Bet', 'bets in several currencies and games', ['debit-applies', 'wrong-currency']),
      c(
        'Test Receive Winnings',
        'wins from bonus, free spins, extra balls',
        ['credit-applies', 'free-spin'],
        'extra balls are not sent',
      ),
      c('Test Rollback', 'a failed bet rolled back (wins are never rolled back)', ['rollback-restores']),
      c('Test Retry', 'a failed win or rollback retried until it succeeds', ['idempotent-later-retry']),
      c('Test Bingos: Extra Balls', 'more bets inside one round; their rollbacks keep the round', []),
      c('Acceptance Tests on Client', 'exploratory play and calls "simulating bad-intended users"', []),
    ],
  },
];

/** The published suite of a dialect, when there is one. */
export function suiteOf(dialect: string): VendorSuite | undefined {
  return VENDOR_SUITES.find((s) => s.dialect === dialect);
}

/** The vendor's case ids a check or contract interaction (`pact:<id>`) tries on this dialect. */
export function vendorCasesOf(dialect: string, resultId: string): string[] {
  return (suiteOf(dialect)?.cases ?? []).filter((k) => k.checks.includes(resultId)).map((k) => k.id);
}

/** The dialect's published cases no check tries yet. */
export function uncoveredCases(dialect: string): string[] {
  return (suiteOf(dialect)?.cases ?? []).filter((k) => k.checks.length === 0).map((k) => k.id);
}
