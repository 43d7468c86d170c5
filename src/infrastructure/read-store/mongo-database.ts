import { type Db, MongoClient, MongoNetworkError, MongoServerSelectionError } from 'mongodb';
import { StoreUnavailableError } from '../event-store/event-store.port.js';

const DEFAULT_DB = 'authserver';

/** The database a `MONGODB_URL` names in its path (`mongodb://host/name`), else `dbName`, else the default. */
export function mongoDatabase(client: MongoClient, url: string, dbName?: string): Db {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?#]*)/.exec(url);
  const fromUrl = match ? decodeURIComponent(match[1]) : '';
  return client.db(dbName ?? (fromUrl || DEFAULT_DB));
}

/**
 * An operation that found no server to answer it (none reachable, a connection lost) is a store
 * that cannot answer now, which the client may retry (503), not a failure of the server.
 */
export async function mongoAnswer<T>(what: string, op: Promise<T>): Promise<T> {
  try {
    return await op;
  } catch (error) {
    if (error instanceof MongoServerSelectionError || error instanceof MongoNetworkError) throw new StoreUnavailableError(`${what}: ${error.message}`);
    throw error;
  }
}
