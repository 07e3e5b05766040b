/**
 * The end-to-end bench's verdict on issue 30's targets: POST load → detection finished under a bound per
 * service database, status and Top 100 p95 under 200 ms during the load and the detection, and the
 * detection (with publish) within 3× a NumPy reference run in the same bench on a view of the same size.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DETECTOR_DEFAULTS } from '../../lib/detection/params';

/** POST load → detection finished, in seconds, per service database. */
export const FINISH_BOUND_S = { postgres: 15, pglite: 40 } as const;
/** Status and Top 100 p95 bound (ms), during the load and the detection. */
export const P95_BOUND_MS = 200;
/** Detection + publish within this multiple of the NumPy reference. */
export const NUMPY_FACTOR = 3;

/** One run's figures the verdict needs. */
export interface TargetRun {
  label: string;
  target: 'postgres' | 'pglite';
  detectionFinishedMs: number | null;
  detectionMs: number | null;
  /** p95 (ms) of each query kind and phase with at least one answer. */
  p95: Array<{ what: string; ms: number }>;
}

/**
 * The NumPy reference (scripts/bench/numpy_periods.py) over `series` × `days` generated values: the best
 * time of DOD + WOW (the rules the hotel view's detection shares with it), in seconds; null without NumPy.
 */
export function numpyReferenceSeconds(series: number, days: number, dayIndex0: number): number | null {
  try {
    const percentualChange = Object.fromEntries(
      (['dod', 'wow', 'mom', 'qoq', 'mpy', 'cw'] as const).map((r) => [
        r,
        DETECTOR_DEFAULTS[r].percentualChange,
      ]),
    );
    const out = execFileSync('python3', [fileURLToPath(new URL('./numpy_periods.py', import.meta.url))], {
      input: JSON.stringify({ series, days, dayIndex0, repeat: 3, percentualChange }),
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
    });
    const rules = JSON.parse(out).rules as Record<string, { seconds: number }>;
    return rules.dod.seconds + rules.wow.seconds;
  } catch {
    return null;
  }
}

const s1 = (ms: number | null) => (ms === null ? '–' : (ms / 1000).toFixed(1));

/** One line per run and target: met or missed, with the figure. */
export function targetLines(runs: TargetRun[], numpyS: number | null): string[] {
  const out: string[] = [];
  for (const r of runs) {
    const bound = FINISH_BOUND_S[r.target];
    const finish = r.detectionFinishedMs;
    const checks = [
      `POST load → detection finished ${s1(finish)} s (< ${bound} s): ${finish !== null && finish < bound * 1000 ? 'met' : 'MISSED'}`,
    ];
    const worst = r.p95.reduce((m, x) => (x.ms > m.ms ? x : m), { what: '–', ms: 0 });
    checks.push(
      `status and Top 100 p95 ≤ ${worst.ms.toFixed(0)} ms (${worst.what}; < ${P95_BOUND_MS} ms): ${r.p95.length > 0 && worst.ms < P95_BOUND_MS ? 'met' : 'MISSED'}`,
    );
    if (numpyS === null) checks.push('detection ÷ NumPy: not measured (python3 with NumPy missing)');
    else {
      const factor = r.detectionMs === null ? null : r.detectionMs / 1000 / numpyS;
      checks.push(
        `detection + publish ${s1(r.detectionMs)} s = ${factor === null ? '–' : factor.toFixed(1)}× NumPy ${numpyS.toFixed(2)} s (≤ ${NUMPY_FACTOR}×): ${factor !== null && factor <= NUMPY_FACTOR ? 'met' : 'MISSED'}`,
      );
    }
    out.push(`- targets, ${r.label}: ${checks.join('; ')}`);
  }
  return out;
}
