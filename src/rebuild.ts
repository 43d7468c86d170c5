import { allProjections } from '../projections/index.js';
import { loadConfig } from './config.js';
import { createEventStore, createReadStore } from './infrastructure/nest/infrastructure.module.js';
import { ProjectionRunner } from './infrastructure/read-store/projection-runner.js';

/**
 * `npm run projections:rebuild [view ...]`: empties the named views (all by default) and folds
 * the whole event log into them again. Run it with the server stopped.
 */
const views = process.argv.slice(2);
const unknown = views.filter((v) => !allProjections.some((p) => p.view === v));
if (unknown.length) {
  console.error(`unknown view(s): ${unknown.join(', ')}; known: ${allProjections.map((p) => p.view).join(', ')}`);
  process.exit(2);
}
const config = loadConfig();
// The embedded store refuses a second process while the server runs (see lockStoreFile).
const events = await createEventStore(config).catch((e: unknown) => {
  console.error(`rebuild not started: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
const reads = await createReadStore(config);
const started = Date.now();
const count = await new ProjectionRunner(events, reads, allProjections).rebuild(views.length ? views : undefined);
const seconds = (Date.now() - started) / 1000;
console.log(`rebuilt ${views.length ? views.join(', ') : 'all views'} from ${count} events in ${seconds.toFixed(2)} s (${Math.round(count / Math.max(seconds, 0.001))} events/s)`);
await events.close();
await reads.close();
