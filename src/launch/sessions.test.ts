import { describe, expect, it } from 'vitest';
import { LaunchSessions } from './sessions.ts';

const input = {
  playerId: 'p1',
  gameId: 'g1',
  gameName: 'Game',
  provider: 'PGSOFT',
  currency: 'EUR',
  lang: 'en',
  platform: 1 as const,
  homeUrl: 'https://casino.example',
  balanceAtLaunchMinor: 100_000,
};

describe('LaunchSessions', () => {
  it('gives every session its own 128-bit id, across many refills of the id pool', () => {
    const sessions = new LaunchSessions();
    const ids = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const { id } = sessions.create(input, { expiresInSeconds: 60, maxSessions: 5_000 });
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(2_000);
    expect(sessions.size).toBe(2_000);
  });

  it('forgets the oldest session past maxSessions, and says expired, then unknown, as time passes', () => {
    let now = 1_000_000;
    const sessions = new LaunchSessions(() => now);
    const first = sessions.create(input, { expiresInSeconds: 60, maxSessions: 2 });
    const second = sessions.create(input, { expiresInSeconds: 60, maxSessions: 2 });
    sessions.create(input, { expiresInSeconds: 60, maxSessions: 2 });
    expect(sessions.lookup(first.id).status).toBe('unknown');
    expect(sessions.lookup(second.id).status).toBe('active');
    now += 60_000;
    expect(sessions.lookup(second.id).status).toBe('expired');
    now += 25 * 3_600_000;
    sessions.prune();
    expect(sessions.lookup(second.id).status).toBe('unknown');
  });
});
