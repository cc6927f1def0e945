# syntax=docker/dockerfile:1
#
# One image for every corral process: `docker run corral <subcommand> [flags]` runs
# `node dist/cli.js <subcommand>` (apiserver, controllers, nodeagent, pki, start, migrate), as
# docker-compose.yml does. Node is PID 1 and receives the runtime's SIGTERM itself: no shell and no
# npm in between (npm does not forward signals), so every process drains and exits 0 as the README's
# "Shutdown and rolling restarts" describes.
#
# No HEALTHCHECK: the processes answer on different ports and schemes (the API server's /readyz on
# 6443, the controller manager's /healthz on 10257, the node agent's plain-HTTP /healthz on
# 127.0.0.1:10248) and the pki job exits, so no one check is right for every container; each compose
# service declares its own.

ARG NODE_VERSION=24

# Build: all dependencies, then the TypeScript compiled to dist/.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: the package's own `prepare` script runs `npm run build`, and the sources are not
# copied yet (copying the lock file alone first keeps this layer cached across source changes).
# Nothing the compiler needs has an install script that matters.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# Production dependencies only.
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts is required, not an optimisation: npm runs the root package's `prepare` (the
# TypeScript build) even with --omit=dev, and the compiler is a dev dependency. No dependency needs
# its install script either: lmdb's `install` (node-gyp-build-optional-packages) only checks for a
# prebuilt binary and compiles one when there is none, and the prebuilt binary arrives as the
# optional dependency @lmdb/lmdb-linux-x64 (-arm64, -arm), which lmdb loads at run time; msgpackr's
# optional native extension is likewise a prebuilt package, and msgpackr works without it.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# Runtime: node, production node_modules and dist/ alone.
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production
# npm, npx, corepack and yarn are not used at run time: removed, the image is smaller and their
# dependencies leave its vulnerability surface. /cluster (the shared cluster volume) and
# /var/lib/kubelet (a node agent's own volume) are made here, owned by the unprivileged user, because
# a named volume first mounted on a directory of the image takes that directory's owner and mode.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
  && mkdir -p /cluster /var/lib/kubelet \
  && chown node:node /cluster /var/lib/kubelet
WORKDIR /app
# package.json says "type": "module": dist/ is ES modules.
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# The official image's unprivileged user (uid 1000, gid 1000); docker-compose.yml runs Prometheus
# with the same ids so that it can read the client key the pki job writes (mode 0600).
USER node
STOPSIGNAL SIGTERM
# API server, controller manager, node agent.
EXPOSE 6443 10257 10250
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["--help"]
