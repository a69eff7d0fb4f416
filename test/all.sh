#!/usr/bin/env bash
# The whole test run, from a fresh clone on a Debian or Ubuntu machine (as root, or with sudo): the system packages the
# suites need, Node.js 24 when the machine's is older, the dependencies, then lint, type check and every test.
# Elsewhere it names what is missing and stops. docs/DEVELOPING.md says what each package is for.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }

# Each suite's program, and the Debian package that brings it.
declare -A PACKAGE_OF=(
  [mariadbd]=mariadb-server      # the MySQL suites start throw-away servers (docs/API.md §9)
  [openssl]=openssl              # the database TLS test makes its certificates
  [chromium]=chromium            # the Swagger UI test drives Debian's Chromium
  [redis-server]=redis-server    # the shared rate-limit tests
  [haproxy]=haproxy              # the rolling-restart and behind-a-proxy tests
  [promtool]=prometheus          # the metrics and alert-rule tests (no server is started by installing it)
  [prometheus]=prometheus
  [podman]=podman                # the container test builds the Dockerfile
  [runc]=runc
  [mmdebstrap]=mmdebstrap        # a Node base image where no registry can be reached
  [kubectl]=kubernetes-client    # the manifest test renders deploy/kubernetes
  [taskset]=util-linux           # the sale bench pins servers to cores
  [soffice]=libreoffice-calc-nogui  # the spreadsheet-export test opens exports as a spreadsheet program does
)

missing=()
for program in "${!PACKAGE_OF[@]}"; do
  have "$program" || missing+=("${PACKAGE_OF[$program]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t packages < <(printf '%s\n' "${missing[@]}" | sort -u)
  if ! have apt-get; then
    echo "Missing, and no apt-get to install them with: ${packages[*]}" >&2
    exit 1
  fi
  echo "Installing ${packages[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${packages[@]}"
fi

# Node.js 24 LTS is the floor (package.json engines). An older machine gets it from the npm registry, which publishes
# Node itself; everything below, npm included, then runs on it.
NODE_MAJOR_FLOOR=24
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt "$NODE_MAJOR_FLOOR" ]; then
  if ! have npm; then
    echo "Node.js $NODE_MAJOR_FLOOR or npm is needed: install Node.js $NODE_MAJOR_FLOOR (or apt-get install npm)" >&2
    exit 1
  fi
  node_dir="${ORDERS_NODE_DIR:-$HOME/.cache/orders-service/node$NODE_MAJOR_FLOOR}"
  if ! [ -x "$node_dir/node_modules/node/bin/node" ]; then
    echo "Installing Node.js $NODE_MAJOR_FLOOR from the npm registry into $node_dir"
    npm install --prefix "$node_dir" --no-save --no-audit --no-fund "node@$NODE_MAJOR_FLOOR"
  fi
  export PATH="$node_dir/node_modules/node/bin:$PATH"
fi
echo "Node.js $(node --version), npm $(npm --version)"

npm ci --no-audit --no-fund
npm run lint
npm run typecheck
npm test
