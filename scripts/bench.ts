/**
 * `npm run bench -- [name] [options]`: runs one benchmark of scripts/bench/ (one file per case), or the
 * default set (those marked below) when no name is given; `npm run bench -- --list` lists them. The
 * figures of a case that reports go into its section of docs/performance.md (scripts/bench/report.ts,
 * `--no-write` prints only). Add a case to BENCHES.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

interface Bench {
  what: string;
  /** Run by `npm run bench` with no name. */
  byDefault?: boolean;
  run: (args: string[]) => Promise<void>;
}

/** A case that runs as a program of its own (its own argv, memory and exit): a child process of tsx. */
function program(file: string, nodeFlags: string[] = []): (args: string[]) => Promise<void> {
  return async (args) => {
    const script = path.join(import.meta.dirname, 'bench', file);
    const r = spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', script, ...args], {
      stdio: 'inherit',
    });
    if (r.status !== 0) throw new Error(`scripts/bench/${file} exited with ${r.status ?? r.signal}`);
  };
}

const BENCHES: Record<string, Bench> = {
  load: {
    what: 'load and series build (needs DATABASE_URL)',
    byDefault: true,
    run: async (args) => (await import('./bench/load')).benchLoad(args),
  },
  detection: {
    what: 'detection engine per detector, and the whole process job on PostgreSQL (10,000 series × 3 years)',
    byDefault: true,
    run: async (args) => (await import('./bench/detection')).benchDetection(args),
  },
  e2e: {
    what: 'end to end through HTTP: hotel cube source, npm start, POST load → detection → Top 100, API latency, floor (--scale small|hotel|big; DATABASE_URL for PostgreSQL)',
    byDefault: true,
    run: async (args) => (await import('./bench/e2e')).benchE2e(args),
  },
  contributions: {
    what: '"what drove this change?" on the hotel cube (3,978 series × 3 years), 30-day windows over HTTP (needs DATABASE_URL)',
    byDefault: true,
    run: async (args) => (await import('./bench/contributions')).benchContributions(args),
  },
  replay: {
    what: 'a replay of the hotel view (DOD 30 → 20 %) beside one detection cycle of it, unfanned (needs DATABASE_URL and the contributions bench database)',
    run: async (args) => (await import('./bench/replay')).benchReplay(args),
  },
  filters: {
    what: 'filters: by-filter Top 100 over 1,000,000 anomalies, aggregation of 10,000 (needs DATABASE_URL)',
    byDefault: true,
    run: async (args) => (await import('./bench/filters')).benchFilters(args),
  },
  'detection-engine': {
    what: 'the detection engine alone, in memory (--series N --days N --repeat N --shard N; prints only)',
    run: program('detection-engine.ts'),
  },
  process: {
    what: 'the whole process job on PostgreSQL, per shard size (--shards, --hotel; prints only)',
    run: program('process.ts', ['--expose-gc']),
  },
  aggregate: {
    what: 'aggregation and a whole filter run over generated anomalies in memory ([n], default 10,000; prints only)',
    run: program('aggregate.ts'),
  },
  read: {
    what: 'the read phase of a load on the hotel cube: stream, code, stage (needs DATABASE_URL; prints only)',
    run: program('read.ts'),
  },
  status: {
    what: 'data view status latency while a large load runs (--db postgres|pglite, --scale; needs DATABASE_URL; prints only)',
    run: program('status.ts'),
  },
};

function list(): void {
  for (const [name, b] of Object.entries(BENCHES))
    console.log(`  ${name.padEnd(17)} ${b.byDefault ? '(default) ' : ''}${b.what}`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const [name, ...rest] = argv;
  if (name === '--list' || name === '--help' || name === 'help') return list();
  const named = name !== undefined && !name.startsWith('--');
  if (named && !BENCHES[name]) {
    console.error(`unknown bench '${name}'; one of:`);
    list();
    process.exit(2);
  }
  const chosen = named ? [name] : Object.keys(BENCHES).filter((k) => BENCHES[k].byDefault);
  for (const key of chosen) {
    console.log(`# bench ${key}`);
    await BENCHES[key].run(named ? rest : argv);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
