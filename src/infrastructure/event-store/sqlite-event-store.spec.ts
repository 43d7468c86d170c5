import { StoreOutcomeUnknownError, StoreUnavailableError } from './event-store.port.js';
import { writerError } from './sqlite-event-store.js';

describe('the embedded store: what a failed append tells its caller', () => {
  const failed = (code: string) => writerError({ kind: 'failed', message: 'disk I/O error', code });

  it('that the outcome is unknown when the commit failed after the transaction was written (the sync, the WAL index after it)', () => {
    for (const code of ['SQLITE_IOERR_FSYNC', 'SQLITE_IOERR_SHMSIZE', 'SQLITE_IOERR_SHMMAP']) expect(failed(code)).toBeInstanceOf(StoreOutcomeUnknownError);
  });

  it('to try later when the write was refused, and nothing was recorded (a full disk, a failed write)', () => {
    for (const code of ['SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR', 'SQLITE_READONLY', 'SQLITE_BUSY']) {
      const error = failed(code);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).not.toBeInstanceOf(StoreOutcomeUnknownError);
    }
  });

  it('nothing of the kind for a store that is broken (a corrupt file)', () => {
    const error = failed('SQLITE_CORRUPT');
    expect(error).not.toBeInstanceOf(StoreUnavailableError);
    expect(error).not.toBeInstanceOf(StoreOutcomeUnknownError);
  });
});
