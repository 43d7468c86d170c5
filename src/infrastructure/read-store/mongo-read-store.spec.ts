import { StoreUnavailableError } from '../event-store/event-store.port.js';
import { MongoReadStore } from './mongo-read-store.js';

describe('MongoReadStore without a server to answer', () => {
  it.each([
    ['get', (store: MongoReadStore) => store.get('tokens', 'x')],
    ['getMany', (store: MongoReadStore) => store.getMany('tokens', ['x', 'y'])],
    ['find', (store: MongoReadStore) => store.find('token_history', { tenantId: 'acme' }, { sortBy: '_position' })],
  ])('reports a %s as a store that cannot answer now (503 for the client), not as a failure', async (_name, read) => {
    // Port 1 on loopback: nothing listens there, so server selection fails, and fast.
    const store = new MongoReadStore('mongodb://127.0.0.1:1/authserver?serverSelectionTimeoutMS=100&connectTimeoutMS=100');
    try {
      await expect(read(store)).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await store.close();
    }
  });
});
