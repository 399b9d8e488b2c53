/**
 * Size limits on every field a request can carry, the same on every route (documented in
 * docs/security.md, "Bounded input"). Excess is a 400 naming the field, never stored.
 */

/** Player, transaction, round, game and group ids; type names. */
export const MAX_ID_LENGTH = 128;
/** home_url, callback_url and any other URL. */
export const MAX_URL_LENGTH = 2048;
/** Player lists (scenario runs). */
export const MAX_LIST_LENGTH = 1000;
/** How deeply a JSON body may nest; deeper is a 400 before any schema walks it. */
export const MAX_JSON_DEPTH = 32;
