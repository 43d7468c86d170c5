#!/usr/bin/env bash
# The project's test command (`npm test`): type-check, build (the durability test runs the
# built server), then every jest suite: unit, contract, OpenAPI lint and end-to-end.
set -euo pipefail
cd "$(dirname "$0")/.."

npm run --silent typecheck
npm run --silent build
status=0
node --experimental-vm-modules --no-warnings node_modules/jest/bin/jest.js --ci --json --outputFile=.jest-results.json "$@" || status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(".jest-results.json", "utf8"));
  console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
' || true
exit $status
