// MCP Inspector in CLI mode: one `npx @modelcontextprotocol/inspector --cli` run per method,
// each spawning the server afresh from a session config file. argv[2] is the protocol era
// ("legacy", the Inspector's default for ad-hoc runs, or "auto").
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkResult, loadConfig, report, resultText } from '../lib/steps.mjs';

const era = process.argv[2] ?? 'legacy';
const cfg = loadConfig();
const sc = cfg.scenario;
const configPath = join(cfg.recordDir, `inspector-${era}.json`);
writeFileSync(
  configPath,
  JSON.stringify({ mcpServers: { zcp: { command: cfg.command, args: cfg.args, env: cfg.env } } }),
);

const RUN_TIMEOUT_MS = 15000;
let stalled = false; // after one run times out, the rest are skipped to keep the suite bounded

/** Runs one Inspector CLI invocation; resolves to {code, signal, json, stdout, stderr}. */
function inspector(extra) {
  const args = [
    '--no-install', '@modelcontextprotocol/inspector', '--cli',
    '--config', configPath, '--server', 'zcp',
    '--protocol-era', era, '--format', 'json',
    ...extra,
  ];
  return new Promise((resolve) => {
    const child = spawn('npx', args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a timeout can stop npx and the Inspector under it.
      detached: true,
      // Keep the Inspector's keychain probing quiet and its files out of the real home.
      env: { ...process.env, MCP_INSPECTOR_SECRET_STORE: 'memory', HOME: cfg.recordDir },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, RUN_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let json;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, signal, json, stdout, stderr });
    });
  });
}

async function step(name, extra, check) {
  if (stalled) {
    report(name, false, 0, 'skipped: an earlier Inspector run timed out');
    return;
  }
  const t0 = performance.now();
  const run = await inspector(extra);
  const problems = [];
  let detail = '';
  if (run.signal) {
    stalled = true;
    problems.push(`no result within ${RUN_TIMEOUT_MS} ms (inspector killed by ${run.signal})`);
  } else if (run.json === undefined) problems.push(`exit ${run.code}, stdout is not JSON: ${run.stdout.slice(0, 300)} ${run.stderr.slice(-500)}`);
  else detail = check(run, problems) ?? '';
  report(name, problems.length === 0, performance.now() - t0, problems.length ? problems.join('; ') : detail);
}

const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

await step('tools/list', ['--method', 'tools/list'], (run, problems) => {
  if (run.code !== 0) problems.push(`exit code ${run.code}: ${JSON.stringify(run.json).slice(0, 300)}`);
  const tools = run.json.result?.tools ?? [];
  const names = tools.map((t) => t.name);
  for (const want of sc.tools.expected) if (!names.includes(want)) problems.push(`missing tool ${want}`);
  if (sc.tools.exact && names.length !== sc.tools.expected.length) problems.push(`got ${names.length} tools: ${names.join(', ')}`);
  for (const t of tools) {
    if (!NAME_RE.test(t.name)) problems.push(`bad tool name ${JSON.stringify(t.name)}`);
    if (t.inputSchema?.type !== 'object') problems.push(`${t.name}: inputSchema root type is ${JSON.stringify(t.inputSchema?.type)}`);
  }
  return `${names.length} tools`;
});

for (const call of sc.calls ?? []) {
  await step(`call:${call.label}`, ['--method', 'tools/call', '--tool-name', call.tool, '--tool-args-json', JSON.stringify(call.arguments)], (run, problems) => {
    const result = run.json.result;
    if (!result) {
      problems.push(`no result: ${JSON.stringify(run.json).slice(0, 300)}`);
      return;
    }
    problems.push(...checkResult(result, call.expect));
    // The Inspector exits 5 when a tool answers isError:true, 0 otherwise.
    const wantCode = call.expect?.isError ? 5 : 0;
    if (run.code !== wantCode) problems.push(`exit code ${run.code}, expected ${wantCode}`);
    return resultText(result).slice(0, 80);
  });
}

if (sc.badArguments) {
  const b = sc.badArguments;
  await step('bad-args', ['--method', 'tools/call', '--tool-name', b.tool, '--tool-args-json', JSON.stringify(b.arguments)], (run, problems) => {
    const result = run.json.result;
    if (!result) {
      problems.push(`no result (protocol error instead of isError?): ${JSON.stringify(run.json).slice(0, 300)}`);
      return;
    }
    const text = resultText(result);
    if (result.isError !== true) problems.push(`isError is ${JSON.stringify(result.isError)}`);
    if (run.code !== 5) problems.push(`exit code ${run.code}, expected 5 (tool error)`);
    for (const m of b.errorMentions ?? []) if (!text.includes(m)) problems.push(`error text does not name ${JSON.stringify(m)}: ${JSON.stringify(text)}`);
    return text.slice(0, 120);
  });
}

if (sc.resources) {
  await step('resources/list', ['--method', 'resources/list'], (run, problems) => {
    if (run.code !== 0) problems.push(`exit code ${run.code}`);
    const uris = (run.json.result?.resources ?? []).map((r) => r.uri);
    for (const u of sc.resources.expected) if (!uris.includes(u)) problems.push(`missing resource ${u}`);
    return `${uris.length} resources`;
  });
  await step('resources/read', ['--method', 'resources/read', '--uri', sc.resources.read], (run, problems) => {
    if (run.code !== 0) problems.push(`exit code ${run.code}`);
    const contents = run.json.result?.contents ?? [];
    if (!contents.length) problems.push('no contents');
    else {
      if (contents[0].uri !== sc.resources.read) problems.push(`contents[0].uri ${contents[0].uri}`);
      if (!contents[0].mimeType) problems.push('no mimeType');
      for (const n of sc.resources.readTextIncludes ?? []) if (!(contents[0].text ?? '').includes(n)) problems.push(`text lacks ${JSON.stringify(n)}`);
    }
    return `${(contents[0]?.text ?? '').length} chars`;
  });
}
