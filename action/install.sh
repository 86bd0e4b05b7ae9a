#!/usr/bin/env bash
# Puts capi-gitops on the job's PATH for the action's later steps: from npm with the `version`
# input, otherwise the action's own checkout as its single-file bundle, dist/capi-gitops.mjs.
# A checkout without one (a Git ref: dist/ is not committed) builds it with esbuild
# (`npm run build:fast`, no type check), not with tsc.
# Environment: ACTION_PATH, CAPI_GITOPS_VERSION, RUNNER_TEMP, GITHUB_PATH.
set -euo pipefail

if [ -n "${CAPI_GITOPS_VERSION:-}" ]; then
  npm install --global --no-fund --no-audit "capi-gitops@$CAPI_GITOPS_VERSION"
  exit 0
fi

bundle="$ACTION_PATH/dist/capi-gitops.mjs"
if [ ! -f "$bundle" ]; then
  npm ci --prefix "$ACTION_PATH" --no-fund --no-audit
  npm run build:fast --prefix "$ACTION_PATH"
fi
if [ ! -f "$bundle" ]; then
  echo "::error title=capi-gitops action::the build did not write $bundle" >&2
  exit 1
fi
bin="$RUNNER_TEMP/capi-gitops-bin"
mkdir -p "$bin"
printf '#!/usr/bin/env bash\nexec node %q "$@"\n' "$bundle" > "$bin/capi-gitops"
chmod +x "$bin/capi-gitops"
echo "$bin" >> "$GITHUB_PATH"
