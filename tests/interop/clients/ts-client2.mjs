// TypeScript client 2.x (@modelcontextprotocol/client): Client over its StdioClientTransport,
// with versionNegotiation mode "legacy" or "auto" (argv[2]).
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { loadConfig, runSteps } from '../lib/steps.mjs';

const mode = process.argv[2] ?? 'legacy';
const cfg = loadConfig();
const errors = [];
const client = new Client(
  { name: 'zcp-interop-client2', version: '1.0.0' },
  { capabilities: {}, versionNegotiation: { mode } },
);
client.onerror = (err) => errors.push(`onerror: ${err?.message ?? err}`);
const transport = new StdioClientTransport({
  command: cfg.command,
  args: cfg.args,
  env: { ...getDefaultEnvironment(), ...cfg.env },
  stderr: 'inherit',
});

await runSteps(cfg, {
  connect: () => client.connect(transport),
  era: () => `${client.getProtocolEra()} ${client.getNegotiatedProtocolVersion()}`,
  listTools: () => client.listTools(),
  callTool: (name, args, onprogress) => client.callTool({ name, arguments: args }, onprogress ? { onprogress } : undefined),
  listResources: () => client.listResources(),
  readResource: (uri) => client.readResource({ uri }),
  close: () => client.close(),
  errors: () => errors,
});
process.exit(0);
