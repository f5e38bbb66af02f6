import { appendFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createRecordingServer, type Recorded } from './recording-upstream.js';

/**
 * The recording upstream as a process the gateway starts (`--upstream`): every event is appended as
 * a JSON line to the file named by RECORD_FILE, its own environment first; SIGUSR2 adds a tool.
 */
const file = process.env.RECORD_FILE;
if (!file) throw new Error('RECORD_FILE is required');
const record = (entry: Recorded) => appendFileSync(file, `${JSON.stringify(entry)}\n`);
record({ event: 'start', pid: process.pid, env: { ...process.env } });
const { server, grow } = createRecordingServer(record);
process.on('SIGUSR2', () => void grow());
await server.connect(new StdioServerTransport());
