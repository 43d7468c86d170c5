import { Logger } from '@nestjs/common';
import { loadConfig } from './config.js';
import { startServer } from './server.js';

try {
  const config = loadConfig();
  await startServer(config);
  new Logger('Server').log(`listening on port ${config.port}; issuer of tenant T is ${config.publicUrl}/T`);
} catch (error) {
  console.error(`start-up failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
