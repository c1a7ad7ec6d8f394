// The scenario steps shared by the TypeScript clients. Each client script supplies an
// adapter over its own SDK; this module drives the steps the scenario file asks for and
// prints one JSON line per step on stdout for the harness.

import { readFileSync } from 'node:fs';

/** Reads the run configuration the harness wrote (path in INTEROP_CONFIG). */
export function loadConfig() {
  const path = process.env.INTEROP_CONFIG;
  if (!path) throw new Error('INTEROP_CONFIG is not set; run this through tests/interop/run.sh');
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** One step's outcome, as a JSON line the harness parses. */
export function report(step, ok, ms, detail = '') {
  process.stdout.write(JSON.stringify({ step, ok, ms: Math.round(ms), detail: String(detail) }) + '\n');
}

const STEP_TIMEOUT_MS = 20000;

function withTimeout(promise, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** Key-order-insensitive deep equality of JSON values. */
export function jsonEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return jsonEqual(ka, kb) && ka.every((k) => jsonEqual(a[k], b[k]));
}

const show = (v) => JSON.stringify(v);

export function resultText(result) {
  return (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

/** Checks a CallToolResult against a scenario `expect` block; returns problems found. */
export function checkResult(result, expect = {}) {
  const problems = [];
  const wantError = expect.isError ?? false;
  if (Boolean(result.isError) !== wantError) {
    problems.push(`isError=${Boolean(result.isError)}, expected ${wantError}; text: ${resultText(result).slice(0, 300)}`);
  }
  if (!Array.isArray(result.content) || result.content.length === 0) problems.push('content is empty');
  if ('structuredContent' in expect && !jsonEqual(result.structuredContent, expect.structuredContent)) {
    problems.push(`structuredContent ${show(result.structuredContent)} != expected ${show(expect.structuredContent)}`);
  }
  if ('textJson' in expect) {
    let parsed;
    try {
      parsed = JSON.parse(result.content?.[0]?.text);
    } catch {
      parsed = undefined;
    }
    if (!jsonEqual(parsed, expect.textJson)) {
      problems.push(`text block ${show(result.content?.[0]?.text)} does not parse to ${show(expect.textJson)}`);
    }
  }
  for (const needle of expect.textIncludes ?? []) {
    if (!resultText(result).includes(needle)) problems.push(`text lacks ${show(needle)}: ${show(resultText(result).slice(0, 300))}`);
  }
  return problems;
}

const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Runs every step. `adapter` provides: connect(), era(), listTools(), callTool(name, args,
 * onprogress|undefined), listResources(), readResource(uri), close(), errors() (errors the
 * SDK reported asynchronously, e.g. through onerror).
 */
export async function runSteps(cfg, adapter) {
  const sc = cfg.scenario;
  const step = async (name, fn) => {
    const t0 = performance.now();
    try {
      const detail = await withTimeout(Promise.resolve().then(fn), name);
      report(name, true, performance.now() - t0, detail ?? '');
      return true;
    } catch (err) {
      report(name, false, performance.now() - t0, err?.stack ? `${err.message}` : String(err));
      return false;
    }
  };
  const fail = (problems) => {
    if (problems.length) throw new Error(problems.join('; '));
  };

  const connected = await step('connect', async () => {
    await adapter.connect();
    return `era ${adapter.era()}`;
  });
  if (!connected) {
    await step('close', () => adapter.close());
    return;
  }

  await step('tools/list', async () => {
    const { tools } = await adapter.listTools();
    const names = tools.map((t) => t.name);
    const problems = [];
    for (const want of sc.tools.expected) if (!names.includes(want)) problems.push(`missing tool ${want}`);
    if (sc.tools.exact && names.length !== sc.tools.expected.length) problems.push(`got ${names.length} tools: ${names.join(', ')}`);
    if (new Set(names).size !== names.length) problems.push('duplicate tool names');
    for (const t of tools) {
      if (!NAME_RE.test(t.name)) problems.push(`bad tool name ${show(t.name)}`);
      if (t.inputSchema?.type !== 'object') problems.push(`${t.name}: inputSchema root type is ${show(t.inputSchema?.type)}`);
      if (!t.description) problems.push(`${t.name}: no description`);
    }
    fail(problems);
    return `${names.length} tools`;
  });

  for (const call of sc.calls ?? []) {
    await step(`call:${call.label}`, async () => {
      const result = await adapter.callTool(call.tool, call.arguments, undefined);
      fail(checkResult(result, call.expect));
      return resultText(result).slice(0, 80);
    });
  }

  if (sc.progress) {
    await step('progress', async () => {
      const p = sc.progress;
      const seen = [];
      let done = false;
      let late = 0;
      const result = await adapter.callTool(p.tool, p.arguments, (ev) => {
        if (done) late += 1;
        seen.push(ev);
      });
      done = true;
      // Give a trailing notification a moment to show up, so "none after the result" means something.
      await new Promise((r) => setTimeout(r, 150));
      const problems = checkResult(result, p.expect);
      if (seen.length < (p.minNotifications ?? 1)) problems.push(`${seen.length} progress notifications, expected >= ${p.minNotifications ?? 1}`);
      for (let i = 1; i < seen.length; i++) {
        if (!(seen[i].progress > seen[i - 1].progress)) problems.push(`progress not increasing: ${show(seen.map((e) => e.progress))}`);
      }
      for (const ev of seen) {
        if (ev.total !== undefined && ev.total < ev.progress) problems.push(`progress ${ev.progress} above total ${ev.total}`);
      }
      if (late) problems.push(`${late} progress notification(s) after the result`);
      fail(problems);
      return `${seen.length} notifications: ${seen.map((e) => e.progress).join(',')}`;
    });
  }

  if (sc.badArguments) {
    await step('bad-args', async () => {
      const b = sc.badArguments;
      let result;
      try {
        result = await adapter.callTool(b.tool, b.arguments, undefined);
      } catch (err) {
        throw new Error(`the call threw instead of returning an isError result: ${err.message}`);
      }
      const text = resultText(result);
      const problems = [];
      if (result.isError !== true) problems.push(`isError is ${show(result.isError)}`);
      for (const m of b.errorMentions ?? []) if (!text.includes(m)) problems.push(`error text does not name ${show(m)}: ${show(text)}`);
      fail(problems);
      return text.slice(0, 120);
    });
    await step('alive', async () => {
      const first = (sc.calls ?? [])[0];
      if (first) {
        const result = await adapter.callTool(first.tool, first.arguments, undefined);
        fail(checkResult(result, first.expect));
        return `${first.tool} answered`;
      }
      const { tools } = await adapter.listTools();
      return `${tools.length} tools`;
    });
  }

  if (sc.resources) {
    await step('resources/list', async () => {
      const { resources } = await adapter.listResources();
      const uris = resources.map((r) => r.uri);
      const missing = sc.resources.expected.filter((u) => !uris.includes(u));
      const problems = missing.map((u) => `missing resource ${u}`);
      for (const r of resources) if (!r.name) problems.push(`${r.uri}: no name`);
      fail(problems);
      return `${uris.length} resources`;
    });
    await step('resources/read', async () => {
      const uri = sc.resources.read;
      const { contents } = await adapter.readResource(uri);
      const problems = [];
      if (!contents?.length) problems.push('no contents');
      else {
        if (contents[0].uri !== uri) problems.push(`contents[0].uri ${show(contents[0].uri)} != ${uri}`);
        if (!contents[0].mimeType) problems.push('no mimeType');
        for (const needle of sc.resources.readTextIncludes ?? []) {
          if (!(contents[0].text ?? '').includes(needle)) problems.push(`text lacks ${show(needle)}`);
        }
      }
      fail(problems);
      return `${(contents?.[0]?.text ?? '').length} chars`;
    });
  }

  await step('close', async () => {
    await adapter.close();
  });
  await step('client-errors', async () => {
    const errors = adapter.errors();
    if (errors.length) throw new Error(errors.join(' | '));
    return 'none';
  });
}
