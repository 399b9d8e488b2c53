#!/usr/bin/env bash
# Calls aggmock with an HMAC-signed request (scheme "timestamped"), using only curl and openssl.
# The signed string is "<unix seconds>.<METHOD>.<path?query>.<raw body>".
set -euo pipefail
BASE="${AGGMOCK_URL:-http://127.0.0.1:4000}"
SECRET="${AGGMOCK_SECRET:-aggmock-dev-secret}"

sign() { # sign METHOD PATH_QUERY BODY → prints the X-Signature header value
  local t sig
  t=$(date +%s)
  sig=$(printf '%s' "$t.$1.$2.$3" | openssl dgst -sha256 -hmac "$SECRET" -hex | sed 's/^.* //')
  printf 't=%s,v1=%s' "$t" "$sig"
}

# 1. A signed GET: the query string is part of what is signed, exactly as sent.
PQ='/casino/getallgamesandprovider?provider=PRAGMATIC+PLAY'
GAMES=$(curl -sS --fail-with-body -H "X-Signature: $(sign GET "$PQ" '')" "$BASE$PQ") || { echo "$GAMES" >&2; exit 1; }
GAME_ID=$(printf '%s' "$GAMES" | sed -E 's/.*"games":\[\{"id":"([0-9a-f]{32})".*/\1/')

# 2. A signed POST: sign the body bytes you send, byte for byte.
BODY="{\"username\":\"p1\",\"gameId\":\"$GAME_ID\",\"money\":1000,\"platform\":1,\"home_url\":\"https://example.com\",\"currency\":\"EUR\",\"lang\":\"en\"}"
curl -sS --fail-with-body -X POST "$BASE/getgameurl" \
  -H 'Content-Type: application/json' \
  -H "X-Signature: $(sign POST /getgameurl "$BODY")" \
  --data-raw "$BODY"
echo
