/**
 * `npm run bench -- detection [--no-write]`: the engine bench (scripts/bench/detection-engine.ts) and the
 * process job bench on PostgreSQL (scripts/bench/process.ts, one fresh process per shard size so
 * that peak memory is per run), written into the detection section of docs/performance.md.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { writeSection } from './report';

const SHARD_SIZES = [1000, 250, 4000];

function tsx(script: string, args: string[], extra: string[] = []): string {
  return execFileSync(process.execPath, [...extra, '--import', 'tsx', script, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 2 ** 20,
  });
}

/** Process job rows, one fresh process per shard size; the database is kept between them and dropped at the end. */
function processJob(): string[] {
  const out: string[] = [];
  SHARD_SIZES.forEach((size, i) => {
    const last = i === SHARD_SIZES.length - 1;
    const text = tsx(
      'scripts/bench/process.ts',
      ['--shards', String(size), ...(last ? [] : ['--keep'])],
      ['--expose-gc'],
    );
    const lines = text.split('\n');
    if (i === 0)
      out.push(...lines.filter((l) => !/^\| \d/.test(l) && l.trim() !== '' && !l.startsWith('###')));
    out.push(...lines.filter((l) => /^\| \d/.test(l)));
  });
  // The description and header come first, then one row per shard size.
  const rows = out.filter((l) => /^\| \d/.test(l));
  const rest = out.filter((l) => !/^\| \d/.test(l));
  return [...rest.slice(0, 1), '', ...rest.slice(1), ...rows];
}

export async function benchDetection(args: string[]): Promise<void> {
  const cpu = os.cpus();
  const before = os.loadavg()[0].toFixed(1);
  const engine = tsx('scripts/bench/detection-engine.ts', []).trim();
  let job: string[];
  try {
    job = processJob();
  } catch (e) {
    job = [`Not measured: ${(e as Error).message.split('\n')[0]} (set DATABASE_URL to a PostgreSQL server).`];
  }
  const after = os.loadavg()[0].toFixed(1);
  const text = [
    '## Detection',
    '',
    `Measured by \`npm run bench -- detection\` on ${new Date().toISOString().slice(0, 10)}: ${cpu.length} cores, ${cpu[0]?.model.trim()},`,
    `Node ${process.version}; load average ${before} at the start and ${after} at the end (the machine is shared with`,
    'other work, so single figures move by ±30 %). Engine: `scripts/bench/detection-engine.ts` on columnar arrays in memory.',
    'Process job: `scripts/bench/process.ts`, the whole job on the PostgreSQL server of `DATABASE_URL` (or the local',
    'test server): reading the shards, detection, staging, the publishing swap with SIN/SIM; one fresh process per',
    'shard size, so the peak RSS is that of one run (RSS before = the process before the run).',
    '',
    engine.replace(/^### /m, '### '),
    '',
    '### Process job (detection) on PostgreSQL',
    '',
    ...job,
  ].join('\n');
  console.log(text);
  if (!args.includes('--no-write')) writeSection('bench-detection', text);
}
