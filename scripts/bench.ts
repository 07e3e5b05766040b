/**
 * `npm run bench -- <name> [options]`: runs one benchmark (all when no name is given). Each bench
 * writes its own section of docs/performance.md. Add yours to BENCHES.
 */
const BENCHES: Record<string, { what: string; run: (args: string[]) => Promise<void> }> = {
  load: {
    what: 'load and series build (needs DATABASE_URL)',
    run: async (args) => (await import('./bench-load')).benchLoad(args),
  },
  detection: {
    what: 'detection engine per detector, and the whole process job on PostgreSQL (10,000 series × 3 years)',
    run: async (args) => (await import('./bench-detection-report')).benchDetection(args),
  },
  e2e: {
    what: 'end to end through HTTP: hotel cube source, npm start, POST load → detection → Top 100, API latency, floor (--scale small|hotel|big; DATABASE_URL for PostgreSQL)',
    run: async (args) => (await import('./bench-e2e')).benchE2e(args),
  },
  contributions: {
    what: '"what drove this change?" on the hotel cube (3,978 series × 3 years), 30-day windows over HTTP (needs DATABASE_URL)',
    run: async (args) => (await import('./bench-contributions')).benchContributions(args),
  },
  filters: {
    what: 'filters: by-filter Top 100 over 1,000,000 anomalies, aggregation of 10,000 (needs DATABASE_URL)',
    run: async (args) => (await import('./bench-filters')).benchFilters(args),
  },
};

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  if (name === '--help' || name === 'help') {
    for (const [k, b] of Object.entries(BENCHES)) console.log(`  ${k.padEnd(12)} ${b.what}`);
    return;
  }
  const chosen = name && !name.startsWith('--') ? [name] : Object.keys(BENCHES);
  for (const key of chosen) {
    const bench = BENCHES[key];
    if (!bench) throw new Error(`unknown bench '${key}'; one of: ${Object.keys(BENCHES).join(', ')}`);
    console.log(`# bench ${key}`);
    await bench.run(name && !name.startsWith('--') ? args : process.argv.slice(2));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
