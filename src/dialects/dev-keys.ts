import type { Dialect } from './schema.ts';
import { sessionTokenFor } from './tokens.ts';

/**
 * Development key pairs for the dialects that sign with a private key (Hub88 and Caleta: RSA;
 * St8: ECDSA P-256), like aggmock-dev-secret for the HMAC schemes: published here on purpose, so a
 * wallet under test can verify aggmock's requests out of the box. Never use them beyond a test
 * bench; pass your own with --credential privateKey=<PEM or file>.
 */
export const DEV_RSA_PRIVATE_KEY =
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCxCkl19mv/c369\npnowgrxV1qUhukIG1hmcQb+57NrbDYAWkiZDIFL9ruICGRQ+NoFlmhZqVsKbKkdj\nAoKFIM3j0cL7uscigCcwDPhPNSpI/Ni7F1UChZW/Pi8OPZs5Eh/NIf1P9Lv4vd/z\nTxO6HjdJcgAotvu3D3lT5zyJ5xtMtE6e/Gxui1xxWkZ6oJHsipanLG0G4bedIove\ndHGGgpJNVCTM2lttsNygN0nu+IEDUJqrnyU3BtihQ0kaA3PEEG5zxcq7Oq7v3CNm\n2DQqOiYJaXWaM3iQ8sQZUM9v84F9P23iwNvpwvcB4Zy/TXJ17rAJTdmMvKTt/Iox\nnskGFPrnAgMBAAECggEAEN9wHOP9av0w6RZCsvjixjOMzWgY/tnM2w2RHkEqopHo\n0T3gk6ky/6Z5N8X4He3H600CMeRO68bdwtvsYI+9z6agNKmabPlVwsiZqcLhYs9m\nQH56xaDBotZkWbEZaBkIGt7Qa5xhhdVi0KeKs8RJdKB+z2KRHuNEpvB03pe+DFNC\nMifNZDl/iphKbiE/K6FmsLeT/0wcPDDnfmOpCTDovm39d+C3BFbX0nV60sv3VI+X\nUB3lykGCRXymAjmIjZpGekjv608ad7zU0fV2u+/mUzG2TPYatnEewQp7l/ArRk3y\nE822ulQli5AIRXPUZGpv1j+iHYbwmBjtMS8a0+53QQKBgQDlPDNf8zMxoyCwj/MZ\nfM9soSU+XCqT6wGHNpqfHleqh5LXWBseEAO4SbszJJBeKR6sMwU+1JF10GUIa+l0\nOXjHwNKOGz03tGh0Y7cgH4zZ+m2XPQhXR5yiTVVhPA8+sOCUK68JfpX8M5wpKU3a\nuORoZC2PAUsAcS2huSJFDURH0QKBgQDFtfzKvSG/QP5HCr35wMdIbjQ85OlTZDVc\nOzCngBsWXCT8OgwX3H5UPQUYLD/h6JWdfokZcnjOpp1Z5E3a2mZM6o0sOGq+g4jP\nRuinH/a70vp+6565fKh3H6AWT5uqZGEhSZAeprvc5dCQygv6GGfM0nqHKCHL36/J\npPw6ZnD9NwKBgQDMkZWzWcBk2pPQnRWvuB8PbRtkdDGXAVDCzqrbtuM7DnOvczP3\n9wiqzDmf4VBohz+VIo7azC3nOor/IfYbPzKW6G++W3adIIVa4KXKp/01hXOJVPD9\nmq2gdWztMgDUzFoOQJGa4nmMsK36WZ7dwsQqmMPDa7737Qhw21tGzhkSEQKBgDas\nU8KQuKNVyrtEijJlj/ZEm2d3edpYrLTbnWHEeDkftA6X0r5KeBi9YwpDOkszcSRD\nWJBT6npi8sJn8uuhV4bPmchvtX0HjK6dEjsdCLL57dFpQNRUV5XRhgiFbSuaZI26\n9QK04uB8IMfZR6SaWSH31nBHtcjWC5t8Z0+TAo3TAoGAEzvWqR0p7CNpPu8B2p4r\nHf+HDTsgu9d1aKUDSnjYd7HeuguVJfS+GbIikgyFhU9sG6I6F4wixwevS+pUjv1/\nG8HOLaxrYk/P/YrICmXumey6an5coreWlQnpubDqFbrBQRQdzuEzDEnrSt/6Ork3\nWcIam3JSn1PffCIiJq8fnfM=\n-----END PRIVATE KEY-----\n';
export const DEV_RSA_PUBLIC_KEY =
  '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAsQpJdfZr/3N+vaZ6MIK8\nVdalIbpCBtYZnEG/ueza2w2AFpImQyBS/a7iAhkUPjaBZZoWalbCmypHYwKChSDN\n49HC+7rHIoAnMAz4TzUqSPzYuxdVAoWVvz4vDj2bORIfzSH9T/S7+L3f808Tuh43\nSXIAKLb7tw95U+c8iecbTLROnvxsbotccVpGeqCR7IqWpyxtBuG3nSKL3nRxhoKS\nTVQkzNpbbbDcoDdJ7viBA1Caq58lNwbYoUNJGgNzxBBuc8XKuzqu79wjZtg0Kjom\nCWl1mjN4kPLEGVDPb/OBfT9t4sDb6cL3AeGcv01yde6wCU3ZjLyk7fyKMZ7JBhT6\n5wIDAQAB\n-----END PUBLIC KEY-----\n';
export const DEV_EC_PRIVATE_KEY =
  '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgP2Uvs5DAsrKAs8Hz\n701YlpkePtXjaA+uOTkHyjNp9JehRANCAASkCS10JXOsAgwMPcPdlLdJM4HO7Atd\nwi4g70Xp/rxHyZZ7ZFTDCAVeH6WqT25JjqjWBoE3uVEGsB4375NHLTCT\n-----END PRIVATE KEY-----\n';
export const DEV_EC_PUBLIC_KEY =
  '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEpAktdCVzrAIMDD3D3ZS3STOBzuwL\nXcIuIO9F6f68R8mWe2RUwwgFXh+lqk9uSY6o1gaBN7lRBrAeN++TRy0wkw==\n-----END PUBLIC KEY-----\n';

/**
 * The session token every configured player holds in development (`aggmock wallet` and the demo's
 * wallet issue it), like aggmock-dev-secret: a dialect that carries tokens is played with it when
 * neither a launch nor `callbacks.sessionTokens` gave the player one. Given the dialect, in the
 * length its wallets accept ({@link sessionTokenFor}).
 */
export function devSessionToken(playerId: string, dialect?: Pick<Dialect, 'session'>): string {
  return sessionTokenFor(dialect, `aggmock-session-${playerId}`);
}
