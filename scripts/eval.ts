/**
 * Detection quality evaluation (`npm run eval`, docs/detection-quality.md).
 *
 *   npx tsx scripts/eval.ts --real --fast        real datasets, engine in process (seconds)
 *   npx tsx scripts/eval.ts --real               real datasets through the service's load → process path
 *   npx tsx scripts/eval.ts --cube               small hotel cube through the service (volume, injections, ranking)
 *   npx tsx scripts/eval.ts --hotel              hotel-size cube (minutes; PGlite on disk)
 *   npx tsx scripts/eval.ts --retail             the second cube (retail, generated differently): incidents
 *   npx tsx scripts/eval.ts --family             the cube family (12 generated cubes, holidays listed): incidents, Home's last 7 days
 *   npx tsx scripts/eval.ts --family --calendar none   the same without the holidays configured
 *   npx tsx scripts/eval.ts --synthetic          the per-type precision/recall on generated views
 *   npx tsx scripts/eval.ts --measures           measures that are not counts: derived real series, a ratio cube (in process)
 *   npx tsx scripts/eval.ts --measures --service the derived real series through the service (the ratio cube in process)
 *   (--measures also prints the measure semantics: an interval series with faults, the causes of a ratio;
 *   alone: npx tsx scripts/eval/measure-semantics.ts)
 *
 * `--only real,cube,…` selects the same parts by name. Options: --datasets page_views,pedestrians,births; --views N and --seed S (synthetic);
 * --out FILE [--section after|before] (markdown between the section's markers). Without a
 * selection flag everything but --hotel runs.
 */
import { execSync } from 'node:child_process';
import os from 'node:os';
import { loadRealDatasets } from './eval/datasets';
import { evaluateDataset, type RealResult, renderReal, runEngine, runService, variantsOf } from './eval/real';
import { type CubeResult, cubeTargets, renderCube, runCube } from './eval/cube';
import { incidentTargets, renderIncidents, runRetailCube } from './eval/incidents';
import {
  evaluateMeasures,
  evaluateMeasuresService,
  type MeasuresResult,
  renderMeasures,
} from './eval/measures';
import { renderMeasureSemantics, runMeasureSemantics } from './eval/measure-semantics';
import { renderRatioCube, runRatioCube } from './eval/ratio-eval';
import { type FamilyCalendar, runFamily } from './eval/family';
import { familyTargets, renderFamily } from './eval/family-report';
import { writeSection } from './bench/report';
import { openServiceEnv } from './eval/service';
import { HOTEL_CUBE, SMALL_CUBE } from './synthetic/cube';
import { syntheticPrecisionRecall } from './eval/synthetic-pr';

interface Args {
  real: boolean;
  synthetic: boolean;
  cube: boolean;
  hotel: boolean;
  retail: boolean;
  family: boolean;
  calendar: FamilyCalendar;
  familySize?: number;
  measures: boolean;
  service: boolean;
  fast: boolean;
  datasets?: string[];
  views: number;
  seed: number;
  out?: string;
  section: string;
}

function parseArgs(argv: string[]): Args {
  const get = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const only = get('--only')?.split(',') ?? [];
  const has = (name: string) => argv.includes(name) || only.includes(name.slice(2));
  const anySelected =
    has('--real') ||
    has('--synthetic') ||
    has('--cube') ||
    has('--hotel') ||
    has('--retail') ||
    has('--family') ||
    has('--measures');
  return {
    real: has('--real') || !anySelected,
    synthetic: has('--synthetic') || !anySelected,
    cube: has('--cube') || !anySelected,
    hotel: has('--hotel'),
    retail: has('--retail'),
    family: has('--family'),
    calendar: (['none', 'country'] as const).find((c) => c === get('--calendar')) ?? 'listed',
    familySize: get('--cubes') ? Number(get('--cubes')) : undefined,
    measures: has('--measures') || !anySelected,
    service: has('--service'),
    fast: has('--fast'),
    datasets: get('--datasets')?.split(','),
    views: Number(get('--views') ?? 60),
    seed: Number(get('--seed') ?? 1),
    out: get('--out'),
    section: get('--section') ?? 'after',
  };
}

export function realFast(datasets?: string[]): RealResult[] {
  const out: RealResult[] = [];
  for (const ds of loadRealDatasets(datasets)) {
    for (const v of variantsOf(ds)) out.push(evaluateDataset(ds, v, runEngine(ds, v)));
  }
  return out;
}

/** The real datasets through the service's load → process path (the authoritative figures). */
export async function realService(datasets?: string[]): Promise<RealResult[]> {
  const env = await openServiceEnv();
  try {
    const out: RealResult[] = [];
    for (const ds of loadRealDatasets(datasets)) {
      for (const v of variantsOf(ds)) out.push(evaluateDataset(ds, v, await runService(env, ds, v)));
    }
    return out;
  } finally {
    await env.stop();
  }
}

