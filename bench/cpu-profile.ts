import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * Profiles this thread's CPU while `work` runs and writes a `.cpuprofile` to `file` (when given),
 * so a benchmark can profile its measured phase alone, without start-up and the other phases.
 * Read it with `npx tsx bench/profile-top.ts <file>` or Chrome DevTools.
 */
export async function profiled<T>(file: string | undefined, work: () => Promise<T>): Promise<T> {
  if (file === undefined) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}
