#!/usr/bin/env bash
# Runs every check CI runs: formatting, vet, templ freshness and all tests, the browser tests in
# e2e/ included. Installs what the tests need (Debian's chromium and postgresql; graphviz for benchmark
# comparisons) when it is missing. Run it from anywhere; it works from the repository root.
#
#   scripts/test.sh            everything, as CI does
#   scripts/test.sh ./e2e/     the same checks, but tests only the packages named
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*"; }
fail() { printf '\nFAIL: %s\n' "$*" >&2; exit 1; }

# apt_install PACKAGE...: installs Debian packages, with sudo only when not root.
apt_install() {
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || fail "installing $* needs root or sudo"
		sudo=(sudo)
	fi
	command -v apt-get >/dev/null || fail "$* missing and apt-get is not available: install them by hand"
	if [ -z "${apt_updated:-}" ]; then
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
		apt_updated=1
	fi
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

step "tools"
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v dot >/dev/null || missing+=(graphviz)
command -v tmux >/dev/null || missing+=(tmux)
command -v npm >/dev/null || missing+=(nodejs npm)
if [ "${#missing[@]}" -gt 0 ]; then
	echo "installing: ${missing[*]}"
	apt_install "${missing[@]}"
fi
command -v chromium >/dev/null || fail "chromium is still not on PATH after installing it"
echo "go:       $(go version)"
echo "chromium: $(chromium --version 2>/dev/null || echo '?')"

step "agent CLIs (npm, into a cache outside the repository)"
# The agents' real CLIs run against a scripted model server in internal/agents/agenttest.
scripts/agent-clis.sh
export PLANDASH_AGENT_TESTS=1

step "axe-core (npm, into a cache outside the repository)"
# The browser tests inject axe-core into every page and fail on contrast and naming violations
# (e2e/a11y_test.go finds it through PLANDASH_AXE). Pinned: a new axe release adds rules.
axe_version=4.14.1
axe_dir="${XDG_CACHE_HOME:-$HOME/.cache}/plandash/npm"
axe_js="$axe_dir/node_modules/axe-core/axe.min.js"
if ! grep -qs "\"version\": \"$axe_version\"" "$axe_dir/node_modules/axe-core/package.json"; then
	mkdir -p "$axe_dir"
	npm install --silent --no-audit --no-fund --prefix "$axe_dir" "axe-core@$axe_version" || fail "npm could not install axe-core@$axe_version"
fi
[ -f "$axe_js" ] || fail "axe-core is not at $axe_js after installing it"
export PLANDASH_AXE="$axe_js"
echo "axe-core: $axe_version"

step "gofmt"
gofiles=()
while IFS= read -r -d '' f; do
	if [ -f "$f" ]; then gofiles+=("$f"); fi
done < <(git ls-files -z --cached --others --exclude-standard -- '*.go')
unformatted=""
if [ "${#gofiles[@]}" -gt 0 ]; then
	unformatted="$(gofmt -l "${gofiles[@]}")"
fi
if [ -n "$unformatted" ]; then
	printf '%s\n' "$unformatted" >&2
	fail "these files need gofmt -w"
fi
echo "ok"

step "go vet"
go vet ./...
echo "ok"

step "templ generate is current"
# From the repository root, as ARCHITECTURE.md says: the generated code records its source paths
# relative to where the generator ran.
if ! out="$(go tool templ generate 2>&1)"; then
	printf '%s\n' "$out" >&2
	fail "go tool templ generate failed"
fi
if ! git diff --exit-code --stat -- '*_templ.go'; then
	fail "generated templ code is stale: run 'go tool templ generate' and commit the *_templ.go files"
fi
untracked="$(git ls-files --others --exclude-standard -- '*_templ.go')"
if [ -n "$untracked" ]; then
	printf '%s\n' "$untracked" >&2
	fail "generated templ files are not committed"
fi
echo "ok"

step "PostgreSQL test cluster"
# The PostgreSQL store's tests need a server: a throwaway cluster, stopped when this script
# exits, unless PLANDASH_TEST_PG already names one. In CI those tests fail without it.
if [ -z "${PLANDASH_TEST_PG:-}" ]; then
	# shellcheck source=scripts/pg-test.sh
	source scripts/pg-test.sh || fail "could not start the PostgreSQL test cluster (scripts/pg-test.sh)"
fi
echo "ok"

pkgs=("$@")
if [ "${#pkgs[@]}" -eq 0 ]; then pkgs=(./...); fi
step "go test -race ${pkgs[*]} (browser tests in e2e/ included)"
go test -race -count=1 -timeout 25m "${pkgs[@]}"

printf '\nall checks passed\n'
