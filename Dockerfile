# The auto-fix image: the GitHub App (`server`) and its job workers (`worker`), with Node 24, git,
# bubblewrap, python3 and the tree-sitter grammars (WASM, in the npm packages). Runs as uid 10001.
# Build: sudo scripts/build-image.sh (no image registry needed), or docker build -t auto-fix .   Run: see compose.yaml and docs/deploying.md, which also lists the
# container options bubblewrap needs (without them the entry point says so and exits 78).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: nothing is built natively. `npm ci` refuses a lock file without the optional
# platform packages some registries lack; `npm install` from the same lock file skips them.
# Behind a TLS-inspecting proxy, pass the machine's CA bundle as the build secret host_ca
# (scripts/build-image.sh does); it is read for this step only and stays out of the image.
RUN --mount=type=secret,id=host_ca,target=/run/secrets/host_ca \
    export NODE_EXTRA_CA_CERTS=/run/secrets/host_ca; [ -s /run/secrets/host_ca ] || unset NODE_EXTRA_CA_CERTS; \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 || npm install --omit=dev --ignore-scripts --no-audit --no-fund --no-save

FROM ${NODE_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      bubblewrap git python3 ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --uid 10001 --user-group --create-home --home-dir /home/autofix --shell /usr/sbin/nologin autofix \
 && mkdir -p /data /cache \
 && chown autofix:autofix /data /cache
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json app.yml ./
COPY bin ./bin
COPY prompts ./prompts
COPY src ./src
COPY docker/entrypoint.sh ./docker/entrypoint.sh
RUN ln -s /app/bin/auto-fix.js /usr/local/bin/auto-fix
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    LOG_FORMAT=json \
    AUTO_FIX_DATA_DIR=/data/jobs \
    AUTO_FIX_WORK_DIR=/data/work \
    AUTO_FIX_CACHE_DIR=/cache/index \
    AUTO_FIX_SANDBOX=bwrap
# bubblewrap runs unprivileged in a user namespace: no root, no setuid bit needed.
USER autofix
VOLUME ["/data", "/cache"]
EXPOSE 3000 9464
HEALTHCHECK --interval=30s --timeout=6s --start-period=30s --retries=3 CMD ["/app/docker/entrypoint.sh", "health"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "/app/docker/entrypoint.sh"]
CMD ["server"]
