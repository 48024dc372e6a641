// Interop tests: the TypeScript MCP SDK, an independent client, drives the
// built skillmux binary over a real pipe. A wire-level mistake cannot hide
// behind a library shared by server and client here.
//
// SKILLMUX_BIN names the binary (default: ../../bin/skillmux).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const bin = path.resolve(process.env.SKILLMUX_BIN ?? path.join(repo, 'bin', 'skillmux'));
const examples = path.join(repo, 'examples', 'skills');

let tmp, fixtures, home;

function write(rel, content) {
  const p = path.join(fixtures, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
  return p;
}

before(() => {
  assert.ok(fs.existsSync(bin), `no binary at ${bin}: go build -o bin/skillmux ./cmd/skillmux`);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillmux-interop-'));
  fixtures = path.join(tmp, 'skills');
  home = path.join(tmp, 'home');
  fs.mkdirSync(home);
  write('crlf-skill/SKILL.md', '---\r\nname: crlf-skill\r\ndescription: Written on Windows.\r\n---\r\n# CRLF\r\n\r\n  indented\r\n');
  write('block-skill/SKILL.md', '---\nname: block-skill\ndescription: |-\n  First line.\n  Second line: with a colon.\n---\nBody.\n');
  write('tools-skill/SKILL.md', '---\nname: tools-skill\ndescription: Has scripts and references.\n---\nRun scripts/go.sh.\n');
  write('tools-skill/scripts/go.sh', '#!/bin/sh\necho go\n');
  write('tools-skill/references/notes.md', '# Notes\n');
  write('broken-skill/SKILL.md', '---\nname: broken-skill\ndescription: [never closed\n---\n');
});

// The raw servers still running when the tests end (a test that failed
// before closing its server's stdin) are stopped, or node would wait for
// them forever.
const running = new Set();

after(() => {
  for (const child of running) child.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
});

// The server runs in an empty home and folder, so only the roots count.
function serverEnv() {
  return { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), PATH: process.env.PATH };
}

async function connect(roots) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ['serve', ...roots.flatMap((r) => ['--root', r])],
    env: serverEnv(),
    cwd: tmp,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'interop', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

test('initialize: server info, capabilities, instructions', async () => {
  const client = await connect([fixtures]);
  try {
    assert.deepEqual(client.getServerVersion()?.name, 'skillmux');
    assert.ok(client.getServerVersion()?.version);
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
    const instr = client.getInstructions();
    assert.match(instr, /<available_skills>/);
    assert.match(instr, /<skill><name>block-skill<\/name><description>First line\. Second line: with a colon\.<\/description><location>[^<]*block-skill\/SKILL\.md<\/location><\/skill>/);
    assert.doesNotMatch(instr, /broken-skill/, 'a SKILL.md with invalid YAML is skipped');
  } finally {
    await client.close();
  }
});

test('tools/list: the skill tool with the catalog in its description, skill_resource and skills_search', async () => {
  const client = await connect([fixtures]);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['skill', 'skill_resource', 'skills_search']);
    assert.equal(tools[0]._meta['anthropic/alwaysLoad'], true);
    assert.ok(tools[0]._meta['anthropic/searchHint']);
    assert.equal(tools[2].outputSchema.type, 'object');
    assert.equal(
      tools[0].description,
      'Load a skill by name to get specialized instructions.\n\nAvailable skills:\n' +
        '- block-skill: First line. Second line: with a colon.\n' +
        '- crlf-skill: Written on Windows.\n' +
        '- tools-skill: Has scripts and references.',
    );
    assert.deepEqual(tools[0].inputSchema.required, ['name']);
  } finally {
    await client.close();
  }
});

