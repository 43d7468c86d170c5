#!/usr/bin/env bash
# The project's test command (`npm test`): type-check, build (the durability test runs the
# built server), then every jest suite: unit, contract, OpenAPI lint and end-to-end.
set -euo pipefail
cd "$(dirname "$0")/.."

# The browser suite drives Debian's Chromium; install it when it is missing (root, or sudo).
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then
  as_root=""; [ "$(id -u)" = 0 ] || as_root="sudo -n"
  { $as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends chromium; } >/dev/null 2>&1 \
    || echo "scripts/test.sh: could not install chromium; the browser suite will be skipped" >&2
fi

# Two independent tsc runs (the whole project with the test types, and the build of src): each
# uses one core, so they run side by side; either failing fails the script.
npm run --silent typecheck & typecheck=$!
build_status=0
npm run --silent build || build_status=$?
wait "$typecheck"
[ "$build_status" = 0 ] || exit "$build_status"
status=0
node --experimental-vm-modules --no-warnings node_modules/jest/bin/jest.js --ci --json --outputFile=.jest-results.json "$@" || status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(".jest-results.json", "utf8"));
  console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
' || true
exit $status
