# Tracelake as a container: docs/deploy.md says how to run it and what of this file is tested.
#
#   docker build -t tracelake .
#   docker run -d --name tracelake -p 4318:4318 -v tracelake-data:/var/lib/tracelake \
#              -e TRACELAKE_OPERATOR_TOKEN="$(openssl rand -hex 32)" --stop-timeout 90 tracelake

# Node 24 on Debian 13 (glibc 2.41): uWebSockets.js loads, so it is the front end. Any other Node
# image of 20 or later serves too, through node:http where uWS does not load (see docs/deploy.md).
ARG NODE_IMAGE=node:24-trixie-slim

# Build: every dependency, the TypeScript build (`npm run prepare`, as `npm install` runs it), then
# the dev dependencies pruned away.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# No install scripts: the production dependencies have none, and the dev dependencies' one (esbuild's
# postinstall; its binary comes in an optional package) is not needed to build. Drop the flag if a
# dependency gains one.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN npm run prepare \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && chmod 755 dist/src/cli.js

# Runtime: production dependencies, the compiled server and the data files it reads; no sources,
# no compiler. The code belongs to root and is read-only to the server's user.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    TRACELAKE_HOST=0.0.0.0 \
    TRACELAKE_PORT=4318 \
    TRACELAKE_GRPC_PORT=4317 \
    TRACELAKE_DATA_DIR=/var/lib/tracelake
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY data/plans.json data/pricing.json ./data/
RUN ln -s /app/dist/src/cli.js /usr/local/bin/tracelake \
 && mkdir -p /var/lib/tracelake \
 && chown 1000:1000 /var/lib/tracelake \
 && chmod 700 /var/lib/tracelake
# The image's `node` user, by number so that runAsNonRoot can check it.
USER 1000:1000
VOLUME ["/var/lib/tracelake"]
EXPOSE 4318 4317
# SIGTERM drains requests and checkpoints DuckDB: give it the shutdown timeout plus the flush
# grace (docker stop -t 90, stop_grace_period: 90s); the default 10 s may cut a checkpoint short.
STOPSIGNAL SIGTERM
# No curl in a slim image: node asks /health, on the port the server listens on.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.TRACELAKE_PORT || 4318) + '/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["tracelake", "serve"]