test('skills_search: ranked hits as structured content the SDK checks against the output schema', async () => {
  const client = await connect([fixtures, examples]);
  try {
    // The TypeScript client validates structuredContent against the
    // tool's outputSchema once it has listed the tools.
    await client.listTools();
    const res = await client.callTool({ name: 'skills_search', arguments: { query: 'write the release notes', limit: 3 } });
    assert.notEqual(res.isError, true);
    assert.equal(res.structuredContent.query, 'write the release notes');
    assert.equal(res.structuredContent.hits[0].name, 'release-notes');
    assert.ok(res.structuredContent.hits[0].excerpt.length > 0);
    assert.match(res.content[0].text, /- release-notes \(/);
    // A bad argument is the tool's error, which the model reads to
    // correct its call, not a protocol error: and a tool with an output
    // schema may answer so without structured content.
    const bad = await client.callTool({ name: 'skills_search', arguments: { query: '  ' } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /^invalid arguments: .*"query"/);
  } finally {
    await client.close();
  }
});

test('prompts: one per skill, $ARGUMENTS replaced; completion of skill names', async () => {
  const client = await connect([fixtures, examples]);
  try {
    const { prompts } = await client.listPrompts();
    const names = prompts.map((p) => p.name);
    for (const n of ['release-notes', 'crlf-skill', 'skill']) assert.ok(names.includes(n), n);
    const got = await client.getPrompt({ name: 'block-skill', arguments: { arguments: 'now' } });
    assert.equal(got.description, 'First line.\nSecond line: with a colon.', 'the skill\'s description, as written');
    assert.match(got.messages[0].content.text, /Body\.\n\nARGUMENTS: now$/);
    const done = await client.complete({ ref: { type: 'ref/prompt', name: 'skill' }, argument: { name: 'name', value: 'rel' } });
    assert.deepEqual(done.completion.values, ['release-notes']);
  } finally {
    await client.close();
  }
});

test('skill: the SKILL.md byte for byte, then the other files', async () => {
  const client = await connect([fixtures, examples]);
  try {
    for (const [name, dir] of [
      ['crlf-skill', path.join(fixtures, 'crlf-skill')],
      ['release-notes', path.join(examples, 'release-notes')],
    ]) {
      const res = await client.callTool({ name: 'skill', arguments: { name } });
      assert.notEqual(res.isError, true);
      const body = fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8');
      assert.equal(res.content[0].text, `Loading: ${name}\nBase directory: ${dir}\n\n${body}`);
    }
    const res = await client.callTool({ name: 'skill', arguments: { name: 'TOOLS-Skill' } });
    assert.equal(res.content[0].text.split('\n')[0], 'Loading: tools-skill', 'lookup ignores case');
    assert.equal(res.content[1].text, 'Files in this skill (relative to the base directory):\nreferences/notes.md\nscripts/go.sh');
  } finally {
    await client.close();
  }
});

test('skill: unknown names answer with suggestions, bad arguments with a tool error', async () => {
  const client = await connect([fixtures]);
  try {
    const res = await client.callTool({ name: 'skill', arguments: { name: 'block-skil' } });
    assert.equal(res.isError, true);
    assert.match(res.content[0].text, /did you mean block-skill/);
    for (const args of [{}, { name: 42 }, { name: null }]) {
      const bad = await client.callTool({ name: 'skill', arguments: args });
      assert.equal(bad.isError, true, JSON.stringify(args));
      assert.match(bad.content[0].text, /^invalid arguments: .*"name"/);
    }
  } finally {
    await client.close();
  }
});

// raw speaks newline-delimited JSON-RPC to a fresh server process.
function raw(roots) {
  const child = spawn(bin, ['serve', ...roots.flatMap((r) => ['--root', r])], { env: serverEnv(), cwd: tmp, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = [];
  const waiters = [];
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      const w = waiters.shift();
      if (w) w();
    }
  });
  child.stderr.resume();
  running.add(child);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => { running.delete(child); resolve({ code, signal }); }));
  let read = 0;
  return {
    child,
    exited,
    lines,
    send: (obj) => child.stdin.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n'),
    // next returns the next reply; notifications, which may come at any
    // time (a change found just after the start), are passed over.
    async next() {
      for (;;) {
        if (read >= lines.length) {
          await new Promise((resolve, reject) => {
            const t = setTimeout(() => reject(new Error('no reply within 10s')), 10000);
            waiters.push(() => { clearTimeout(t); resolve(); });
          });
        }
        const msg = JSON.parse(lines[read++]);
        if (!('method' in msg && !('id' in msg))) return msg;
      }
    },
  };
}

const init = (version) => ({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

test('raw: protocol 2025-06-18 is negotiated as asked', async () => {
  const s = raw([fixtures]);
  s.send(init('2025-06-18'));
  const res = await s.next();
  assert.equal(res.result.protocolVersion, '2025-06-18');
  assert.equal(res.result.serverInfo.name, 'skillmux');
  s.child.stdin.end();
  await s.exited;
});

test('raw: a malformed line gets -32700 and the session goes on', async () => {
  const s = raw([fixtures]);
  s.send(init('2025-11-25'));
  await s.next();
  s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  s.send('{"jsonrpc": "2.0", "id": 2, "method": ');
  const err = await s.next();
  assert.equal(err.error.code, -32700);
  assert.ok('id' in err && err.id === null, 'a parse error carries "id": null');
  s.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  assert.deepEqual(await s.next(), { jsonrpc: '2.0', id: 3, result: {} });
  s.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'skill', arguments: { name: 'block-skill' } } });
  const call = await s.next();
  assert.match(call.result.content[0].text, /^Loading: block-skill\n/);
  const started = Date.now();
  s.child.stdin.end();
  const { code, signal } = await s.exited;
  assert.equal(code, 0, `exit status (signal ${signal})`);
  assert.ok(Date.now() - started < 2000, 'exits within 2 s of the end of stdin');
  for (const line of s.lines) {
    const msg = JSON.parse(line);
    assert.equal(msg.jsonrpc, '2.0', `stdout carries JSON-RPC only: ${line}`);
  }
});

test('live refresh: a new skill is announced with tools/list_changed and then listed', async () => {
  const live = fs.mkdtempSync(path.join(tmp, 'live-'));
  fs.mkdirSync(path.join(live, 'first'));
  fs.writeFileSync(path.join(live, 'first', 'SKILL.md'), '---\nname: first\ndescription: There from the start.\n---\n');
  const transport = new StdioClientTransport({
    command: bin,
    args: ['serve', '--root', live],
    env: { ...serverEnv(), SKILLMUX_REFRESH__DEBOUNCE: '50ms' },
    cwd: tmp,
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (d) => { log += d; });
  let changed;
  const announced = new Promise((resolve) => { changed = resolve; });
  const client = new Client({ name: 'interop', version: '1.0.0' }, {
    // No debounce in the client: the test writes a skill every 200 ms, and
    // the SDK's default 300 ms would restart at each announcement.
    listChanged: { tools: { onChanged: () => changed(), debounceMs: 0 } },
  });
  await client.connect(transport);
  try {
    const before = (await client.listTools()).tools[0].description;
    assert.match(before, /- first: There from the start\./);
    // The watcher starts just after the handshake: write until the
    // announcement comes, each time a new skill.
    let n = 0;
    const writer = setInterval(() => {
      n++;
      const dir = path.join(live, `added-${n}`);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: added-${n}\ndescription: Added while serving.\n---\n`);
    }, 200);
    try {
      await Promise.race([announced, new Promise((_, reject) => setTimeout(() => reject(new Error('no tools/list_changed within 15 s; server log:\n' + log)), 15000))]);
    } finally {
      clearInterval(writer);
    }
    const after = (await client.listTools()).tools[0].description;
    assert.match(after, /- added-1: Added while serving\./);
  } finally {
    await client.close();
  }
});
