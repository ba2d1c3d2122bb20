# Storefront on Bun, for production: NODE_ENV=production, so it needs a PostgreSQL database, an
# AUTH_SECRET of at least 32 characters and a Stripe key (the built-in fake processor accepts test
# cards, so production refuses to start without Stripe), and it never seeds the demo catalog:
#   docker build -t storefront .
#   docker run -p 3000:3000 -e DATABASE_URL=postgres://user:pass@host:5432/db \
#     -e AUTH_SECRET="$(openssl rand -base64 48)" -e STRIPE_SECRET_KEY=sk_test_… storefront
# It migrates the database at start (MIGRATE_ON_START=false to leave that to `db:migrate`).
# To try the shop without any of that, run `npm ci && npm start` instead (README).
FROM node:20-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; the runtime image brings its own Bun.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM oven/bun:1.4-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 DATA_DIR=/app/data
# JavaScriptCore sizes its heap from the machine's RAM; told 512 MB it collects sooner and the server
# stays near 130 MB under load instead of ~155 MB, at the same throughput (bench/README.md, checkout).
ENV BUN_JSC_forceRAMSize=536870912
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
# The storefront and the back office, built by Bun's bundler when the shop starts (node_modules is
# not writable here, so the build is not kept between starts: it takes well under a second).
COPY web ./web
RUN mkdir -p /app/data && chown bun:bun /app/data && chmod 700 /app/data
USER bun
EXPOSE 3000
# The image has no curl: Bun asks. Readiness: a database round trip and the schema current (200), or
# 503 when the database is down or behind this code's migrations (docs/operations.md, health checks).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["bun", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health/ready').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["bun", "src/main.ts"]
