import { ConsoleLogger, Logger } from '@nestjs/common';
import { loadConfig } from './config.js';
import { startServer } from './server.js';

try {
  const config = loadConfig();
  await startServer(config);
  new Logger('Server').log(`listening on port ${config.port}${config.role === 'all' ? '' : ` as ${config.role}`}; issuer of tenant T is ${config.publicUrl}/T`);
} catch (error) {
  const message = `start-up failed: ${error instanceof Error ? error.message : String(error)}`;
  // The one line that says why the server did not start, in the format the log collector reads.
  if (process.env.LOG_FORMAT === 'json') new ConsoleLogger({ json: true }).fatal(message, 'Server');
  else console.error(message);
  process.exit(1);
}
