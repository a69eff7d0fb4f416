# The production image of the orders service: `docker build .` or `podman build .` from a clone.
# Run:      docker run -p 3000:3000 --read-only --env-file service.env IMAGE
# Migrate:  docker run --rm --read-only --env-file service.env IMAGE node dist/cli/migrate.js
#           (the primary's migrations, then each replica of DB_REPLICAS gets its listing indexes: docs/API.md §14)
# The docs/DEPLOYING.md ("Containers and Kubernetes") has the variables, the probes and the manifests in deploy/kubernetes/.

ARG NODE_IMAGE=node:24-bookworm-slim

# Production dependencies only. Optional peers (TypeScript for Swagger's plugin, ts-node for TypeORM's CLI on
# sources) are build tooling and stay out; so do type declarations, source maps and readmes, which Node never
# loads: a third of node_modules.
FROM ${NODE_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund \
    && find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.md' \) -delete \
    && npm cache clean --force

# The build: every dependency, the compiler, and `nest build` (which applies the Swagger plugin to the DTOs).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE}
LABEL org.opencontainers.image.title="orders-service" \
      org.opencontainers.image.description="Order listing service of the concert ticketing platform" \
      org.opencontainers.image.source="https://git.tickets.example/platform/orders-service" \
      org.opencontainers.image.version="3.0.0" \
      org.opencontainers.image.licenses="UNLICENSED"
ENV NODE_ENV=production
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The service reads its version from here; npm's scripts (`npm run migration:run:dist`) too.
COPY package.json ./
# The official image's unprivileged user; nothing in /app is writable by it, and nothing needs to be: the root
# filesystem may be read-only. Logs go to stdout.
USER node
EXPOSE 3000 9464
# Node is PID 1 and handles SIGTERM itself (docs/API.md §10: readiness 503, drain, exit 0). No heap flag: the heap
# follows the container's memory limit, or NODE_OPTIONS. Without Maglev, bursts grew generated code by ~50 MB less,
# at no measured CPU cost (docs/benchmark-log.md, "Memory under bursts: Maglev"); NODE_OPTIONS cannot carry it.
STOPSIGNAL SIGTERM
CMD ["node", "--no-maglev", "dist/main.js"]
