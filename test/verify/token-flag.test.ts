import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerVerifyCommand } from '../../src/cli/commands/verify.ts';

/** `verify --token p1=` is refused as the player flags refuse it (one parser, `collectToken`): an empty token is no token. */
describe('verify --token', () => {
  function parse(args: string[]): string {
    const program = new Command('aggmock').exitOverride();
    let err = '';
    program.configureOutput({ writeErr: (s) => (err += s), writeOut: () => {} });
    const verify = registerVerifyCommand(program);
    verify.exitOverride();
    // Parse only: the action never runs when an option is refused.
    verify.action(() => {});
    try {
      program.parse(['verify', 'http://127.0.0.1:1/w', ...args], { from: 'user' });
    } catch (error) {
      if (!(error instanceof CommanderError)) throw error;
    }
    return err;
  }

  it('refuses an empty token, naming what it expected', () => {
    expect(parse(['--token', 'p1='])).toContain('expected player=token such as p1=tok-123, got "p1="');
    expect(parse(['--token', '=abc'])).toContain('expected player=token');
  });

  it('takes player=token, a token with = in it too', () => {
    expect(parse(['--token', 'p1=abc', '--token', 'p2=a=b'])).toBe('');
  });
});
