/**
 * Pact's libraries report anonymous usage unless PACT_DO_NOT_TRACK is set; aggmock is an offline
 * tool, so it is set before any Pact module loads. Import this first, for its side effect.
 */
process.env.PACT_DO_NOT_TRACK = 'true';
