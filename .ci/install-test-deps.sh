#!/usr/bin/env bash
# Installs the system tools the test suite uses, if they are missing:
#   docker-registry  a real CNCF distribution registry (binary /usr/bin/docker-registry) that the
#                    OCI source tests start on 127.0.0.1 (test/helpers/registry.ts);
#   htpasswd         (apache2-utils) writes the bcrypt password file for the registry's
#                    basic-auth instance;
#   pre-commit       runs the hooks of .pre-commit-hooks.yaml in a temporary Git repository
#                    (test/review/pre-commit.test.ts);
#   script           (bsdutils, part of every Debian base system) gives the CLI a pseudo-terminal
#                    for the progress-bar test;
#   age, age-keygen  (age) the real age binary that opens the data key of the sops strategy's
#                    output (test/secrets/secrets.test.ts);
#   zsh              runs the generated zsh completion script (capi-gitops completion zsh);
#   openssl          makes the self-signed certificate of the untrusted-certificate test
#                    (test/sources/http.test.ts);
#   lua5.1           runs the Argo CD health checks of the built-in argocd chart (Argo CD's
#                    gopher-lua is a Lua 5.1; test/emit/operator-provider-health.test.ts).
# A no-op when all are present; tests that need them skip with a reason when they are absent.
# Debian/Ubuntu only (apt-get). The packages' services are kept from starting while installing:
# the tests start their own registry on a free port.
set -euo pipefail

missing=()
command -v docker-registry >/dev/null 2>&1 || missing+=(docker-registry)
command -v htpasswd >/dev/null 2>&1 || missing+=(apache2-utils)
command -v script >/dev/null 2>&1 || missing+=(bsdutils)
command -v pre-commit >/dev/null 2>&1 || missing+=(pre-commit)
command -v age >/dev/null 2>&1 || missing+=(age)
command -v zsh >/dev/null 2>&1 || missing+=(zsh)
command -v lua5.1 >/dev/null 2>&1 || missing+=(lua5.1)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-deps: apt-get not found; install ${missing[*]} by hand (the OCI tests skip without them)" >&2
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "install-test-deps: not root and no sudo; cannot install ${missing[*]}" >&2
    exit 1
  fi
fi

# invoke-rc.d asks policy-rc.d whether to start a service; 101 means "no". Only add one when
# none exists, and remove only the one added here.
policy=/usr/sbin/policy-rc.d
added_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
  "${sudo[@]}" chmod 755 "$policy"
  added_policy=1
fi
cleanup() {
  if [ "$added_policy" -eq 1 ]; then "${sudo[@]}" rm -f "$policy"; fi
}
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-test-deps: installed ${missing[*]}"
