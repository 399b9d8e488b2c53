/** Why a signature was refused. Each reason has its own code and its own sentence. */
export type SignatureFailure =
  | 'MISSING_HEADER'
  | 'MALFORMED_HEADER'
  | 'TIMESTAMP_TOO_OLD'
  | 'TIMESTAMP_TOO_NEW'
  | 'NO_MATCHING_SIGNATURE'
  | 'NO_SECRET';

/**
 * A refused signature. `message` is written for the integrator reading a log or a 401 body;
 * `signedString` (when known) is the exact string the signature should have been computed over.
 */
export class SignatureError extends Error {
  override readonly name = 'SignatureError';
  constructor(
    readonly reason: SignatureFailure,
    message: string,
    readonly signedString?: string,
  ) {
    super(message);
  }
}
