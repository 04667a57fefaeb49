#!/usr/bin/env bash
# Runs every check CI runs: formatting, vet, staticcheck, templ freshness and all tests, the
# browser tests in e2e/ included. Installs what the tests need when it is missing. Run it from
# anywhere; it works from the repository root.
#
#   scripts/test.sh            everything, as CI does
#   scripts/test.sh ./e2e/     the same checks, but tests only the packages named
#
# Supported systems: Debian 12+ (and derivatives whose `chromium` package is a real browser),
# as root or with sudo; Ubuntu when a real Chromium or Chrome is installed (Ubuntu's own
# `chromium`/`chromium-browser` packages only install a snap, which does not run in containers
# or CI: the script stops with instructions instead). Anywhere else, install Go 1.26, Chromium
# or Chrome, tmux, Node.js and npm yourself; the script then only runs the checks. The VS Code
# extension's test installs Node 24 and code-server from npm (scripts/vscode.sh setup).
#
# Environment:
#   PLANDASH_CHROME     the browser for e2e/ (a path, or a name on PATH); else the usual names
#   PLANDASH_ARTIFACTS  keep the browser tests' screenshots here (else they live in temp dirs)
#   PLANDASH_TEST_TIMEOUT  go test -timeout (default 25m)
#
# BenchmarkDot (web/templates/dagview) compares with Graphviz when `dot` is installed; nothing
# here installs it: `apt-get install graphviz` if you want that comparison.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*"; }
fail() { printf '\nFAIL: %s\n' "$*" >&2; exit 1; }

os_id=""
if [ -r /etc/os-release ]; then
	os_id="$(. /etc/os-release && echo "${ID:-}")"
fi

sudo_cmd=()
need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || fail "installing $* needs root or sudo"
		sudo_cmd=(sudo)
	fi
}

# wait_dpkg_lock waits (up to 10 minutes) while another apt or dpkg holds its locks, as
# unattended-upgrades does on a fresh machine; apt-get would otherwise fail at once.
wait_dpkg_lock() {
	command -v fuser >/dev/null || return 0
	local i
	for i in $(seq 600); do
		if ! "${sudo_cmd[@]}" fuser /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock >/dev/null 2>&1; then
			return 0
		fi
		if [ "$i" -eq 1 ]; then echo "waiting for another apt/dpkg to finish…"; fi
		sleep 1
	done
	fail "apt/dpkg stayed locked for 10 minutes"
}

