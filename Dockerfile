# syntax=docker/dockerfile:1
#
# Event-sourced OAuth 2.1 / OpenID Connect server.
#
#   docker build -t authserver .
#   docker run -p 8080:8080 -v authserver-data:/data \
#     -e KEY_ENCRYPTION_KEY="$(openssl rand -base64 32)" authserver
#
# Without EVENTSTORE_URL / MONGODB_URL the server keeps its event log and read models in
# SQLite files under DATA_DIR (/data, a volume). docker-compose.yml runs it against
# EventStoreDB and MongoDB instead.
#
# The Node major version here must stay within package.json "engines" (checked by
# test/compose.spec.ts).

############################################################################### build
FROM node:24-bookworm-slim AS build

WORKDIR /app

# Dependencies first, so that this layer is reused while only the sources change.
# Install scripts are off for the whole tree: on this Node the server loads better-sqlite3 13
# (installed as better-sqlite3-napi), a Node-API addon whose prebuilt binaries come in its
# package, so nothing is compiled. (better-sqlite3 12, the driver for Node 20, stays unbuilt:
# Node 24.19 and later abort when its statements are garbage-collected.)
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund

COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY projections ./projections
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && node -e "import('./dist/src/infrastructure/sqlite/open-database.js').then((m) => { m.openDatabase(':memory:', false).close(); if (!m.SQLITE_DRIVER.includes('better-sqlite3-napi')) throw new Error(m.SQLITE_DRIVER); })"

############################################################################# runtime
FROM node:24-bookworm-slim AS runtime

# tini is PID 1: it forwards SIGTERM/SIGINT to node and reaps zombies.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    PORT=8080 \
    DATA_DIR=/data

WORKDIR /app

COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist

# The application files stay owned by root (read-only for the process); only the data
# directory belongs to the unprivileged `node` user (uid 1000) of the official image.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]

USER node
EXPOSE 8080

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/main.js"]
