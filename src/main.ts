import { Logger } from '@nestjs/common';
import { loadConfig } from './config.js';
import { startServer } from './server.js';

try {
  const config = loadConfig();
  await startServer(config);
  new Logger('Server').log(`listening on port ${config.port}; issuer of tenant T is ${config.publicUrl}/T`);
} catch (error) {
  const message = `start-up failed: ${error instanceof Error ? error.message : String(error)}`;
  // The one line that says why the server did not start, in the format the log collector reads.
  console.error(process.env.LOG_FORMAT === 'json' ? JSON.stringify({ level: 'fatal', pid: process.pid, timestamp: Date.now(), message, context: 'Server' }) : message);
  process.exit(1);
}