# apt_install PACKAGE...: installs Debian packages, with sudo only when not root.
apt_install() {
	command -v apt-get >/dev/null || fail "$* missing and apt-get is not available: install them by hand"
	need_root "$@"
	# DPkg::Lock::Timeout covers the lock being taken again between our wait and apt-get.
	local apt=("${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
	if [ -z "${apt_updated:-}" ]; then
		wait_dpkg_lock
		"${apt[@]}" update -qq
		apt_updated=1
	fi
	wait_dpkg_lock
	"${apt[@]}" install -y -qq --no-install-recommends "$@"
}

# real_browser PATH: true when PATH runs a browser, not Ubuntu's snap wrapper script.
real_browser() {
	local p
	p="$(readlink -f "$1")" || return 1
	case "$p" in /snap/*) return 1 ;; esac
	if head -c 2 "$p" 2>/dev/null | grep -q '#!' && grep -qE 'snap (install|run)|/snap/' "$p" 2>/dev/null; then
		return 1
	fi
	return 0
}

# find_browser prints the browser the e2e tests will use (the same lookup as e2e/harness_test.go).
find_browser() {
	local n p
	if [ -n "${PLANDASH_CHROME:-}" ]; then
		p="$(command -v "$PLANDASH_CHROME")" || fail "PLANDASH_CHROME=$PLANDASH_CHROME is not a program"
		echo "$p"
		return 0
	fi
	for n in chromium chromium-browser google-chrome google-chrome-stable headless-shell chrome; do
		if p="$(command -v "$n")" && real_browser "$p"; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

step "tools"
missing=()
browser="$(find_browser)" || browser=""
if [ -z "$browser" ]; then
	case "$os_id" in
	ubuntu)
		fail "no usable Chromium or Chrome. Ubuntu's chromium and chromium-browser packages only install a snap,
which does not run in containers or CI. Install a .deb build instead, for example:
  sudo add-apt-repository ppa:xtradeb/apps && sudo apt-get install chromium
  (or Google Chrome: https://www.google.com/chrome/ — package google-chrome-stable)
then rerun, or point PLANDASH_CHROME at a browser you have."
		;;
	*) missing+=(chromium) ;;
	esac
fi
command -v tmux >/dev/null || missing+=(tmux)
command -v npm >/dev/null || missing+=(nodejs npm)
if [ "${#missing[@]}" -gt 0 ]; then
	echo "installing: ${missing[*]}"
	apt_install "${missing[@]}"
fi
browser="$(find_browser)" || fail "no browser on PATH after installing chromium"
export PLANDASH_CHROME="$browser"
echo "go:       $(go version)"
echo "browser:  $browser ($("$browser" --version 2>/dev/null || echo '?'))"

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

step "web-push and http_ece (npm, into the same cache)"
# The Web Push tests (internal/notify) decrypt and verify what plandash sends with these, an
# implementation that is not plandash's; they find them through PLANDASH_NPM. Pinned.
webpush_version=3.6.7
ece_version=1.2.1
if ! grep -qs "\"version\": \"$webpush_version\"" "$axe_dir/node_modules/web-push/package.json" ||
	! grep -qs "\"version\": \"$ece_version\"" "$axe_dir/node_modules/http_ece/package.json"; then
	npm install --silent --no-audit --no-fund --prefix "$axe_dir" "web-push@$webpush_version" "http_ece@$ece_version" ||
		fail "npm could not install web-push@$webpush_version and http_ece@$ece_version"
fi
export PLANDASH_NPM="$axe_dir/node_modules"
echo "web-push: $webpush_version, http_ece: $ece_version"

step "VS Code extension (editors/vscode): unit tests, and code-server for its browser test"
# The extension's connection logic under node's test runner; then Node 24 and code-server into
# ~/.cache/plandash/vscode (several minutes the first time), which e2e/vscode_test.go drives.
scripts/vscode.sh unit
scripts/vscode.sh setup >/dev/null || fail "could not install code-server (scripts/vscode.sh setup)"
echo "code-server: $(scripts/vscode.sh code-server)"

step "gofmt"
# A command substitution, not a process substitution: set -e sees git fail (say, outside a
# checkout) instead of running gofmt on nothing and passing.
if ! listed="$(git ls-files --cached --others --exclude-standard -- '*.go')"; then
	fail "git ls-files failed: run this from a git checkout"
fi
gofiles=()
while IFS= read -r f; do
	if [ -n "$f" ] && [ -f "$f" ]; then gofiles+=("$f"); fi
done <<<"$listed"
[ "${#gofiles[@]}" -gt 0 ] || fail "git ls-files listed no Go files"
unformatted="$(gofmt -l "${gofiles[@]}")"
if [ -n "$unformatted" ]; then
	printf '%s\n' "$unformatted" >&2
	fail "these files need gofmt -w"
fi
echo "ok (${#gofiles[@]} files)"

step "go vet"
go vet ./...
echo "ok"

step "the binary builds for macOS and Windows"
# Agents run on laptops: a Linux-only call in the product's code fails here, not on a user's.
for os in darwin windows; do
	GOOS=$os GOARCH=amd64 go build -o /dev/null ./cmd/plandash || fail "plandash does not build for $os"
done
echo "ok"

step "staticcheck"
# Pinned, and built once into a cache outside the repository (the module proxy serves it).
sc_dir="${XDG_CACHE_HOME:-$HOME/.cache}/plandash/tools/staticcheck-v0.6.1"
if [ ! -x "$sc_dir/staticcheck" ]; then
	GOBIN="$sc_dir" go install honnef.co/go/tools/cmd/staticcheck@v0.6.1
fi
# A fresh cache each run: staticcheck's own cache can replay stale findings for packages made
# only of _test.go files (e2e/), and a full run takes well under a minute.
sc_cache="$(mktemp -d)"
trap 'rm -rf "$sc_cache"' EXIT
STATICCHECK_CACHE="$sc_cache" "$sc_dir/staticcheck" ./...
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
go test -race -count=1 -timeout "${PLANDASH_TEST_TIMEOUT:-25m}" "${pkgs[@]}"

if [ "$#" -eq 0 ]; then
	# Under -race these store 5,000 sessions (filling 100,000 takes minutes there); the bound
	# they prove is for 100,000, so they run again at that size without the race detector.
	step "go test ./internal/web: the 100,000-session bounds, without -race"
	go test -count=1 -timeout "${PLANDASH_TEST_TIMEOUT:-25m}" -run '^(TestEverythingBoundedWith100000Sessions|TestOverviewBounded)$' ./internal/web
fi

printf '\nall checks passed\n'
