#!/usr/bin/env bash
# Installs the coding agents' real CLIs from npm into a cache directory (never globally, never
# inside the repository) and prints where each runnable binary is, one "name=path" line each.
#
#   scripts/agent-clis.sh                 # every agent the tests run
#   scripts/agent-clis.sh claude codex    # only these
#   scripts/agent-clis.sh --installed-only claude
#                                         # never install: exit 3 when claude is not there yet
#
# The cache is ${PLANDASH_AGENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/plandash/agents}; each agent
# lives in its own prefix named after the pinned version, so bumping a pin installs beside the old
# one and an existing install is reused without asking npm anything. Tests in
# internal/agents/agenttest run this script to find the binaries.
#
# The versions are pinned because the hook contracts change silently between releases
# (shared/spec/agents.md §10 "Risks"): bump them deliberately and rerun the agent tests.
set -euo pipefail
exec </dev/null # never wait for a prompt, in CI or under `go test`

CLAUDE_VERSION=2.1.328  # verified in shared/spec/agents.md §11
CODEX_VERSION=0.169.0   # verified in shared/spec/agents.md §11
GEMINI_VERSION=0.61.0   # newest on npm when pinned
OPENCODE_VERSION=1.18.33 # newest on npm when pinned
# droid: the native binary's own package (see droid() below)
DROID_VERSION=0.225.2
# amp: @ampcode/cli (what @sourcegraph/amp 0.0.1790142911-g7618fb depends on, exactly)
AMP_VERSION=0.0.1790142911-g7618fb
COPILOT_VERSION=1.0.102  # GitHub Copilot CLI: newest on npm when pinned
CRUSH_VERSION=0.96.1     # Crush: newest on npm when pinned; its real-CLI tests ran v0.90.0 built from source (internal/agents/crush/testdata/README.md)
PI_VERSION=0.73.1     # newest on npm when pinned
CLINE_VERSION=3.0.65  # newest on npm when pinned
QWEN_VERSION=0.24.4     # newest on npm when pinned
KILO_VERSION=7.7.7      # 7.8.1 is newest, but its platform package is not on the registry here

cache=${PLANDASH_AGENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/plandash/agents}

case "$(uname -m)" in
x86_64 | amd64) arch=x64 codex_triple=x86_64-unknown-linux-musl ;;
aarch64 | arm64) arch=arm64 codex_triple=aarch64-unknown-linux-musl ;;
*) echo "agent-clis: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
case "$(uname -s)" in
Linux) os=linux ;;
Darwin) os=darwin codex_triple=${codex_triple/unknown-linux-musl/apple-darwin} ;;
*) echo "agent-clis: unsupported system $(uname -s)" >&2; exit 1 ;;
esac

# install PREFIX PACKAGE@VERSION: npm install into PREFIX unless a previous run completed there.
# The marker file is written last, so an interrupted install is redone rather than trusted.
install() {
	local prefix=$1 spec=$2
	[[ -f $prefix/.installed ]] && return 0
	if ((installed_only)); then
		echo "agent-clis: $spec is not installed in $prefix" >&2
		exit 3
	fi
	command -v npm >/dev/null || { echo "agent-clis: npm is not installed" >&2; exit 1; }
	mkdir -p "$prefix"
	echo "agent-clis: installing $spec into $prefix" >&2
	local log=$prefix/npm-install.log
	# Lifecycle scripts are skipped: the native binaries are found below without them, and
	# the packages' postinstall steps would only copy or download what is already there.
	# --foreground-scripts is irrelevant then; --loglevel=error keeps npm's noise off stdout.
	if ! npm install --prefix "$prefix" --no-audit --no-fund --no-save --ignore-scripts \
		--loglevel=error "$spec" >"$log" 2>&1; then
		echo "agent-clis: npm install $spec failed:" >&2
		cat "$log" >&2
		exit 1
	fi
	touch "$prefix/.installed"
}

# found NAME PATH: print the binary's path, or fail naming what is missing.
found() {
	if [[ ! -e $2 ]]; then
		echo "agent-clis: $1 installed but $2 is missing (package layout changed?)" >&2
		exit 1
	fi
	echo "$1=$2"
}

claude() {
	local p=$cache/claude-code@$CLAUDE_VERSION
	install "$p" "@anthropic-ai/claude-code@$CLAUDE_VERSION"
	# The platform package carries the native binary (§11); the wrapper needs its postinstall.
	local bin=$p/node_modules/@anthropic-ai/claude-code-$os-$arch/claude
	[[ -e $bin ]] || bin=$p/node_modules/@anthropic-ai/claude-code-$os-$arch-musl/claude
	found claude "$bin"
}

codex() {
	local p=$cache/codex@$CODEX_VERSION
	install "$p" "@openai/codex@$CODEX_VERSION"
	found codex "$p/node_modules/@openai/codex-$os-$arch/vendor/$codex_triple/bin/codex"
}

