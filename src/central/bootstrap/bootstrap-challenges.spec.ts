import type { CommandBus } from '@nestjs/cqrs';
import type { ChallengesView } from '../../../projections/challenges.projection.js';
import type { ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { SaveChallenges } from '../challenges/challenges-commands.js';
import { applyChallenges } from './bootstrap-challenges.js';

const by = { tenantId: 'acme', actor: 'system:bootstrap' };
const definition = { factors: { totp: 'required' as const }, clients: { kiosk: { totp: 'off' as const } } };

function world(stored: Partial<ChallengesView> | null) {
  const executed: unknown[] = [];
  const commands = { execute: async (c: unknown) => void executed.push(c) } as unknown as CommandBus;
  const reads = { get: async () => stored } as unknown as ReadStore;
  return { executed, commands, reads };
}

describe('bootstrap challenges', () => {
  it('sets them through the admin API\'s command when the tenant has none', async () => {
    const w = world(null);
    expect(await applyChallenges(w.commands, w.reads, by, definition)).toEqual({ created: true });
    expect(w.executed).toEqual([new SaveChallenges(by, definition)]);
  });

  it('leaves existing ones as they are, naming what the file asks otherwise', async () => {
    const same = world({ tenantId: 'acme', ...definition });
    expect(await applyChallenges(same.commands, same.reads, by, definition)).toEqual({ created: false, unapplied: [] });
    const changed = world({ tenantId: 'acme', factors: { totp: 'optional' }, clients: { kiosk: { totp: 'off' } } });
    expect(await applyChallenges(changed.commands, changed.reads, by, definition)).toEqual({ created: false, unapplied: ['factors'] });
    expect([...same.executed, ...changed.executed]).toEqual([]);
  });
});