function engineVersion(): string {
  if (process.env.EVAL_ENGINE_LABEL) return process.env.EVAL_ENGINE_LABEL;
  try {
    const head = execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    const dirty = execSync('git status --porcelain -- lib', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    return `commit ${head}${dirty ? ' + uncommitted changes in lib/' : ''}`;
  } catch {
    return 'commit unknown';
  }
}

type Target = { area: string; name: string; target: string; value: string; pass: boolean };

function targetTable(targets: Target[]): string {
  const met = targets.filter((t) => t.pass).length;
  return [
    `${met} of ${targets.length} targets met.`,
    '',
    '| Data | Target | Goal | Measured | |',
    '|---|---|---|---|---|',
    ...targets.map(
      (t) => `| ${t.area} | ${t.name} | ${t.target} | ${t.value} | ${t.pass ? 'met' : '**missed**'} |`,
    ),
  ].join('\n');
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const parts: string[] = [];
  const targets: Target[] = [];
  const started = performance.now();
  if (args.real) {
    const t0 = performance.now();
    const results = args.fast ? realFast(args.datasets) : await realService(args.datasets);
    for (const r of results)
      for (const c of r.checks) targets.push({ area: `${r.dataset} (${r.variant})`, ...c });
    const mode = args.fast
      ? 'engine in process (fast mode)'
      : 'through the service (source table, pgsql connector, load job, process job, all_anomalies)';
    parts.push(
      `### Real daily series — ${mode}`,
      '',
      `Detectors dod, wow, spike, dt, changepoint, gap, mom, qoq, mpy, cw on params {}; ${((performance.now() - t0) / 1000).toFixed(1)} s.`,
      '',
      ...results.map(renderReal),
    );
  }
  if (args.cube || args.hotel) {
    const env = await openServiceEnv({ onDisk: args.hotel });
    try {
      const cubes: CubeResult[] = [];
      if (args.cube) {
        cubes.push(await runCube(env, 'cube_small', SMALL_CUBE));
        // The same cube loaded while its last day is still being filled (issue 17: not a −100 % drop).
        cubes.push(await runCube(env, 'cube_partial', { ...SMALL_CUBE, lastDayShare: 0.4 }));
      }
      if (args.hotel) cubes.push(await runCube(env, 'cube_hotel', HOTEL_CUBE));
      for (const c of cubes)
        for (const t of cubeTargets(c)) targets.push({ area: `cube ${c.name} (${c.series} series)`, ...t });
      // Incident targets are set for a hotel-size cube (issue 28).
      for (const c of cubes.filter((x) => x.name === 'cube_hotel'))
        for (const t of incidentTargets(c.incidents))
          targets.push({ area: `incidents ${c.name} (${c.series} series)`, ...t });
      parts.push(
        '### Synthetic hotel cube through the service: volume, injections found, ranking',
        '',
        ...cubes.map(renderCube),
        '### Incidents (issue 28)',
        '',
        ...cubes.map((c) => renderIncidents(c.incidents)),
      );
    } finally {
      await env.stop();
    }
  }
  if (args.retail) {
    const env = await openServiceEnv({ onDisk: true });
    try {
      const r = await runRetailCube(env);
      for (const t of incidentTargets(r))
        targets.push({ area: `incidents ${r.name} (${r.series} series)`, ...t });
      parts.push('### Incidents of the second cube (retail, generated differently)', '', renderIncidents(r));
    } finally {
      await env.stop();
    }
  }
  if (args.family) {
    const fs = await runFamily(args.calendar, args.familySize);
    for (const t of familyTargets(fs))
      targets.push({ area: `cube family (holidays ${args.calendar})`, ...t });
    parts.push('### The cube family through the service: incidents', '', renderFamily(fs, args.calendar));
  }
  if (args.measures) {
    const t0 = performance.now();
    const derived: MeasuresResult[] = [];
    if (args.service) {
      const env = await openServiceEnv();
      try {
        for (const ds of loadRealDatasets(args.datasets))
          derived.push(await evaluateMeasuresService(env, ds));
      } finally {
        await env.stop();
      }
    } else for (const ds of loadRealDatasets(args.datasets)) derived.push(evaluateMeasures(ds));
    for (const m of derived) for (const { area, check } of m.checks) targets.push({ area, ...check });
    const ratio = runRatioCube();
    for (const c of ratio.checks) targets.push({ area: `${ratio.name} (${ratio.series} series)`, ...c });
    parts.push(
      `### Measures that are not counts — ${args.service ? 'copies through the service (source table, pgsql connector, load job, process job, all_anomalies), the ratio cube in process' : 'engine in process'}`,
      '',
      `Copies of the real series analysed as the value of a view whose count is the constant 1, detectors dod, wow, spike, dt, changepoint, gap, mom, qoq, mpy, cw on params {}; ${((performance.now() - t0) / 1000 - ratio.seconds).toFixed(1)} s.`,
      '',
      ...derived.map(renderMeasures),
      renderRatioCube(ratio),
    );
    // Measure semantics (issue 42): an interval series with labelled faults, the causes of a ratio.
    const semantics = runMeasureSemantics();
    for (const c of semantics.checks)
      targets.push({
        area: 'measure semantics',
        name: c.metric,
        target: c.target,
        value: c.value,
        pass: c.met,
      });
    parts.push(
      '',
      '### Measure semantics — interval scale, the causes of a ratio',
      '',
      renderMeasureSemantics(semantics),
    );
  }
  if (args.synthetic) parts.push(syntheticPrecisionRecall(args.views, args.seed));
  const text = [
    `_Measured ${new Date().toISOString().slice(0, 16)}Z on ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), Node ${process.version}, engine ${engineVersion()}; ${((performance.now() - started) / 1000).toFixed(1)} s in all._`,
    '',
    ...(targets.length ? ['### Targets', '', targetTable(targets), ''] : []),
    ...parts,
  ].join('\n');
  console.log(text);
  if (args.out) writeSection(`eval:${args.section}`, text, { file: args.out });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