gemini() {
	local p=$cache/gemini-cli@$GEMINI_VERSION
	install "$p" "@google/gemini-cli@$GEMINI_VERSION"
	# A bundled JS entry point: run it with node (the package needs node >= 20).
	found gemini "$p/node_modules/@google/gemini-cli/bundle/gemini.js"
}

opencode() {
	local p=$cache/opencode@$OPENCODE_VERSION
	install "$p" "opencode-ai@$OPENCODE_VERSION"
	found opencode "$p/node_modules/opencode-$os-$arch/bin/opencode"
}

# droid: @factory/cli 0.225.1 lists its platform packages at 0.225.1 as optional
# dependencies, but the registry holds them only at 0.225.2 (checked 2026-11-28), so npm
# installs the wrapper without a binary. The platform package is installed directly instead:
# it is the whole CLI, a self-contained executable.
droid() {
	local p=$cache/droid@$DROID_VERSION
	install "$p" "@factory/cli-$os-$arch@$DROID_VERSION"
	found droid "$p/node_modules/@factory/cli-$os-$arch/bin/droid"
}

# amp: the wrapper finds its platform package's binary; the binary itself is run here.
amp() {
	local p=$cache/amp@$AMP_VERSION
	install "$p" "@ampcode/cli@$AMP_VERSION"
	found amp "$p/node_modules/@ampcode/cli-$os-$arch/amp"
}

# GitHub Copilot CLI: the platform package carries a native binary, which unpacks its JS
# runtime into $XDG_CACHE_HOME/copilot/pkg on first run.
copilot() {
	local p=$cache/copilot@$COPILOT_VERSION
	install "$p" "@github/copilot@$COPILOT_VERSION"
	found copilot "$p/node_modules/@github/copilot-$os-$arch/copilot"
}

# Crush: the npm package holds no binary; its install.js downloads the release archive from
# GitHub and checks its sha256. It runs here (lifecycle scripts are skipped above) whenever the
# binary is missing, so a failed download is tried again next time.
crush() {
	local p=$cache/crush@$CRUSH_VERSION
	install "$p" "@charmland/crush@$CRUSH_VERSION"
	local pkg=$p/node_modules/@charmland/crush
	if [[ ! -e $pkg/bin/crush ]]; then
		if ((installed_only)); then
			echo "agent-clis: crush's binary was never downloaded into $pkg/bin" >&2
			exit 3
		fi
		if ! (cd "$pkg" && node install.js) >"$p/download.log" 2>&1; then
			# Exit 4: not available on this machine (no route to GitHub); its tests skip, saying so.
			echo "agent-clis: crush's install.js could not download its binary from GitHub releases (set PLANDASH_CRUSH to a crush binary):" >&2
			cat "$p/download.log" >&2
			exit 4
		fi
	fi
	found crush "$pkg/bin/crush"
}

# pi: a JS entry point, run with node (the package needs node >= 20.6).
pi() {
	local p=$cache/pi-coding-agent@$PI_VERSION
	install "$p" "@mariozechner/pi-coding-agent@$PI_VERSION"
	found pi "$p/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"
}

# cline: the platform package carries the compiled binary (Bun embedded); the npm wrapper only
# finds and runs it.
cline() {
	local p=$cache/cline@$CLINE_VERSION
	install "$p" "cline@$CLINE_VERSION"
	found cline "$p/node_modules/@cline/cli-$os-$arch/bin/cline"
}

# qwen: Qwen Code, a bundled JS entry point (node >= 20).
qwen() {
	local p=$cache/qwen-code@$QWEN_VERSION
	install "$p" "@qwen-code/qwen-code@$QWEN_VERSION"
	found qwen "$p/node_modules/@qwen-code/qwen-code/cli.js"
}

# kilo: Kilo Code's CLI; the platform package carries the native binary.
kilo() {
	local p=$cache/kilo@$KILO_VERSION
	install "$p" "@kilocode/cli@$KILO_VERSION"
	found kilo "$p/node_modules/@kilocode/cli-$os-$arch/bin/kilo"
}

installed_only=0
if [[ ${1:-} == --installed-only ]]; then
	installed_only=1
	shift
fi
agents=("$@")
((${#agents[@]})) || agents=(claude codex gemini opencode copilot droid pi cline qwen kilo amp)
for a in "${agents[@]}"; do
	case $a in
	claude | codex | gemini | opencode | copilot | droid | pi | cline | qwen | kilo | crush | amp) "$a" ;;
	*) echo "agent-clis: unknown agent $a (want claude, codex, gemini, opencode, copilot, droid, pi, cline, qwen, kilo, crush or amp)" >&2; exit 2 ;;
	esac
done
