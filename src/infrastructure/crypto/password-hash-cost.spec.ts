import { DUMMY_PASSWORD_HASH, hashPassword, usePasswordHashTestCost, verifyPassword } from './hashing.js';

/** The cost parameter N of a `scrypt$N$r$p$salt$hash` text. */
const costOf = (hash: string) => Number(hash.split('$')[1]);

// One file of its own: the switch holds for the rest of the process's module instance.
describe('usePasswordHashTestCost', () => {
  it('leaves the production cost in place until a test asks, and only a Jest worker may ask', async () => {
    expect(costOf(await hashPassword('p'))).toBe(1 << 15);
    expect(costOf(await DUMMY_PASSWORD_HASH)).toBe(1 << 15);
    const worker = process.env.JEST_WORKER_ID;
    delete process.env.JEST_WORKER_ID;
    try {
      expect(() => usePasswordHashTestCost()).toThrow('usePasswordHashTestCost is for the test suite only');
    } finally {
      process.env.JEST_WORKER_ID = worker;
    }
    expect(costOf(await hashPassword('p'))).toBe(1 << 15);
  });

  it('then makes cheap hashes and a cheap dummy, while a hash made at full cost still verifies', async () => {
    const full = await hashPassword('correct horse battery staple');
    usePasswordHashTestCost();
    const cheap = await hashPassword('correct horse battery staple');
    expect(costOf(cheap)).toBe(1 << 10);
    expect(costOf(await DUMMY_PASSWORD_HASH)).toBe(1 << 10);
    expect(await verifyPassword('correct horse battery staple', cheap)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', cheap)).toBe(false);
    expect(await verifyPassword('correct horse battery staple', full)).toBe(true);
  });
});
