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

# better-sqlite3 is a native addon: it uses a prebuilt binary when one matches this Node
# ABI and otherwise compiles with node-gyp, which needs Python, make and a C++ compiler.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Dependencies first, so that this layer is reused while only the sources change.
# Install scripts are off for the whole tree; the one native addon that needs its
# install step (better-sqlite3) is then built explicitly.
# npm_config_nodedir points node-gyp at the headers shipped in the image, so a source
# build needs no download.
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund \
 && npm_config_nodedir=/usr/local npm rebuild better-sqlite3 \
 && node -e "new (require('better-sqlite3'))(':memory:').close()"

COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY projections ./projections
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

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
