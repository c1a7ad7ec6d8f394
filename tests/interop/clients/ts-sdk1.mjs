// TypeScript SDK 1.x (@modelcontextprotocol/sdk): Client over StdioClientTransport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig, runSteps } from '../lib/steps.mjs';

const cfg = loadConfig();
const errors = [];
const client = new Client({ name: 'zcp-interop-sdk1', version: '1.0.0' }, { capabilities: {} });
client.onerror = (err) => errors.push(`onerror: ${err?.message ?? err}`);
const transport = new StdioClientTransport({
  command: cfg.command,
  args: cfg.args,
  env: { ...getDefaultEnvironment(), ...cfg.env },
  stderr: 'inherit',
});

await runSteps(cfg, {
  connect: () => client.connect(transport),
  era: () => `legacy (server ${client.getServerVersion()?.name} ${client.getServerVersion()?.version})`,
  listTools: () => client.listTools(),
  callTool: (name, args, onprogress) =>
    client.callTool({ name, arguments: args }, CallToolResultSchema, onprogress ? { onprogress } : undefined),
  listResources: () => client.listResources(),
  readResource: (uri) => client.readResource({ uri }),
  close: () => client.close(),
  errors: () => errors,
});
process.exit(0);
